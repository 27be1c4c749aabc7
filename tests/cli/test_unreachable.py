"""An endpoint nobody listens on is reported at once, in one line that names it and the
fix, instead of after botocore's ten adaptive retries (13-16 s)."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
from typing import Any

import boto3
import botocore.handlers
import pytest
from langgraph.store.dynamodb.cli.app import app
from typer.testing import CliRunner

from tests.cli.conftest import free_port

# A regression to the library's retries takes 13-16 s; the CLI itself answers in about
# 2 s plus its start-up, so this bound only guards against the regression.
GUARD_SECONDS = 10


def run(*command: str) -> subprocess.CompletedProcess[str]:
    """The command line in a process of its own, with test credentials and no endpoint."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(
        AWS_DEFAULT_REGION="us-east-1", AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing"
    )
    return subprocess.run(
        [sys.executable, "-m", "langgraph.store.dynamodb", *command],
        capture_output=True,
        text=True,
        env=env,
        timeout=GUARD_SECONDS,
    )


@pytest.mark.parametrize(
    "command",
    [
        ("status",),
        ("get", "memories.acme", "k"),
        ("put", "memories.acme", "k", '{"text": "x"}', "--embed", "lexical"),
        ("setup", "--embed", "lexical"),
    ],
)
def test_a_closed_port_is_reported_in_one_line_with_the_fix(command: tuple[str, ...]) -> None:
    url = f"http://127.0.0.1:{free_port()}"  # bound once, then closed: nothing listens
    done = run(*command, "--endpoint-url", url)
    assert done.returncode == 3, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert url in lines[0]
    assert "dynamodb-memory serve" in lines[0] and "--endpoint-url" in lines[0]


def test_throttling_keeps_the_librarys_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only connection failures are cut short: an endpoint that throttles three times
    and then answers is retried through to the answer."""
    from langgraph.store.dynamodb.cli.target import Target

    seen: list[str] = []

    class Throttling(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            seen.append(self.headers["X-Amz-Target"])
            throttled = len(seen) <= 3
            body = json.dumps(
                {"__type": "com.amazonaws.dynamodb.v20120810#ThrottlingException"}
                if throttled
                else {"TableNames": []}
            ).encode()
            self.send_response(400 if throttled else 200)
            self.send_header("Content-Type", "application/x-amz-json-1.0")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    for name, value in [("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing")]:
        monkeypatch.setenv(name, value)
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), Throttling) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_address[1]}"
        client = Target.of(region="us-east-1", endpoint_url=url).client()
        assert client.list_tables()["TableNames"] == []
        server.shutdown()
    assert seen == ["DynamoDB_20120810.ListTables"] * 4


@pytest.mark.parametrize("url", ["htp://127.0.0.1:8484", "127.0.0.1:8484", "http://"])
def test_an_endpoint_that_is_no_url_is_one_line(url: str) -> None:
    done = run("status", "--endpoint-url", url)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stdout == ""
    assert "must be an http:// or https:// URL with a host" in done.stderr and url in done.stderr


@pytest.mark.parametrize("kind", ["store", "saver"])
def test_the_library_gives_up_on_a_closed_port_after_two_attempts(kind: str) -> None:
    """A store or saver given an endpoint_url (a local endpoint) reports a port nobody
    listens on after two connection attempts (0.1 s), not after its ten adaptive retries
    (15 s for the store, 6 s for the saver)."""
    from botocore.exceptions import EndpointConnectionError
    from langgraph.checkpoint.dynamodb import DynamoDBSaver
    from langgraph.store.dynamodb import DynamoDBStore

    url = f"http://127.0.0.1:{free_port()}"
    session = boto3.Session(aws_access_key_id="testing", aws_secret_access_key="testing")
    attempts: list[str] = []
    owner: Any
    if kind == "store":
        owner = DynamoDBStore("t", region_name="us-east-1", endpoint_url=url, boto3_session=session)
    else:
        owner = DynamoDBSaver("t", region_name="us-east-1", endpoint_url=url, boto3_session=session)
    owner.client.meta.events.register("before-send.dynamodb", lambda **_: attempts.append("x"))
    with owner, pytest.raises(EndpointConnectionError, match=url):
        if kind == "store":
            owner.get(("a",), "k")
        else:
            owner.get_tuple({"configurable": {"thread_id": "t"}})
    assert len(attempts) == 2


@pytest.mark.parametrize(
    "command",
    [
        ("reindex", "--embed", "lexical"),
        ("ls",),
        ("usage",),
        ("rm", "memories.acme", "k"),
        ("search", "memories", "-q", "proxy", "--embed", "lexical"),
        ("export",),
        ("purge", "memories.acme", "--yes"),
        ("threads", "ls"),
        ("threads", "show", "t1"),
        ("threads", "rm", "t1", "--yes"),
        ("threads", "export"),
    ],
)
def test_every_command_gives_up_after_two_connection_attempts(
    command: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every command's clients (store and saver) stop after two attempts to connect, so a
    closed port is one line at once (in process: counted, not timed)."""
    attempts: list[str] = []
    monkeypatch.setattr(
        botocore.handlers,
        "BUILTIN_HANDLERS",
        [*botocore.handlers.BUILTIN_HANDLERS, ("before-send", lambda **_: attempts.append("x"))],
    )
    url = f"http://127.0.0.1:{free_port()}"
    result = CliRunner().invoke(
        app,
        [*command, "--endpoint-url", url],
        env={"AWS_DEFAULT_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "testing"},
    )
    assert result.exit_code == 3, result.output
    assert result.stderr.count("\n") == 1 and url in result.stderr
    assert len(attempts) == 2
