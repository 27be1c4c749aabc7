"""`serve --state FILE` (issue 21): a stop saves every acknowledged write, and a state
file that cannot be used is refused at start in one line, never overwritten."""

from __future__ import annotations

import json
import os
import signal
import socket
from pathlib import Path

import pytest

from tests.cli.conftest import Cli, free_port, serve_refused, start_server
from tests.cli.writers import Writers, endpoint_client, saved_keys


def _one_line(err: str) -> str:
    assert "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1, err
    return err


def test_sigterm_under_concurrent_writers_saves_every_acknowledged_put(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    server = start_server("--port", str(free_port()), "--state", str(state))
    try:
        Cli(server).json("setup", "--table", "mem")
        with Writers(server.url, "mem") as writers:
            writers.wait_for(100)
            code, stopped = server.stop(signal.SIGTERM)  # the writers keep writing meanwhile
    finally:
        if server.process.poll() is None:
            server.stop(signal.SIGKILL)
    assert code == 0 and stopped["stopped"]
    missing = set(writers.acknowledged) - saved_keys(state, "mem")
    assert not missing, f"{len(missing)} of {len(writers.acknowledged)} acknowledged puts lost"


@pytest.mark.parametrize("where", ["under a regular file", "in a read-only directory"])
def test_a_state_file_that_cannot_be_written_is_refused_at_start(
    tmp_path: Path, where: str
) -> None:
    if where == "under a regular file":
        blocker = tmp_path / "notes.txt"
        blocker.write_text("")
        state = blocker / "state.json"
    else:
        if os.geteuid() == 0:
            pytest.skip(
                "runs as root, which writes into a 0500 directory anyway (CAP_DAC_OVERRIDE): "
                "no read-only directory to refuse"
            )
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        state = locked / "state.json"
    code, err = serve_refused("--port", str(free_port()), "--state", str(state))
    assert code == 2
    assert str(state) in _one_line(err) and "--state" in err


def test_a_second_serve_on_the_same_state_file_refuses_naming_the_first(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    first = start_server("--port", str(free_port()), "--state", str(state))
    try:
        code, err = serve_refused("--port", str(free_port()), "--state", str(state))
        Cli(first).json("setup", "--table", "mine")
    finally:
        first_code, _ = first.stop(signal.SIGTERM)
    assert code == 3
    assert str(state) in _one_line(err) and f"pid {first.process.pid}" in err
    assert first_code == 0 and '"TableName": "mine"' in state.read_text()


NOT_SNAPSHOTS = {
    "a list": "[]",
    "null": "null",
    "no tables": '{"version": 1}',
    "another version": '{"version": 2, "tables": []}',
    "an empty table entry": '{"version": 1, "tables": [{}]}',
    "a table without keys": json.dumps(
        {
            "version": 1,
            "tables": [
                {
                    "region": "us-east-1",
                    "create": {"TableName": "t"},
                    "ttl_attribute": None,
                    "items": [],
                }
            ],
        }
    ),
    "items that are not items": json.dumps(
        {
            "version": 1,
            "tables": [
                {
                    "region": "us-east-1",
                    "create": {
                        "TableName": "t",
                        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
                        "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
                        "BillingMode": "PAY_PER_REQUEST",
                    },
                    "ttl_attribute": None,
                    "items": [{"PK": "not DynamoDB JSON"}],
                }
            ],
        }
    ),
    "not JSON": "{oops",
    "too deep": "[" * 100_000,
}


@pytest.mark.parametrize("content", NOT_SNAPSHOTS.values(), ids=NOT_SNAPSHOTS.keys())
def test_a_file_serve_did_not_write_is_refused_in_one_line(tmp_path: Path, content: str) -> None:
    state = tmp_path / "state.json"
    state.write_text(content)
    code, err = serve_refused("--port", str(free_port()), "--state", str(state))
    assert code == 2
    assert str(state) in _one_line(err)
    assert state.read_text() == content  # never overwritten


def test_a_taken_port_fails_at_once_naming_the_port_and_the_fix() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, err = serve_refused("--port", str(port))
    assert code == 3
    assert str(port) in _one_line(err) and "--port" in err


def test_a_save_keeps_binary_attributes_and_replaces_the_file_whole(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    item = {
        "PK": {"S": "a"},
        "blob": {"B": b"\x00\xffraw"},
        "blobs": {"BS": [b"x"]},
        "nested": {"M": {"inner": {"L": [{"B": b"\x01"}]}}},
    }
    first = start_server("--port", str(free_port()), "--state", str(state))
    try:
        client = endpoint_client(first.url)
        client.create_table(
            TableName="raw",
            KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        client.put_item(TableName="raw", Item=item)
    finally:
        code, stopped = first.stop(signal.SIGTERM)
    assert code == 0 and stopped["saved_items"] == 1
    assert sorted(path.name for path in tmp_path.iterdir()) == ["state.json", "state.json.lock"]
    second = start_server("--port", str(free_port()), "--state", str(state))
    try:
        got = endpoint_client(second.url).get_item(TableName="raw", Key={"PK": {"S": "a"}})
    finally:
        second.stop(signal.SIGTERM)
    assert got["Item"] == item


def test_closing_the_terminal_saves_like_ctrl_c(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    server = start_server("--port", str(free_port()), "--state", str(state))
    try:
        Cli(server).json("setup", "--table", "kept")
        Cli(server).json("put", "--table", "kept", "notes.u1", "k", '{"text": "keep me"}')
    finally:
        code, stopped = server.stop(signal.SIGHUP)  # what a closed terminal sends
    assert code == 0 and stopped["saved_items"] >= 2
    assert saved_keys(state, "kept") == {"k"}


def test_a_state_file_naming_an_unknown_region_is_one_line(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    table = {
        "region": "mars-north-9",
        "create": {
            "TableName": "memory",
            "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
        },
        "ttl_attribute": None,
        "items": [],
    }
    state.write_text(json.dumps({"version": 1, "tables": [table]}))
    code, err = serve_refused("--port", str(free_port()), "--state", str(state))
    assert code == 2 and err.count("\n") == 1, err
    assert "table entry 1 is in region 'mars-north-9', which the endpoint does not serve" in err
    assert json.loads(state.read_text())["tables"] == [table]  # never overwritten
