"""embed_on="stream": put marks items pending, the consumer embeds them (end to end)."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from langgraph.store.dynamodb import DynamoDBStore, NamespaceFullError
from langgraph.store.dynamodb.embedders.batch import BatchEmbedder
from langgraph.store.dynamodb.items.embedding import batch_size_for
from langgraph.store.dynamodb.items.rows import key_of
from langgraph.store.dynamodb.stream.consumer import FILTER_PATTERN, StreamConsumer
from langgraph.store.dynamodb.table.errors import InvalidSettingError
from langgraph.store.dynamodb.table.schema import PENDING, VECTOR
from langgraph.store.dynamodb.testing import LambdaContext, drain_stream, mock_aws

from tests.stream.conftest import (
    DIMS,
    NS,
    TABLE,
    CountingEmbeddings,
    StreamSetup,
    make_stream_store,
)

TEXT = "proxy closes idle sockets after 60 seconds"


def raw(store: DynamoDBStore, key: str) -> dict[str, Any]:
    """The stored row of an item, as DynamoDB returns it."""
    item: dict[str, Any] = store.client.get_item(
        TableName=TABLE, Key={k: {"S": v} for k, v in key_of(NS, key).items()}
    )["Item"]
    return item


def stored_vector(store: DynamoDBStore, key: str) -> list[float] | None:
    vector = raw(store, key).get(VECTOR)
    return None if vector is None else [float(x["N"]) for x in vector["L"]]


def capture(stream: StreamSetup) -> list[dict[str, Any]]:
    """The records a filtered event source would deliver, without consuming them."""
    seen: list[dict[str, Any]] = []
    drain_stream(
        TABLE,
        lambda event, _: seen.extend(event["Records"]),
        filter_patterns=[FILTER_PATTERN],
        consumer_id="capture",
    )
    return seen


def test_put_then_drain_makes_the_item_searchable(streamed: StreamSetup) -> None:
    store = streamed.store
    store.put(NS, "mem-1", {"text": TEXT})
    assert streamed.embeddings.texts == []  # put embeds nothing
    assert PENDING in raw(store, "mem-1")
    assert store.search(NS, query="idle sockets") == []  # not embedded yet
    report = streamed.drain()
    assert report.ok and report.delivered == 1
    found = store.search(NS, query="idle sockets")
    assert [item.key for item in found] == ["mem-1"]
    assert found[0].value == {"text": TEXT}
    assert streamed.embeddings.texts == [TEXT]
    assert PENDING not in raw(store, "mem-1")
    # The consumer's own write does not invoke it again.
    assert streamed.drain().invocations == 0


def test_put_is_one_update_item_without_embedding(streamed: StreamSetup) -> None:
    calls: list[str] = []
    streamed.store.client.meta.events.register(
        "before-call.dynamodb", lambda model, **_: calls.append(model.name)
    )
    streamed.store.put(NS, "warm", {"text": "registers the namespace"})
    calls.clear()
    streamed.store.put(NS, "mem-1", {"text": TEXT})
    assert calls == ["UpdateItem"]
    assert streamed.embeddings.calls == 0


def test_identical_reput_and_metadata_change_never_reembed(streamed: StreamSetup) -> None:
    store = streamed.store
    store.put(NS, "mem-1", {"text": TEXT, "source": "ticket-1"})
    streamed.drain()
    assert streamed.embeddings.calls == 1
    store.put(NS, "mem-1", {"text": TEXT, "source": "ticket-1"})  # identical
    store.put(NS, "mem-1", {"text": TEXT, "source": "ticket-2"})  # outside the fields
    report = streamed.drain()
    assert report.invocations == 0 and report.filtered_out == 2
    assert streamed.embeddings.calls == 1
    found = store.search(NS, query="idle sockets")
    assert [(item.key, item.value["source"]) for item in found] == [("mem-1", "ticket-2")]


def test_ttl_refresh_makes_no_embedding_call() -> None:
    with mock_aws():
        embeddings = CountingEmbeddings()
        store = make_stream_store(embeddings)
        store.ttl_config = {"refresh_on_read": True, "default_ttl": 10.0}
        consumer = StreamConsumer(TABLE, client=store.client, embeddings=embeddings)
        store.put(NS, "mem-1", {"text": TEXT}, ttl=10.0)
        drain_stream(TABLE, consumer.handle, filter_patterns=[FILTER_PATTERN])
        assert embeddings.calls == 1
        # Age the item past the refresh threshold, then read it.
        expires = int(raw(store, "mem-1")["expires_at"]["N"])
        store.client.update_item(
            TableName=TABLE,
            Key={k: {"S": v} for k, v in key_of(NS, "mem-1").items()},
            UpdateExpression="SET expires_at = :e",
            ExpressionAttributeValues={":e": {"N": str(expires - 300)}},
        )
        drain_stream(TABLE, consumer.handle, filter_patterns=[FILTER_PATTERN])
        store.get(NS, "mem-1")
        assert int(raw(store, "mem-1")["expires_at"]["N"]) > expires - 300  # refreshed
        report = drain_stream(TABLE, consumer.handle, filter_patterns=[FILTER_PATTERN])
        assert report.invocations == 0 and report.filtered_out == 1
        assert embeddings.calls == 1


def test_race_v1_vector_never_lands_on_v2_text(streamed: StreamSetup) -> None:
    store = streamed.store
    store.put(NS, "mem-1", {"text": "version one about sockets"})

    def put_v2_while_v1_embeds(texts: list[str]) -> None:
        if texts == ["version one about sockets"]:
            store.put(NS, "mem-1", {"text": "version two about email"})

    streamed.embeddings.before_call = put_v2_while_v1_embeds
    first = streamed.drain(max_invocations=1)
    assert first.delivered == 1
    row = raw(store, "mem-1")
    assert VECTOR not in row and PENDING in row  # v1's vector was dropped, v2 waits
    streamed.drain()
    lexical = CountingEmbeddings()
    assert stored_vector(store, "mem-1") == pytest.approx(
        lexical.embed_query("version two about email"), abs=1e-6
    )
    found = store.search(NS, query="version two about email", limit=1)
    assert [(r.key, r.value["text"]) for r in found] == [("mem-1", "version two about email")]
    assert streamed.embeddings.texts == ["version one about sockets", "version two about email"]


def test_duplicated_replayed_and_reordered_batches(streamed: StreamSetup) -> None:
    store = streamed.store
    store.put(NS, "a", {"text": "alpha about sockets"})
    store.put(NS, "b", {"text": "bravo about email"})
    store.put(NS, "a", {"text": "alpha two about printers"})
    records = capture(streamed)
    assert len(records) == 3
    # One batch holding every record twice, in a shuffled order.
    shuffled = records + records
    random.Random(7).shuffle(shuffled)
    response = streamed.consumer.handle({"Records": shuffled}, LambdaContext())
    assert response == {"batchItemFailures": []}
    assert sorted(streamed.embeddings.texts) == ["alpha two about printers", "bravo about email"]
    # Replays (the old "a" record alone, then everything again) embed nothing.
    for replay in ([records[0]], records, list(reversed(records))):
        assert streamed.consumer.handle({"Records": replay}, None) == {"batchItemFailures": []}
    assert streamed.embeddings.calls == 1  # one batched call for both items
    assert stored_vector(store, "a") == pytest.approx(
        CountingEmbeddings().embed_query("alpha two about printers"), abs=1e-6
    )
    # And the regular delivery afterwards changes nothing either.
    assert streamed.drain().ok
    assert streamed.embeddings.calls == 1
    assert [r.key for r in store.search(NS, query="printers", limit=1)] == ["a"]


def test_a_poison_record_fails_alone() -> None:
    with mock_aws():
        embeddings = CountingEmbeddings(fail_on="POISON")
        store = make_stream_store(embeddings)
        consumer = StreamConsumer(TABLE, client=store.client, embeddings=embeddings)
        for key, text in [("a", "alpha"), ("p", "POISON pill"), ("c", "charlie")]:
            store.put(NS, key, {"text": text})
        records: list[dict[str, Any]] = []
        drain_stream(
            TABLE,
            lambda e, _: records.extend(e["Records"]),
            filter_patterns=[FILTER_PATTERN],
            consumer_id="peek",
        )
        poison = records[1]["dynamodb"]["SequenceNumber"]
        response = consumer.handle({"Records": records}, None)
        assert response == {"batchItemFailures": [{"itemIdentifier": poison}]}
        report = drain_stream(
            TABLE, consumer.handle, filter_patterns=[FILTER_PATTERN], max_retries=2
        )
        assert report.failed and report.failed[0]["dynamodb"]["SequenceNumber"] == poison
        assert report.retries == 2
        for key, text in [("a", "alpha"), ("c", "charlie")]:
            assert [r.key for r in store.search(NS, query=text, limit=1)] == [key]
        assert PENDING in raw(store, "p")


def test_deleted_item_is_never_resurrected(streamed: StreamSetup) -> None:
    store = streamed.store
    store.put(NS, "gone", {"text": "to be deleted"})
    records = capture(streamed)
    store.delete(NS, "gone")
    assert streamed.consumer.handle({"Records": records}, None) == {"batchItemFailures": []}
    assert store.get(NS, "gone") is None
    assert streamed.embeddings.calls == 0


def test_multi_path_items_get_extra_vector_rows(streamed: StreamSetup) -> None:
    store = streamed.store
    value = {"text": "main text", "notes": ["printer jam", "coffee order"]}
    store.put(NS, "m", value, index=["text", "notes[*]"])
    streamed.drain()
    assert [r.key for r in store.search(NS, query="coffee order", limit=1)] == ["m"]
    store.put(NS, "m", {"text": "main text", "notes": ["printer jam"]}, index=["text", "notes[*]"])
    assert streamed.drain().ok
    rows = store.client.query(
        TableName=TABLE,
        KeyConditionExpression="PK = :pk AND begins_with(SK, :v)",
        ExpressionAttributeValues={":pk": {"S": key_of(NS, "m")["PK"]}, ":v": {"S": "v#"}},
    )["Items"]
    # one row: the new write's vector 1; the old write's rows are gone
    assert [row["SK"]["S"].rsplit("#", 1)[1] for row in rows] == ["1"]
    found = store.search(NS, query="printer jam", limit=1)
    assert [r.key for r in found] == ["m"]


def test_consumer_with_another_model_is_refused(streamed: StreamSetup) -> None:
    streamed.store.put(NS, "a", {"text": "alpha"})
    other = StreamConsumer(TABLE, client=streamed.store.client, embeddings=DifferentModel(DIMS))
    with pytest.raises(ValueError, match=r"DifferentModel.*reindex") as error:
        other.handle({"Records": capture(streamed)}, None)
    assert "CountingEmbeddings" in str(error.value)


class DifferentModel(CountingEmbeddings):
    """Another embedding model (its vectors are not comparable with the pinned one's)."""


def test_a_pending_item_is_not_refreshed_so_a_read_never_asks_for_embedding() -> None:
    with mock_aws():
        embeddings = CountingEmbeddings()
        store = make_stream_store(embeddings)
        store.ttl_config = {"refresh_on_read": True}
        consumer = StreamConsumer(TABLE, client=store.client, embeddings=embeddings)
        store.put(NS, "mem-1", {"text": TEXT}, ttl=10.0)
        aged = int(raw(store, "mem-1")["expires_at"]["N"]) - 300
        store.client.update_item(
            TableName=TABLE,
            Key={k: {"S": v} for k, v in key_of(NS, "mem-1").items()},
            UpdateExpression="SET expires_at = :e",
            ExpressionAttributeValues={":e": {"N": str(aged)}},
        )
        assert store.get(NS, "mem-1") is not None
        assert int(raw(store, "mem-1")["expires_at"]["N"]) == aged  # left alone while pending
        report = drain_stream(TABLE, consumer.handle, filter_patterns=[FILTER_PATTERN])
        assert report.delivered == 2 and embeddings.calls == 1  # the put, then the aging
        assert report.invocations == 1


def test_throttling_is_retried_with_backoff(streamed: StreamSetup) -> None:
    from botocore.exceptions import ClientError

    throttles = [2]

    def throttle_twice(texts: list[str]) -> None:
        if throttles[0] > 0:
            throttles[0] -= 1
            raise ClientError(
                {"Error": {"Code": "ThrottlingException", "Message": "Rate exceeded"}},
                "InvokeModel",
            )

    streamed.embeddings.before_call = throttle_twice
    streamed.store.put(NS, "mem-1", {"text": TEXT})
    report = streamed.drain()
    assert report.ok and report.retries == 0  # retried inside the invocation
    assert throttles == [0] and streamed.embeddings.texts == [TEXT]


@pytest.mark.parametrize(
    ("model", "dims", "calls"),
    [
        ("cohere.embed-english-v3", 1024, 1),
        ("amazon.titan-embed-text-v2:0", 256, 5),
        # An ARN names no provider: the consumer tells BedrockEmbeddings it is Cohere.
        ("arn:aws:bedrock:us-east-1::foundation-model/cohere.embed-english-v3", 1024, 1),
        ("arn:aws:bedrock:us-east-1::foundation-model/amazon.titan-embed-text-v2:0", 256, 5),
    ],
)
def test_bedrock_batch_api_where_the_model_has_one(model: str, dims: int, calls: int) -> None:
    from langgraph.store.dynamodb.embedders.build import bedrock_embeddings

    with mock_aws():
        embed = bedrock_embeddings(model, dims, False, region_name="us-east-1")
        store = DynamoDBStore(
            TABLE,
            region_name="us-east-1",
            index={"dims": dims, "embed": embed, "fields": ["text"], "embed_on": "stream"},
        )
        store.setup()
        for n in range(5):
            store.put(NS, f"k{n}", {"text": f"memory number {n}"})
        consumer = StreamConsumer(TABLE, client=store.client)  # the pinned Bedrock model
        invoked: list[str] = []
        embeddings, _ = consumer.ready()
        embeddings.client.meta.events.register(  # type: ignore[attr-defined]
            "before-call.bedrock-runtime", lambda model, **_: invoked.append(model.name)
        )
        assert drain_stream(TABLE, consumer.handle, filter_patterns=[FILTER_PATTERN]).ok
        assert len(invoked) == calls
        assert [r.key for r in store.search(NS, query="memory number 3", limit=1)] == ["k3"]


def test_a_namespace_the_vectors_fill_fails_its_record_with_namespace_full() -> None:
    """The consumer's vector rows can be what pushes a namespace past DynamoDB's 10 GB
    item-collection limit: the record fails (Lambda retries, then the DLQ) with the same
    `NamespaceFullError` a put raises, naming the namespace, not a raw ClientError."""
    with mock_aws(item_collection_size_limit=3_000):
        embeddings = CountingEmbeddings()
        store = make_stream_store(embeddings)
        consumer = StreamConsumer(TABLE, client=store.client, embeddings=embeddings)
        notes = [f"note number {i}" for i in range(6)]
        store.put(NS, "m", {"text": "main", "notes": notes}, index=["text", "notes[*]"])
        records = capture(StreamSetup(store, embeddings, consumer))
        _, model = consumer.ready()
        embedder = BatchEmbedder(embeddings, dims=model.dims, batch_size=batch_size_for(model))
        outcomes = consumer.process(records, embedder)
        [outcome] = outcomes.values()
        assert isinstance(outcome, NamespaceFullError), outcome
        assert str(NS) in str(outcome)
        assert PENDING in raw(store, "m")  # still waiting for its vectors


@pytest.mark.parametrize(
    ("model", "dims", "refused"),
    [
        ("anthropic.claude-3-haiku-20240307-v1:0", 1024, "model_id must name a Bedrock text"),
        ("amazon.titan-embed-text-v2:0", 300, "dims must be what amazon.titan-embed-text-v2:0"),
    ],
)
def test_bedrock_embeddings_refuses_what_the_consumer_cannot_call(
    model: str, dims: int, refused: str
) -> None:
    from langgraph.store.dynamodb.embedders.build import bedrock_embeddings

    with pytest.raises(InvalidSettingError, match=re.escape(refused)):
        bedrock_embeddings(model, dims, False, region_name="us-east-1")
