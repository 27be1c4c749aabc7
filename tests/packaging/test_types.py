"""Type checkers see the real library from a user's file in the checkout: mypy resolves
both public classes through the editable install's link tree, never to `Any`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

USERS_FILE = """
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore, copy_table

reveal_type(DynamoDBStore.put)
reveal_type(DynamoDBStore.setup)
reveal_type(DynamoDBSaver.put)
reveal_type(copy_table)
"""


def test_mypy_reveals_real_types_for_the_store_and_the_saver(tmp_path: Path) -> None:
    users_file = ROOT / f"users_file_{tmp_path.name}.py"
    users_file.write_text(USERS_FILE)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", users_file.name],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        users_file.unlink()
    revealed = [line for line in done.stdout.splitlines() if "Revealed type" in line]
    assert len(revealed) == 4, done.stdout + done.stderr
    assert not [line for line in revealed if line.endswith('"Any"')], revealed
    assert "langgraph.store.dynamodb.memory.store.DynamoDBStore" in revealed[1]
    assert "langgraph.checkpoint.dynamodb.saver.DynamoDBSaver" in revealed[2]
    assert revealed[3].endswith('"def (client: Any, source: str, target: str) -> int"')
