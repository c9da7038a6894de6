"""The pipelines: each joins the stages (ingest -> metrics -> noise -> tiers) for one question.

``scores`` (a leaderboard of scores), ``submissions`` (a solution and teams' predictions, also
per-item results), ``shakeup`` (public vs private, the post-mortem stage of both), ``categories``
(per-item results by category), ``compare`` (the CI gate: its paired test, and ``run_compare``
reading its inputs), ``choose`` (which two submissions a team should select; ``choose_run``
reads its inputs), ``plan`` (+ ``plan_search``: how big a test set must be) and
``simulate`` (the seeds' experiment). None of them imports the report. The command line and the
Python API hand them paths or DataFrames and options objects; the readers of
:mod:`leaderboard.ingest` are called from here, never from the command line.
"""
