"""Stage 1, submissions mode: read the solution and every team's prediction file.

:func:`read_solution` reads the true answers (Kaggle's ``id, target..., Usage`` layout) into a
:class:`Solution`; :func:`read_submissions` finds every submission file (a folder, a zip or a
manifest), validates each one as a Kaggle scorer would for the metric's prediction kind and aligns
it to the solution's rows, giving a :class:`SubmissionSet` in which every file found has a status
and, when rejected, a one-line reason; :func:`list_submissions` finds them without reading any,
for submissions mode to stream them (:mod:`leaderboard.engine`). Nothing here computes a metric.

Modules: :mod:`~leaderboard.ingest.submissions.solution` (the solution file),
:mod:`~leaderboard.ingest.submissions.files` (reading the files found, each with its fate),
:mod:`~leaderboard.ingest.submissions.find` (finding them),
:mod:`~leaderboard.ingest.submissions.validate` (the checks per kind) and
:mod:`~leaderboard.ingest.submissions.table` (bytes to a table, reasons). The records they hand on
(:class:`Solution`, :class:`SubmissionFile`, :class:`SubmissionSet`) are in
:mod:`leaderboard.ingest.records`, shared with the per-item results reader.
"""
from leaderboard.ingest.records import STATUSES, Solution, SubmissionFile, SubmissionSet
from leaderboard.ingest.submissions.files import Listing, list_submissions, read_submissions
from leaderboard.ingest.submissions.solution import read_solution

__all__ = ["STATUSES", "Listing", "Solution", "SubmissionFile", "SubmissionSet",
           "list_submissions", "read_solution", "read_submissions"]
