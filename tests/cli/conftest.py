"""A `serve` subprocess per module, and the CLI invoked against it."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from langgraph.store.dynamodb.cli.app import app
from typer.testing import CliRunner, Result

STARTUP_SECONDS = 60


@dataclass
class Server:
    """A running `serve` subprocess."""

    process: subprocess.Popen[str]
    url: str
    ready: dict[str, Any]

    def env(self) -> dict[str, str]:
        """The environment `serve` tells a user to export."""
        return {
            "AWS_ENDPOINT_URL": self.url,
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
        }

    def stop(self, sig: int = signal.SIGINT) -> tuple[int, dict[str, Any]]:
        """Send `sig`, wait; returns the exit code and the last JSON line printed."""
        self.process.send_signal(sig)
        out, _ = self.process.communicate(timeout=STARTUP_SECONDS)
        lines = [line for line in out.splitlines() if line.startswith("{")]
        return self.process.returncode, json.loads(lines[-1]) if lines else {}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve(*args: str) -> subprocess.Popen[str]:
    """`python -m langgraph.store.dynamodb serve --json ...`, without AWS settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    return subprocess.Popen(
        [sys.executable, "-m", "langgraph.store.dynamodb", "serve", "--json", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def start_server(*args: str) -> Server:
    """`serve --json ...`, once it answers."""
    process = _serve(*args)
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line:
        process.kill()
        _, err = process.communicate()
        raise AssertionError(f"serve exited before it was ready: {err}")
    ready = json.loads(line)
    return Server(process, ready["url"], ready)


def serve_refused(*args: str) -> tuple[int, str]:
    """Run `serve --json ...` expecting it to refuse to start; returns its exit code and
    stderr. Fails if it starts, or if it has not exited within `STARTUP_SECONDS`."""
    process = _serve(*args)
    try:
        out, err = process.communicate(timeout=STARTUP_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        raise AssertionError(f"serve neither started nor exited: {out}{err}") from None
    assert not out.strip(), f"serve started: {out}"
    return process.returncode, err


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    running = start_server("--port", str(free_port()))
    yield running
    code, _ = running.stop(signal.SIGTERM)
    assert code == 0


class Cli:
    """Runs the command line in-process against the server, with the exported env."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.runner = CliRunner()

    def __call__(
        self, *args: str, env: dict[str, str] | None = None, input: str | None = None
    ) -> Result:
        return self.runner.invoke(
            app, list(args), env={**self.server.env(), **(env or {})}, input=input
        )

    def json(self, *args: str) -> Any:
        result = self(*args, "--json")
        assert result.exit_code == 0, result.output + result.stderr
        return json.loads(result.stdout)


@pytest.fixture(scope="module")
def cli(server: Server) -> Cli:
    return Cli(server)
