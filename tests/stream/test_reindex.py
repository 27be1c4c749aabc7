"""reindex: embeds items written before the index (or pending, or of another model),
resumable from a checkpoint in the table, safe under concurrent writes."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from langgraph.store.base import PutOp
from langgraph.store.dynamodb import DynamoDBStore, ModelMismatchError, ReindexProgress, reindex
from langgraph.store.dynamodb.basestore.store import PIN_CHECK_SECONDS
from langgraph.store.dynamodb.stream.consumer import StreamConsumer
from langgraph.store.dynamodb.testing import mock_aws

from tests.stream.conftest import DIMS, TABLE, CountingEmbeddings, make_stream_store
from tests.support import FakeClock


class Interrupted(Exception):
    """Stands for Ctrl-C or a crash in the middle of a run."""


def index_store(embeddings: CountingEmbeddings, **index: Any) -> DynamoDBStore:
    config: dict[str, Any] = {"dims": DIMS, "embed": embeddings, "fields": ["text"], **index}
    store = DynamoDBStore(TABLE, region_name="us-east-1", index=config)  # type: ignore[arg-type]
    store.setup()
    return store


def text(n: int) -> str:
    return f"memory number {n} about topic{n}"


def test_reindex_500_items_interrupted_halfway_then_resumed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with mock_aws():
        kv = DynamoDBStore(TABLE, region_name="us-east-1")
        kv.setup()
        kv.batch(
            PutOp(("tenant", f"user-{n % 10}"), f"k{n:03}", {"text": text(n)}) for n in range(500)
        )
        embeddings = CountingEmbeddings()
        with caplog.at_level("WARNING"):
            store = index_store(embeddings)  # retrofits the index onto the full table
        assert "reindex(store)" in caplog.text
        assert store.search(("tenant",), query=text(7)) == []

        seen: list[ReindexProgress] = []

        def stop_halfway(progress: ReindexProgress) -> None:
            seen.append(progress)
            if progress.scanned >= 250:
                raise Interrupted

        with pytest.raises(Interrupted):
            reindex(store, on_progress=stop_halfway)  # a page is a namespace here
        assert len(embeddings.texts) == 250
        summary = reindex(store)
        assert summary.resumed
        assert (summary.embedded, summary.skipped, summary.failed) == (250, 0, 0)
        counts = Counter(embeddings.texts)
        assert len(counts) == 500 and set(counts.values()) == {1}  # each exactly once
        for user in range(10):
            found = store.search(("tenant", f"user-{user}"), query="memory", limit=100)
            assert len(found) == 50
        top = store.search(("tenant",), query=text(123), limit=1)
        assert [r.key for r in top] == ["k123"]
        # Done: the checkpoint is gone, and a fresh run finds nothing left to do.
        again = reindex(store)
        assert not again.resumed and (again.embedded, again.skipped) == (0, 500)


def test_reindex_reports_progress_and_a_summary() -> None:
    with mock_aws():
        embeddings = CountingEmbeddings()
        store = index_store(embeddings, embed_on="stream")
        for n in range(7):
            store.put(("a",), f"k{n}", {"text": text(n)})
        store.put(("a",), "empty", {"other": "no text field"})
        seen: list[tuple[int, int]] = []
        summary = reindex(
            store,
            page_size=3,
            concurrency=2,
            max_items_per_second=1000,
            on_progress=lambda p: seen.append((p.scanned, p.embedded)),
        )
        assert seen == [(3, 2), (6, 5), (8, 7)]  # "empty" sorts first
        assert (summary.scanned, summary.embedded, summary.skipped, summary.failed) == (8, 7, 1, 0)
        assert len(store.search(("a",), query="memory", limit=10)) == 7


def test_reindex_in_stream_mode_leaves_nothing_for_the_consumer() -> None:
    with mock_aws():
        embeddings = CountingEmbeddings()
        store = make_stream_store(embeddings)
        for n in range(3):
            store.put(("a",), f"k{n}", {"text": text(n)})
        assert reindex(store).embedded == 3
        consumer = StreamConsumer(TABLE, client=store.client, embeddings=embeddings)
        from tests.stream.conftest import StreamSetup

        report = StreamSetup(store, embeddings, consumer).drain()
        assert report.invocations == 1 and report.ok
        assert embeddings.calls == 1  # the consumer found every item already embedded


def test_a_concurrent_put_wins_over_reindex() -> None:
    with mock_aws():
        kv = DynamoDBStore(TABLE, region_name="us-east-1")
        kv.setup()
        kv.put(("a",), "k", {"text": "old text about sockets"})
        embeddings = CountingEmbeddings()
        store = index_store(embeddings)

        def agent_writes_meanwhile(texts: list[str]) -> None:
            if texts == ["old text about sockets"]:
                store.put(("a",), "k", {"text": "new text about email"})

        embeddings.before_call = agent_writes_meanwhile
        summary = reindex(store)
        assert (summary.embedded, summary.skipped) == (0, 1)
        found = store.search(("a",), query="new text about email", limit=1)
        assert [(r.key, r.value["text"]) for r in found] == [("k", "new text about email")]
        assert found[0].score == pytest.approx(1.0, abs=1e-5)


def test_reindex_with_another_model_is_refused_unless_adopted(clock: FakeClock) -> None:
    with mock_aws():
        first = CountingEmbeddings()
        store = index_store(first)
        store.put(("a",), "k", {"text": "alpha"})

        class NewModel(CountingEmbeddings):
            pass

        newer = NewModel()
        moved = DynamoDBStore(
            TABLE,
            region_name="us-east-1",
            index={"dims": DIMS, "embed": newer, "fields": ["text"]},
        )
        with pytest.raises(ModelMismatchError, match="reindex"):
            reindex(moved)
        summary = reindex(moved, adopt_model=True)
        assert summary.embedded == 1 and newer.texts == ["alpha"]
        moved.setup()  # the pin now names the new model
        with pytest.raises(ModelMismatchError):
            store.setup()


def _interrupted_after(store: DynamoDBStore, items: int, **kwargs: Any) -> None:
    def stop(progress: ReindexProgress) -> None:
        if progress.scanned >= items:
            raise Interrupted

    with pytest.raises(Interrupted):
        reindex(store, on_progress=stop, **kwargs)


def test_a_run_interrupted_inside_a_namespace_resumes_inside_it() -> None:
    with mock_aws():
        kv = DynamoDBStore(TABLE, region_name="us-east-1")
        kv.setup()
        kv.batch(
            PutOp(("tenant", f"user-{n % 2}"), f"k{n:03}", {"text": text(n)}) for n in range(60)
        )
        embeddings = CountingEmbeddings()
        store = index_store(embeddings)
        _interrupted_after(store, 10, page_size=10)  # 10 of user-0's 30 items
        summary = reindex(store, page_size=10)
        assert summary.resumed
        assert (summary.embedded, summary.failed) == (50, 0)
        assert sorted(Counter(embeddings.texts).values()) == [1] * 60


def test_adopting_a_model_never_resumes_the_old_models_run(clock: FakeClock) -> None:
    with mock_aws():
        kv = DynamoDBStore(TABLE, region_name="us-east-1")
        kv.setup()
        kv.batch(PutOp(("tenant", "user"), f"k{n:03}", {"text": text(n)}) for n in range(30))
        store = index_store(CountingEmbeddings())
        _interrupted_after(store, 10, page_size=10)

        class NewModel(CountingEmbeddings):
            pass

        newer = NewModel()
        moved = DynamoDBStore(
            TABLE, region_name="us-east-1", index={"dims": DIMS, "embed": newer, "fields": ["text"]}
        )
        summary = reindex(moved, adopt_model=True, page_size=10)
        assert not summary.resumed
        assert summary.embedded == 30 and len(newer.texts) == 30


def test_a_store_still_on_the_old_model_is_refused_once_the_pin_moves(clock: FakeClock) -> None:
    with mock_aws():
        old = index_store(CountingEmbeddings())
        old.put(("a",), "k", {"text": "alpha"})

        class NewModel(CountingEmbeddings):
            pass

        moved = DynamoDBStore(
            TABLE,
            region_name="us-east-1",
            index={"dims": DIMS, "embed": NewModel(), "fields": ["text"]},
        )
        reindex(moved, adopt_model=True)
        clock.advance(PIN_CHECK_SECONDS + 1)  # the old store's pin check is due again
        with pytest.raises(ModelMismatchError, match="NewModel"):
            old.put(("a",), "k2", {"text": "old-model vectors into the new index"})
        assert moved.get(("a",), "k2") is None


def test_a_page_with_failures_never_moves_the_checkpoint_past_them() -> None:
    with mock_aws():
        kv = DynamoDBStore(TABLE, region_name="us-east-1")
        kv.setup()
        kv.batch(PutOp(("tenant", "user"), f"k{n:03}", {"text": text(n)}) for n in range(30))
        kv.put(("tenant", "user"), "k005", {"text": "poison " + text(5)})
        failing = CountingEmbeddings(fail_on="poison")
        store = index_store(failing)
        _interrupted_after(store, 20, page_size=10)  # k005 failed on the first page
        working = CountingEmbeddings()
        healed = DynamoDBStore(
            TABLE,
            region_name="us-east-1",
            index={"dims": DIMS, "embed": working, "fields": ["text"]},
        )
        summary = reindex(healed, page_size=10)
        assert summary.failed == 0
        assert "poison " + text(5) in working.texts  # retried, not skipped as done


def test_extra_rows_written_by_reindex_expire_with_an_item_refreshed_meanwhile(
    clock: FakeClock,
) -> None:
    with mock_aws():
        kv = DynamoDBStore(TABLE, region_name="us-east-1")
        kv.setup()
        ns = ("tenant", "user")
        kv.put(ns, "m", {"text": "alpha", "notes": "walrus ukulele"}, ttl=10)
        embeddings = CountingEmbeddings()
        store = DynamoDBStore(
            TABLE,
            region_name="us-east-1",
            ttl={"refresh_on_read": True},
            index={"dims": DIMS, "embed": embeddings, "fields": ["text", "notes"]},
        )
        store.setup()
        clock.advance(8 * 60)
        # A read refreshes the item's TTL while reindex is embedding it.
        embeddings.before_call = lambda texts: store.get(ns, "m")
        assert reindex(store).embedded == 1
        raw = store.client.query(
            TableName=TABLE,
            KeyConditionExpression="PK = :pk",
            ExpressionAttributeValues={":pk": {"S": "tenant.user"}},
        )["Items"]
        expiries = {row["SK"]["S"].split("#")[0]: row["expires_at"]["N"] for row in raw}
        assert expiries["v"] == expiries["k"], raw  # the extra row expires with its item
