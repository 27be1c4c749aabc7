"""`serve` stops cleanly on Ctrl-C and keeps memories across a restart with --state."""

from __future__ import annotations

import signal
from pathlib import Path

from tests.cli.conftest import Cli, free_port, start_server


def test_ctrl_c_saves_state_and_a_restart_loads_it(tmp_path: Path) -> None:
    state = tmp_path / "memory-state.json"
    first = start_server("--port", str(free_port()), "--state", str(state))
    try:
        cli = Cli(first)
        cli.json("setup", "--table", "kept", "--embed", "lexical")
        cli.json(
            "put", "--table", "kept", "--embed", "lexical", "memories.u1", "m", '{"text": "hi"}'
        )
        cli.json("put", "--table", "kept", "--ttl", "60", "memories.u2", "t", '{"text": "later"}')
    finally:
        code, stopped = first.stop(signal.SIGINT)
    assert code == 0
    assert stopped["stopped"] and stopped["saved_items"] >= 4  # 2 items, 2 registry rows, ...
    assert state.exists()

    second = start_server("--port", str(free_port()), "--state", str(state))
    try:
        assert second.ready["loaded_items"] == stopped["saved_items"]
        cli = Cli(second)
        assert cli.json("get", "--table", "kept", "memories.u1", "m")["value"] == {"text": "hi"}
        assert cli.json("ls", "--table", "kept") == [["memories", "u1"], ["memories", "u2"]]
        hits = cli.json("search", "--table", "kept", "--embed", "lexical", "memories", "-q", "hi")
        assert hits[0]["key"] == "m"  # vectors are indexed again on load
        status = cli.json("status", "--table", "kept")
        assert status["ttl"] == "ENABLED on expires_at"
        assert status["vector_indexes"][0]["status"] == "ACTIVE"
    finally:
        code, _ = second.stop(signal.SIGTERM)
    assert code == 0
