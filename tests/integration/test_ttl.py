"""TTL: per-item and default TTL, sliding refresh by the item's own TTL, omit_expired."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langgraph.store.base import PutOp
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.table.schema import EXPIRES_AT, TTL_MINUTES
from langgraph.store.dynamodb.testing import LexicalEmbeddings, expire_ttl_items, mock_aws

from tests.support import FakeClock, RequestCounter


@pytest.fixture
def ttl_store() -> Iterator[DynamoDBStore]:
    with mock_aws():
        store = DynamoDBStore(
            "memory",
            region_name="us-east-1",
            ttl={"default_ttl": 10.0, "refresh_on_read": True, "omit_expired": True},
        )
        store.setup()
        yield store


def _raw(store: DynamoDBStore, ns: tuple[str, ...], key: str) -> dict[str, Any]:
    response = store.client.get_item(
        TableName=store.table_name,
        Key={"PK": {"S": ".".join(ns)}, "SK": {"S": "k#" + key}},
        ConsistentRead=True,
    )
    return dict(response["Item"])


def test_table_ttl_is_enabled_on_expires_at(ttl_store: DynamoDBStore) -> None:
    ttl = ttl_store.client.describe_time_to_live(TableName="memory")["TimeToLiveDescription"]
    assert ttl["TimeToLiveStatus"] == "ENABLED" and ttl["AttributeName"] == EXPIRES_AT


def test_default_and_per_item_ttl_are_stored(ttl_store: DynamoDBStore, clock: FakeClock) -> None:
    ttl_store.put(("a",), "default", {"v": 1})
    ttl_store.put(("a",), "own", {"v": 1}, ttl=2.0)
    ttl_store.put(("a",), "forever", {"v": 1}, ttl=None)
    default, own = _raw(ttl_store, ("a",), "default"), _raw(ttl_store, ("a",), "own")
    assert float(default[TTL_MINUTES]["N"]) == 10.0
    assert int(default[EXPIRES_AT]["N"]) == clock.now() + 600
    assert float(own[TTL_MINUTES]["N"]) == 2.0
    assert int(own[EXPIRES_AT]["N"]) == clock.now() + 120
    assert EXPIRES_AT not in _raw(ttl_store, ("a",), "forever")


def test_put_without_ttl_clears_an_old_expiry(ttl_store: DynamoDBStore) -> None:
    ttl_store.put(("a",), "k", {"v": 1}, ttl=1.0)
    ttl_store.put(("a",), "k", {"v": 2}, ttl=None)
    raw = _raw(ttl_store, ("a",), "k")
    assert EXPIRES_AT not in raw and TTL_MINUTES not in raw


def test_expired_items_are_hidden_before_the_sweep(
    ttl_store: DynamoDBStore, clock: FakeClock
) -> None:
    ttl_store.put(("gone",), "k", {"v": 1}, ttl=1.0)
    ttl_store.put(("mixed",), "short", {"v": 1}, ttl=1.0)
    ttl_store.put(("mixed",), "long", {"v": 2})
    clock.advance(59)
    assert ttl_store.get(("gone",), "k", refresh_ttl=False) is not None
    assert ttl_store.list_namespaces() == [("gone",), ("mixed",)]
    clock.advance(1)  # the expiry second itself: expired
    assert ttl_store.get(("gone",), "k") is None
    assert ttl_store.search(("gone",)) == []
    assert [r.key for r in ttl_store.search(())] == ["long"]
    assert ttl_store.list_namespaces() == [("mixed",)]
    # Still in the table until DynamoDB's sweep deletes it.
    assert _raw(ttl_store, ("gone",), "k")


def test_refresh_slides_by_the_items_own_ttl_without_a_write_per_read(
    ttl_store: DynamoDBStore, clock: FakeClock
) -> None:
    requests = RequestCounter(ttl_store.client)
    written = clock.now()
    ttl_store.put(("a",), "k", {"v": 1}, ttl=2.0)  # 120 s; a tenth of it is 12 s
    assert int(_raw(ttl_store, ("a",), "k")[EXPIRES_AT]["N"]) == written + 120
    clock.advance(11)
    requests.reset()
    assert ttl_store.get(("a",), "k") is not None
    assert requests.calls["UpdateItem"] == 0  # under a tenth of the TTL elapsed: no write
    clock.advance(1)
    assert ttl_store.get(("a",), "k") is not None
    assert requests.calls["UpdateItem"] == 1
    # Slid by its own 2-minute TTL, not the store's 10-minute default.
    assert int(_raw(ttl_store, ("a",), "k")[EXPIRES_AT]["N"]) == written + 12 + 120
    clock.advance(12)
    assert [r.key for r in ttl_store.search(("a",))] == ["k"]  # search refreshes too
    assert int(_raw(ttl_store, ("a",), "k")[EXPIRES_AT]["N"]) == written + 24 + 120


def test_refresh_can_be_turned_off_per_read(ttl_store: DynamoDBStore, clock: FakeClock) -> None:
    ttl_store.put(("a",), "k", {"v": 1}, ttl=2.0)
    first = _raw(ttl_store, ("a",), "k")[EXPIRES_AT]
    clock.advance(60)
    assert ttl_store.get(("a",), "k", refresh_ttl=False) is not None
    assert [r.key for r in ttl_store.search(("a",), refresh_ttl=False)] == ["k"]
    assert _raw(ttl_store, ("a",), "k")[EXPIRES_AT] == first


def test_expired_items_are_absent_from_semantic_search(clock: FakeClock) -> None:
    with mock_aws():
        store = DynamoDBStore(
            "memory",
            region_name="us-east-1",
            ttl={"omit_expired": True},
            index={"dims": 16, "embed": LexicalEmbeddings(dims=16), "fields": ["text"]},
        )
        store.setup()
        store.put(("m",), "short", {"text": "blue whale song"}, ttl=1.0)
        store.put(("m",), "long", {"text": "blue whale"}, ttl=5.0)
        store.put(("m",), "forever", {"text": "whale"})
        clock.advance(59)
        visible = store.search(("m",), query="blue whale song", refresh_ttl=False)
        assert [r.key for r in visible] == ["short", "long", "forever"]
        clock.advance(1)
        found = store.search(("m",), query="blue whale song")
        assert [r.key for r in found] == ["long", "forever"]
        assert [r.key for r in store.search((), query="blue whale song", limit=1)] == ["long"]


def test_a_namespace_whose_first_rows_expired_stays_listed_for_its_live_item(
    clock: FakeClock,
) -> None:
    with mock_aws():
        store = DynamoDBStore("memory", region_name="us-east-1")
        store.setup()
        ns = ("memories", "u1")
        store.batch(PutOp(ns, f"a{n:03}", {"n": n}, ttl=1) for n in range(150))
        store.put(ns, "z-live", {"n": "live"})  # sorts after every expired key
        clock.advance(5 * 60)
        assert store.list_namespaces(prefix=("memories",)) == [ns]
        store.delete(ns, "z-live")
        assert store.list_namespaces(prefix=("memories",)) == []


def test_a_mixed_batch_namespace_goes_once_its_ttl_item_expires(clock: FakeClock) -> None:
    with mock_aws():
        store = DynamoDBStore("memory", region_name="us-east-1")
        store.setup()
        ns = ("memories", "u2")
        store.batch([PutOp(ns, "brief", {"v": 2}, ttl=1), PutOp(ns, "plain", {"v": 1})])
        store.delete(ns, "plain")
        assert store.list_namespaces(prefix=("memories",)) == [ns]
        clock.advance(5 * 60)
        assert store.list_namespaces(prefix=("memories",)) == []


@pytest.mark.parametrize("read", ["get", "search"])
def test_a_refresh_by_any_read_keeps_every_vector_of_the_item(read: str, clock: FakeClock) -> None:
    """A get or a search without a query slides the item's extra vector rows too, so the
    sweep never leaves the item findable by its first text only."""
    with mock_aws():
        store = DynamoDBStore(
            "memory",
            region_name="us-east-1",
            ttl={"refresh_on_read": True},
            index={"dims": 64, "embed": LexicalEmbeddings(dims=64), "fields": ["text", "notes"]},
        )
        store.setup()
        ns = ("memories", "u1")
        store.put(ns, "m", {"text": "alpha", "notes": "walrus ukulele"}, ttl=10)
        store.put(ns, "other", {"text": "beta", "notes": "gamma"})
        clock.advance(8 * 60)
        if read == "get":
            assert store.get(ns, "m") is not None
        else:
            assert [r.key for r in store.search(ns, limit=10)]
        clock.advance(5 * 60)  # past the first expiry, before the slid one
        expire_ttl_items("memory", now=clock.now())
        [found] = store.search(ns, query="walrus ukulele", limit=1)
        assert found.key == "m" and found.score is not None and found.score > 0.9
