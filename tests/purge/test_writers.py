"""What a purge guarantees to writers running at the same time (docs/architecture.md,
"Purge"): rows that existed when it started are gone; a row written meanwhile may
survive, and then the verification reports it, its namespace stays listed and a rerun
deletes it. In stream mode the consumer never writes a vector for a purged item."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.stream.consumer import FILTER_PATTERNS, StreamConsumer
from langgraph.store.dynamodb.testing import LexicalEmbeddings, drain_stream, mock_aws

from tests.fault.layer import FaultLayer

from .tenants import DIMS, NEIGHBOURS, TABLE, TENANT, fill, make_store, outside, rows, under

USER = (*TENANT, "user-0")


@pytest.fixture
def emulated() -> Iterator[None]:
    with mock_aws():
        yield


def once(operation: str, action: Any) -> Any:
    """A fault-layer selector that runs `action` when the client is about to send its
    first `operation` request, then lets every request through."""
    done: list[bool] = []

    def select(name: str, _: dict[str, Any]) -> bool:
        if name == operation and not done:
            done.append(True)
            action()
        return False

    return select


def test_a_row_written_during_a_purge_is_reported_listed_and_purged_by_a_rerun(
    emulated: None,
) -> None:
    writer = make_store()
    writer.setup()
    fill(writer, TENANT)
    fill(writer, NEIGHBOURS[0])
    before = rows(writer)
    purger = make_store()
    # The purge has read every partition and is about to delete: a put lands behind it.
    late = once("BatchWriteItem", lambda: writer.put(USER, "late", {"text": "written late"}))
    FaultLayer(purger.client, rate=0.0, when=late)
    result = purger.purge(TENANT)
    assert result.verification.rows["items"] == 1
    assert result.verification.rows["vector_rows"] == 0  # one embedded field
    assert result.verification.rows["registry_rows"] == 1  # kept: the namespace holds a row
    assert result.rows_left == result.verification.total == 3  # and its group row
    assert writer.list_namespaces(prefix=TENANT) == [USER]
    assert writer.get(USER, "late") is not None
    again = purger.purge(TENANT)
    assert again.resumed and again.rows_left == 0
    assert rows(writer) == outside(before, TENANT)


def stream_store() -> DynamoDBStore:
    return make_store(index={"embed_on": "stream"})


def consumer(client: Any = None) -> StreamConsumer:
    """The stream consumer (with a client of its own by default)."""
    client = client or boto3.client("dynamodb", region_name="us-east-1")
    return StreamConsumer(TABLE, client=client, embeddings=LexicalEmbeddings(dims=DIMS))


def drain(embedder: StreamConsumer) -> None:
    report = drain_stream(TABLE, embedder.handle, filter_patterns=FILTER_PATTERNS)
    assert report.ok, report


def test_items_purged_before_the_consumer_runs_get_no_vector(emulated: None) -> None:
    store = stream_store()
    store.setup()
    fill(store, TENANT)
    fill(store, NEIGHBOURS[0])
    assert store.purge(TENANT).rows_left == 0
    drain(consumer())
    assert under(rows(store), TENANT) == []
    assert store.search(NEIGHBOURS[0], query="memory", limit=1)  # the neighbour was embedded


@pytest.mark.parametrize("operation", ["BatchWriteItem", "UpdateItem"])
def test_a_purge_between_the_consumers_read_and_its_write_wins(
    emulated: None, operation: str
) -> None:
    """The consumer read the item (pending), then the purge ran, then the consumer writes
    the extra vector rows (BatchWriteItem) or vector 0 (UpdateItem): its write must be
    conditional on the item being unchanged, so nothing comes back."""
    store = stream_store()
    store.setup()
    store.put(USER, "two-vectors", {"text": "about sockets", "topic": "proxies"})
    before = rows(store)
    client = boto3.client("dynamodb", region_name="us-east-1")
    FaultLayer(client, rate=0.0, when=once(operation, lambda: store.purge(TENANT)))
    drain(consumer(client))
    assert under(rows(store), TENANT) == []
    assert rows(store) == outside(before, TENANT)
