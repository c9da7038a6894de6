"""The table toolkit every reader of ``leaderboard.ingest`` stands on (and no reader beneath it).

- :mod:`~leaderboard.ingest.toolkit.reading`: a file's bytes (CSV, or Parquet) as a table of
  text cells indexed by the line each row starts on (the line map: the header is line 1, a
  quoted line break does not shift the lines after it), every problem one
  :class:`~leaderboard.errors.InputError` naming the file and line;
- :mod:`~leaderboard.ingest.toolkit.parquet`: a Parquet file decoded with the checks every
  reader of Parquet makes (names written twice, the caps, what its pages expand to);
- :mod:`~leaderboard.ingest.toolkit.columns`: finding a column (given, or by its usual names),
  a column as finite numbers, a column without blanks, and the lines a mask selects, each error
  naming the file, the row and the column;
- :mod:`~leaderboard.ingest.toolkit.messages`: untrusted names and values quoted for a one-line
  message, and :class:`~leaderboard.ingest.toolkit.messages.Rejected`, one file's one-line
  reason.

Beneath it are the shared mechanisms: :mod:`~leaderboard.ingest.safe_read` (sizes and expansion
capped), :mod:`~leaderboard.ingest.csv_text` (CSV bytes before pandas sees them),
:mod:`~leaderboard.ingest.text_rules` (decoding) and :mod:`~leaderboard.ingest.in_memory` (a
DataFrame in a file's place). Every name here is public within the package; nothing here knows
which reader calls it.
"""
