"""The table's stream carries new images only (the consumer never reads an old image), and
tables created with new and old images by earlier versions keep working."""

from __future__ import annotations

import time
from typing import Any

from langgraph.store.dynamodb.items.index_config import parse_index_shape
from langgraph.store.dynamodb.stream.consumer import StreamConsumer
from langgraph.store.dynamodb.table.table_spec import table_spec
from langgraph.store.dynamodb.testing import drain_stream, expire_ttl_items, mock_aws

from tests.stream.conftest import (
    DIMS,
    NS,
    TABLE,
    CountingEmbeddings,
    StreamSetup,
    stream_store,
)
from tests.support import RequestCounter


def every_record() -> list[dict[str, Any]]:
    """Every record of the table's stream so far, unfiltered, without consuming them."""
    seen: list[dict[str, Any]] = []
    drain_stream(TABLE, lambda event, _: seen.extend(event["Records"]), consumer_id="all")
    return seen


def test_the_stream_carries_new_images_only(streamed: StreamSetup) -> None:
    store = streamed.store
    store.put(NS, "a", {"text": "first version"}, ttl=1)
    store.put(NS, "a", {"text": "second version"}, ttl=1)
    store.put(NS, "b", {"text": "deleted by the user"})
    store.delete(NS, "b")
    assert streamed.drain().ok
    expire_ttl_items(TABLE, now=time.time() + 3600)
    records = every_record()
    assert {r["eventName"] for r in records} == {"INSERT", "MODIFY", "REMOVE"}
    for record in records:
        assert record["dynamodb"]["StreamViewType"] == "NEW_IMAGE"
        assert "OldImage" not in record["dynamodb"], record
        assert ("NewImage" in record["dynamodb"]) == (record["eventName"] != "REMOVE")
    assert streamed.drain().ok  # the sweep's deletion is handled from its keys alone
    assert [r.key for r in store.search(NS, query="second version")] == []  # swept


def test_a_table_with_new_and_old_images_is_accepted_and_consumed() -> None:
    """Tables created before the stream carried new images only: `setup()` changes
    nothing, and the consumer embeds from them as before."""
    with mock_aws():
        embeddings = CountingEmbeddings()
        spec = table_spec(parse_index_shape({"dims": DIMS}))
        spec["StreamSpecification"]["StreamViewType"] = "NEW_AND_OLD_IMAGES"
        store = stream_store(embeddings)
        store.client.create_table(TableName=TABLE, **spec)
        requests = RequestCounter(store.client)
        store.setup()
        assert not {"CreateTable", "UpdateTable"} & set(requests.calls)
        description = store.client.describe_table(TableName=TABLE)["Table"]
        assert description["StreamSpecification"]["StreamViewType"] == "NEW_AND_OLD_IMAGES"
        store.put(NS, "a", {"text": "first version"})
        store.put(NS, "a", {"text": "second version"})
        consumer = StreamConsumer(TABLE, client=store.client, embeddings=embeddings)
        assert any("OldImage" in r["dynamodb"] for r in every_record())
        assert StreamSetup(store, embeddings, consumer).drain().ok
        assert [r.key for r in store.search(NS, query="second version")] == ["a"]
