"""``python -m leaderboard`` is the ``leaderboard`` command."""
import sys

from leaderboard.cli import main

sys.exit(main())
