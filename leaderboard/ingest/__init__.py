"""Stage 1, ingest: every reader of the user's input, and nothing else.

Each input the tool takes has one reader here, called by the pipelines (through the Python API),
never by the command line directly:

- :mod:`~leaderboard.ingest.leaderboards`: a leaderboard of scores (Kaggle's download or a plain
  table, with optional public and private columns);
- :mod:`~leaderboard.ingest.submissions`: a competition's solution file and every team's
  prediction files (a folder, a zip or a manifest), validated as Kaggle's scorer would;
- :mod:`~leaderboard.ingest.items`: per-item results (one row per model and item);
- :mod:`~leaderboard.ingest.benchmarks`: which reader an ``--items`` path needs
  (``--items-format``): :mod:`~leaderboard.ingest.harness` (lm-evaluation-harness sample logs),
  :mod:`~leaderboard.ingest.swebench` (SWE-bench results), :mod:`~leaderboard.ingest.helm`
  (HELM runs) and :mod:`~leaderboard.ingest.inspect_logs` (Inspect logs), each read as per-item
  results, their JSON read through :mod:`~leaderboard.ingest.json_logs`;
- :mod:`~leaderboard.ingest.battles`: pairwise battles in LMArena's layout.

Underneath them: :mod:`~leaderboard.ingest.safe_read` reads a file's bytes as an upload service
must (regular files only, sizes capped), :mod:`~leaderboard.ingest.csv_text` checks CSV text
before pandas sees it (encoding, header, the physical line of each record), and
:mod:`~leaderboard.ingest.in_memory` lets a DataFrame take a file's place without a temporary
file. Every problem is an :class:`~leaderboard.errors.InputError` naming the file (or the
DataFrame), the row and the column.
"""
