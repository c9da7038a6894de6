"""Stage 1, ingest: every reader of the user's input, and nothing else.

Three tiers, each importing only the ones below it (``tests/api/test_layers.py`` checks it):

- **The bottom: shared mechanisms and the table toolkit.**
  :mod:`~leaderboard.ingest.safe_read` reads a file's bytes as an upload service must (regular
  files only, sizes and expansion capped), :mod:`~leaderboard.ingest.csv_text` checks CSV text
  before pandas sees it (encoding, header, the physical line of each record),
  :mod:`~leaderboard.ingest.text_rules` decodes text and makes names writable,
  :mod:`~leaderboard.ingest.in_memory` lets a DataFrame take a file's place, and
  :mod:`~leaderboard.ingest.json_logs` parses untrusted JSON and JSON lines. On them,
  :mod:`~leaderboard.ingest.toolkit`: a file as a table of text cells indexed by its lines,
  column lookup, numbers, emptiness and one-line messages. :mod:`~leaderboard.ingest.records`
  holds the records several readers hand on.
- **The readers, peers on the toolkit** (none imports another):
  :mod:`~leaderboard.ingest.leaderboards` (a board of scores: Kaggle's download or a plain
  table), :mod:`~leaderboard.ingest.submissions` (a competition's solution file and every team's
  prediction files, validated as Kaggle's scorer would), :mod:`~leaderboard.ingest.item_table`
  (per-item results, one row per model and item, with :mod:`~leaderboard.ingest.item_sets` and
  :mod:`~leaderboard.ingest.item_coverage`), :mod:`~leaderboard.ingest.harness`
  (lm-evaluation-harness sample logs), :mod:`~leaderboard.ingest.swebench` (SWE-bench results),
  :mod:`~leaderboard.ingest.helm` (HELM runs), :mod:`~leaderboard.ingest.inspect_logs`
  (Inspect logs), :mod:`~leaderboard.ingest.published` (published scores) and
  :mod:`~leaderboard.ingest.battles` (pairwise battles in LMArena's layout).
- **The fronts, which choose a reader by the path:** :mod:`~leaderboard.ingest.items`
  (``--items``: a table, or a benchmark's files through :mod:`~leaderboard.ingest.benchmarks`,
  then the per-item results reader) and :mod:`~leaderboard.ingest.item_costs` (``--cost-col``).

The pipelines call them (through the Python API), never the command line directly. Every
problem is an :class:`~leaderboard.errors.InputError` naming the file (or the DataFrame), the row
and the column.
"""
