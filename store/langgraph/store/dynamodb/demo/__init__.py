"""`make demo`: a support agent that remembers, on the local emulation
(`python -m langgraph.store.dynamodb.demo`)."""

from __future__ import annotations

from pathlib import Path

# Where the demo keeps its table (as `serve --state` saves it) and usage for the
# inspector: `dynamodb-memory ui` run here browses them without options.
KEPT = Path(".demo")
STATE_FILE = "state.json"
USAGE_FILE = "usage.jsonl"
