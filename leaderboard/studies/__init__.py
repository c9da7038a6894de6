"""Studies that check the statistics against known truth (``leaderboard calibrate``).

``calibration`` (tiers, intervals and rank sets on simulated competitions in both modes),
``noise`` (each scores-only universe against real models' score distributions),
``scores_calibration`` (boards of those families analysed from scores alone) and ``correlation``
(``--correlation auto`` on boards with a known correlation).
"""
