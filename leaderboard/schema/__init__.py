"""JSON Schemas of the outputs: ``<command>.schema.json`` for ``leaderboard <command> --json``
(analyze, simulate, plan, choose, compare).

>>> import json
>>> json.loads(SCHEMA_DIR.joinpath("analyze.schema.json").read_text())["title"]
'leaderboard analyze --json'
"""
from pathlib import Path

SCHEMA_DIR = Path(__file__).parent
