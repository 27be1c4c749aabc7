"""setup() on backends without vector indexes fails fast; long waits say what they wait for."""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap

import pytest
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.testing import LexicalEmbeddings, mock_aws

PLAIN_MOTO = textwrap.dedent(
    """
    import time
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from moto import mock_aws
    from langgraph.store.dynamodb import DynamoDBStore, VectorIndexUnsupportedError

    with mock_aws():
        store = DynamoDBStore("memory", region_name="us-east-1",
                              index={"dims": 8, "embed": DeterministicFakeEmbedding(size=8)})
        started = time.monotonic()
        try:
            store.setup()
        except VectorIndexUnsupportedError as error:
            print(f"{time.monotonic() - started:.1f}")
            print(error)
        else:
            print("setup() returned")
    """
)


def test_plain_moto_fails_within_seconds_and_names_the_fix() -> None:
    # A separate process: plain moto, without this package's emulation patches loaded.
    done = subprocess.run(
        [sys.executable, "-c", PLAIN_MOTO],
        capture_output=True,
        text=True,
        timeout=120,
        env={"AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x", "PATH": ""},
    )
    assert done.returncode == 0, done.stderr
    elapsed, message = done.stdout.split("\n", 1)
    assert float(elapsed) < 10
    assert "does not support DynamoDB vector indexes" in message
    assert "langgraph.store.dynamodb.testing.mock_aws" in message
    assert "local_endpoint()" in message


@pytest.mark.parametrize(
    ("knobs", "phase"),
    [
        ({"index_creation_delay": 0.6}, "creating"),
        ({"search_lag": 0.6}, "waiting for search"),
    ],
)
def test_waits_log_elapsed_time_and_phase(
    caplog: pytest.LogCaptureFixture, knobs: dict[str, float], phase: str
) -> None:
    with mock_aws(**knobs), caplog.at_level(logging.INFO, logger="langgraph.store.dynamodb"):
        DynamoDBStore(
            "memory", region_name="us-east-1", index={"dims": 8, "embed": LexicalEmbeddings(dims=8)}
        ).setup()
    waits = [r.getMessage() for r in caplog.records if r.getMessage().startswith("setup(): ")]
    assert f"setup(): 0s elapsed, waiting for vector index memory-vectors: {phase}" in waits


def test_backfill_is_a_phase_of_its_own(caplog: pytest.LogCaptureFixture) -> None:
    with mock_aws(backfill_delay=0.6), caplog.at_level(logging.INFO, "langgraph.store.dynamodb"):
        kv = DynamoDBStore("memory", region_name="us-east-1")
        kv.setup()
        kv.put(("a",), "k", {"text": "x"})
        DynamoDBStore(
            "memory", region_name="us-east-1", index={"dims": 8, "embed": LexicalEmbeddings(dims=8)}
        ).setup()
    assert any(r.getMessage().endswith(": backfilling") for r in caplog.records)
