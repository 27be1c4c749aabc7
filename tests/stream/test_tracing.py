"""X-Ray tracing of the consumer (`TRACING`, which the stack sets from `tracing`): on, the
handler and its embedding and write phases reach the X-Ray daemon as subsegments; off,
the X-Ray SDK is never imported.

Each run is a child process set up as Lambda's environment is (the X-Ray SDK chooses its
Lambda context when imported, and patching botocore lasts for the whole process), sending
to a UDP socket this test listens on as the daemon."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

RUN_CONSUMER = """
import json, sys
from langchain_aws import BedrockEmbeddings
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.stream.consumer import consumer_from_env, filter_criteria
from langgraph.store.dynamodb.testing import drain_stream, mock_aws

with mock_aws():
    model = "amazon.titan-embed-text-v2:0"
    embed = BedrockEmbeddings(model_id=model, dimensions=256, region_name="us-east-1")
    index = {"dims": 256, "embed": embed, "fields": ["text"], "embed_on": "stream"}
    store = DynamoDBStore("memory", region_name="us-east-1", index=index)
    store.setup()
    store.put(("memories", "u1"), "m1", {"text": "the proxy closes idle sockets"})
    env = {"TABLE_NAME": "memory", "EMBEDDING_MODEL_ID": model, "EMBEDDING_DIMS": "256"}
    consumer = consumer_from_env({**env, "TRACING": sys.argv[1]})
    report = drain_stream("memory", consumer.handle, filter_patterns=filter_criteria())
    assert report.ok and report.delivered == 1, report
    assert [r.key for r in store.search(("memories",), query="idle sockets")] == ["m1"]
print(json.dumps(any(name.startswith("aws_xray_sdk") for name in sys.modules)))
"""


@pytest.fixture
def daemon() -> Iterator[socket.socket]:
    """A UDP socket standing in for the X-Ray daemon."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    yield sock
    sock.close()


def run_consumer(tracing: str, daemon: socket.socket, tmp_path: Path) -> tuple[bool, list[Any]]:
    """Run a batch through a consumer in a Lambda-like child process: whether it imported
    the X-Ray SDK, and the segment documents the daemon received."""
    host, port = daemon.getsockname()
    env = {
        **os.environ,
        "LAMBDA_TASK_ROOT": str(tmp_path),
        "AWS_LAMBDA_FUNCTION_NAME": "memory-embedder",
        "AWS_REGION": "us-east-1",
        "AWS_DEFAULT_REGION": "us-east-1",
        "_X_AMZN_TRACE_ID": "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1",
        "AWS_XRAY_DAEMON_ADDRESS": f"{host}:{port}",
    }
    result = subprocess.run(
        [sys.executable, "-c", RUN_CONSUMER, tracing],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    imported = json.loads(result.stdout.strip().splitlines()[-1])
    daemon.setblocking(False)
    documents = []
    while True:
        try:
            datagram = daemon.recv(65536)
        except BlockingIOError:
            break
        header, body = datagram.decode().split("\n", 1)
        assert json.loads(header) == {"format": "json", "version": 1}
        documents.append(json.loads(body))
    return imported, documents


def names(documents: list[Any]) -> set[str]:
    found: set[str] = set()
    pending = list(documents)
    while pending:
        document = pending.pop()
        found.add(document["name"])
        pending.extend(document.get("subsegments", []))
    return found


def test_tracing_on_sends_the_handler_and_its_phases(daemon: socket.socket, tmp_path: Path) -> None:
    imported, documents = run_consumer("true", daemon, tmp_path)
    assert imported
    traced = names(documents)
    assert {"## _handle", "## embed", "## write", "dynamodb", "bedrock-runtime"} <= traced
    [handler] = [d for d in documents if d["name"] == "## _handle"]
    assert handler["annotations"]["ColdStart"] is True
    assert handler["annotations"]["Service"] == "memory-embedder"
    phases = [d for d in documents if d["name"] in ("## embed", "## write")]
    assert [d["parent_id"] for d in phases] == [handler["id"]] * 2


def test_tracing_off_never_imports_the_xray_sdk(daemon: socket.socket, tmp_path: Path) -> None:
    imported, documents = run_consumer("false", daemon, tmp_path)
    assert not imported
    assert documents == []
