"""Stream-mode behaviours users would notice, each pinned by a test that fails when it
breaks: filter copies on extra vector rows, stale vectors of a pending item, and records
written for another model."""

from __future__ import annotations

import pytest
from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError
from botocore.exceptions import ClientError
from langgraph.store.dynamodb import DynamoDBStore, ModelMismatchError
from langgraph.store.dynamodb.items.model_pin import identify, repin
from langgraph.store.dynamodb.stream.consumer import StreamConsumer
from langgraph.store.dynamodb.table.values import MAX_ITEM_BYTES
from langgraph.store.dynamodb.testing import expire_ttl_items, mock_aws

from tests.stream.conftest import (
    DIMS,
    NS,
    TABLE,
    StreamSetup,
    stream_setup,
)
from tests.stream.test_consumer import DifferentModel, capture
from tests.support import FakeClock


def test_filtered_semantic_search_sees_extra_vectors_in_stream_mode() -> None:
    with mock_aws():
        setup = stream_setup(fields=["text", "notes[*]"], filter_fields=["kind"])
        store = setup.store
        store.put(NS, "m", {"text": "alpha beta", "notes": ["coffee order"], "kind": "todo"})
        store.put(NS, "n", {"text": "coffee", "kind": "todo"})
        store.put(NS, "x", {"text": "coffee order", "kind": "done"})
        assert setup.drain().ok
        found = store.search(NS, query="coffee order", filter={"kind": "todo"}, limit=1)
        assert [r.key for r in found] == ["m"]  # through its second vector, filtered


def test_a_pending_item_is_not_found_by_its_old_text(streamed: StreamSetup) -> None:
    store = streamed.store
    paths = ["text", "notes[*]"]
    store.put(NS, "p", {"text": "first", "notes": ["walrus ukulele"]}, index=paths)
    store.put(NS, "q", {"text": "something else entirely"})
    assert streamed.drain().ok
    # Pending: the old write's vectors (the extra row of "walrus ukulele" among them) are
    # stale until the consumer embeds the new text.
    store.put(NS, "p", {"text": "second", "notes": ["new words now"]}, index=paths)
    found = store.search(NS, query="walrus ukulele", limit=5)
    assert "p" not in [r.key for r in found]
    assert streamed.drain().ok
    assert [r.key for r in store.search(NS, query="new words now", limit=1)] == ["p"]


def test_a_record_written_for_another_model_fails_instead_of_being_skipped(
    streamed: StreamSetup,
) -> None:
    streamed.store.put(NS, "old", {"text": "written for the first model"})
    records = capture(streamed)
    newer = DifferentModel(DIMS)
    repin(streamed.store.client, TABLE, "memory-vectors", identify(newer, DIMS), ("text",))
    consumer = StreamConsumer(TABLE, client=streamed.store.client, embeddings=newer)
    # Every record of the batch failed: Powertools fails the invocation, Lambda retries it
    # and finally sends it to the DLQ (an alarm), instead of dropping the record as stale.
    with pytest.raises(BatchProcessingError, match="written for another embedding model"):
        consumer.handle({"Records": records}, None)
    assert newer.calls == 0


def test_a_stream_mode_put_with_another_model_is_refused(streamed: StreamSetup) -> None:
    streamed.store.put(NS, "first", {"text": "pinned by the counting model"})
    other = DynamoDBStore(
        TABLE,
        region_name="us-east-1",
        index={
            "dims": DIMS,
            "embed": DifferentModel(DIMS),
            "fields": ["text"],
            "embed_on": "stream",
        },
    )
    with pytest.raises(ModelMismatchError, match="DifferentModel"):
        other.put(NS, "second", {"text": "written for a model the table does not hold"})
    assert streamed.store.get(NS, "second") is None


def test_a_stream_mode_put_the_store_accepts_fits_in_dynamodb(streamed: StreamSetup) -> None:
    """The stream attributes (content hash, pending marker) count too: the largest value
    the store's own size check lets through is one DynamoDB stores (no raw ClientError
    just under the limit)."""
    store = streamed.store
    low, high = 1, MAX_ITEM_BYTES
    while low < high:  # the longest text the store's check accepts
        middle = (low + high + 1) // 2
        try:
            store.put(NS, f"probe-{middle}", {"text": "x" * middle})
            low = middle
        except ValueError:
            high = middle - 1
        except ClientError as error:
            raise AssertionError(f"DynamoDB refused a put the store accepted: {error}") from None
    assert store.get(NS, f"probe-{low}") is not None


def test_a_same_text_reput_updates_the_extra_rows_ttl_and_filters(clock: FakeClock) -> None:
    with mock_aws():
        setup = stream_setup(fields=["text", "notes"], filter_fields=["kind"])
        store, embeddings = setup.store, setup.embeddings
        value = {"text": "alpha", "notes": "walrus ukulele"}
        store.put(NS, "m", {**value, "kind": "todo"}, ttl=10)
        store.put(NS, "n", {"text": "walrus", "kind": "done"})
        assert setup.drain().ok
        calls = embeddings.calls
        store.put(NS, "m", {**value, "kind": "done"}, ttl=60)  # same texts: not re-embedded
        assert setup.drain().ok
        assert embeddings.calls == calls
        clock.advance(15 * 60)  # past the first TTL
        expire_ttl_items(TABLE, now=clock.now())
        [found] = store.search(NS, query="walrus ukulele", filter={"kind": "done"}, limit=1)
        assert found.key == "m" and found.score is not None and found.score > 0.9
