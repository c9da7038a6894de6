"""``python -m leaderboard`` is the ``leaderboard`` command."""
from leaderboard.cli import entry

entry()
