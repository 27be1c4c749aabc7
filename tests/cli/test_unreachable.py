"""An endpoint nobody listens on is reported at once, in one line that names it and the
fix, instead of after botocore's ten adaptive retries (13-16 s)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.cli.conftest import free_port

# A regression to the library's retries takes 13-16 s; the CLI itself answers in about
# 2 s plus its start-up, so this bound only guards against the regression.
GUARD_SECONDS = 10


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
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(
        AWS_DEFAULT_REGION="us-east-1", AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing"
    )
    done = subprocess.run(
        [sys.executable, "-m", "langgraph.store.dynamodb", *command, "--endpoint-url", url],
        capture_output=True,
        text=True,
        env=env,
        timeout=GUARD_SECONDS,
    )
    assert done.returncode == 3, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert url in lines[0]
    assert "dynamodb-memory serve" in lines[0] and "--endpoint-url" in lines[0]
