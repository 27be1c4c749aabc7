"""Failures surface as exceptions: never an empty answer standing in for an error."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from botocore.awsrequest import AWSResponse
from botocore.config import Config
from botocore.exceptions import ClientError
from botocore.retries.standard import ExponentialBackoff
from langgraph.store.dynamodb import AccessDeniedError, DynamoDBStore
from langgraph.store.dynamodb.testing import LexicalEmbeddings


class _Raw:
    def __init__(self, body: bytes) -> None:
        self._body = body

    def stream(self, **_: Any) -> Any:
        yield self._body


def _fail_every_call(
    store: DynamoDBStore, code: str, status: int, only: str | None = None
) -> list[str]:
    """Make DynamoDB answer every HTTP request (or every `only` request) with `code` (the
    wire response the service sends when throttling or denying), so botocore's retry logic
    runs as in production; returns the operations of the requests failed. A failed request
    never reaches the emulator: botocore offers it to every `before-send` handler, moto's
    too, so it is pointed at an address moto does not serve."""
    attempts: list[str] = []

    def answer(request: Any, **_: Any) -> AWSResponse | None:
        operation = request.headers.get("X-Amz-Target", b"").decode().split(".")[-1]
        if only is not None and operation != only:
            return None
        attempts.append(operation)
        request.url = "https://fault-injected.invalid/"
        body = json.dumps({"__type": f"com.amazonaws.dynamodb.v20120810#{code}", "message": code})
        headers = {"Content-Type": "application/x-amz-json-1.0"}
        return AWSResponse(request.url, status, headers, _Raw(body.encode()))

    store.client.meta.events.register_first("before-send.dynamodb", answer)
    return attempts


# Requests each read sends at once: search without a query reads the registry and the
# prefix's own namespace concurrently.
FIRST_REQUESTS = {"search": 2}

# The operation each read fails in: a semantic search must fail in SearchVectors itself
# (its registry lookup succeeds), not earlier.
FAILING = {"semantic search": "SearchVectors"}

READS: dict[str, Callable[[DynamoDBStore], Any]] = {
    "get": lambda s: s.get(("a",), "k"),
    "search": lambda s: s.search(("a",)),
    "list_namespaces": lambda s: s.list_namespaces(),
    "semantic search": lambda s: s.search(("a",), query="x"),
}


@pytest.mark.parametrize("read", READS)
def test_throttling_after_retries_raises(
    kv_store: DynamoDBStore, read: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # botocore still decides and counts every retry; only its jittered wait (seconds of
    # real sleep per test) is set to zero.
    monkeypatch.setattr(ExponentialBackoff, "delay_amount", lambda self, context: 0)
    store = DynamoDBStore(
        "memory",
        region_name="us-east-1",
        boto_config=Config(retries={"mode": "standard", "max_attempts": 3}),
        index={"dims": 8, "embed": LexicalEmbeddings(dims=8)},
    )
    kv_store.put(("a",), "k", {"v": 1})
    attempts = _fail_every_call(
        store, "ProvisionedThroughputExceededException", 400, FAILING.get(read)
    )
    with pytest.raises(ClientError, match="ProvisionedThroughputExceededException"):
        READS[read](store)
    # Each request was sent once and retried the configured 3 times, then the error surfaced.
    assert len(attempts) == (1 + 3) * FIRST_REQUESTS.get(read, 1)
    if read in FAILING:
        assert set(attempts) == {FAILING[read]}


@pytest.mark.parametrize("read", READS)
def test_access_denied_raises_at_once(kv_store: DynamoDBStore, read: str) -> None:
    store = DynamoDBStore(
        "memory",
        region_name="us-east-1",
        index={"dims": 8, "embed": LexicalEmbeddings(dims=8)},
    )
    kv_store.put(("a",), "k", {"v": 1})
    attempts = _fail_every_call(store, "AccessDeniedException", 400, FAILING.get(read))
    with pytest.raises(AccessDeniedError, match="on the store's table 'memory'") as denied:
        READS[read](store)
    assert isinstance(denied.value.__cause__, ClientError)
    assert len(attempts) == FIRST_REQUESTS.get(read, 1)  # each sent once, never retried
    if read in FAILING:
        assert attempts == [FAILING[read]]


def test_write_failures_raise(kv_store: DynamoDBStore) -> None:
    _fail_every_call(kv_store, "AccessDeniedException", 400)
    with pytest.raises(AccessDeniedError, match="AWS denied UpdateItem"):
        kv_store.put(("a",), "k", {"v": 1})
    # Nothing was written: another client sees no item and no namespace.
    other = DynamoDBStore("memory", region_name="us-east-1")
    assert other.get(("a",), "k") is None
    assert other.list_namespaces() == []
