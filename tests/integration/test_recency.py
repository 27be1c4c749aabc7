"""Search without a query: newest first, through the recency index, at bounded cost."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from langgraph.store.base import PutOp
from langgraph.store.dynamodb import DynamoDBStore, NamespaceFullError
from langgraph.store.dynamodb.jobs.migration import copy_table
from langgraph.store.dynamodb.table.keys import MAX_ITEM_KEY_BYTES
from langgraph.store.dynamodb.table.schema import RECENCY_INDEX
from langgraph.store.dynamodb.table.table_spec import table_spec
from langgraph.store.dynamodb.testing import mock_aws

from tests.support import FakeClock, RequestCounter

NS = ("memories", "u1")


def keys(store: DynamoDBStore, prefix: tuple[str, ...], **kwargs: object) -> list[str]:
    return [r.key for r in store.search(prefix, **kwargs)]  # type: ignore[arg-type]


def test_one_namespace_newest_first_and_an_overwrite_moves_to_the_front(
    kv_store: DynamoDBStore,
) -> None:
    # UUID-like keys whose key order disagrees with the write order.
    for key in ("c9", "a1", "f4", "b2"):
        kv_store.put(NS, key, {"text": key})
    assert keys(kv_store, NS) == ["b2", "f4", "a1", "c9"]
    found = kv_store.search(NS)
    assert [r.updated_at for r in found] == sorted((r.updated_at for r in found), reverse=True)
    first = kv_store.get(NS, "c9")
    assert first is not None
    kv_store.put(NS, "c9", {"text": "rewritten"})
    assert keys(kv_store, NS) == ["c9", "b2", "f4", "a1"]
    assert keys(kv_store, NS, limit=2) == ["c9", "b2"]
    again = kv_store.get(NS, "c9")
    assert again is not None and again.created_at == first.created_at
    kv_store.delete(NS, "c9")
    assert keys(kv_store, NS) == ["b2", "f4", "a1"]


def test_close_writes_are_ordered_by_time_and_ties_by_key(
    kv_store: DynamoDBStore, clock: FakeClock
) -> None:
    # Writes a millisecond or a microsecond apart keep their order ...
    written = [f"k{i:02d}" for i in (5, 3, 9, 1, 7, 0, 8, 2, 6, 4)]
    for n, key in enumerate(written):
        clock.advance(0.001 if n % 2 else 0.000001)
        kv_store.put(NS, key, {"v": key})
    assert keys(kv_store, NS, limit=20) == written[::-1]
    clock.advance(1)
    # ... and writes at the same instant (one batch, or several writers) tie-break by key,
    # descending, the same way on every read, so pages stay complete and disjoint.
    kv_store.batch([PutOp(("tie",), key, {"v": key}) for key in written[:5]])
    for key in written[5:]:
        kv_store.put(("tie",), key, {"v": key})
    everything = keys(kv_store, ("tie",), limit=20)
    assert everything == sorted(written, reverse=True)
    pages = [keys(kv_store, ("tie",), limit=3, offset=o) for o in range(0, 12, 3)]
    assert [key for page in pages for key in page] == everything
    assert keys(kv_store, (), limit=20)[:10] == everything  # across namespaces too


def test_prefix_merges_namespaces_newest_first_with_complete_disjoint_pages(
    kv_store: DynamoDBStore,
) -> None:
    order = []
    for i in range(24):
        ns = ("t", f"user{(i * 7) % 6}")  # interleave the namespaces
        kv_store.put(ns, f"k{i:02d}", {"i": i})
        order.append((ns, f"k{i:02d}"))
    newest = order[::-1]
    everything = kv_store.search(("t",), limit=100)
    assert [(r.namespace, r.key) for r in everything] == newest
    pages = [kv_store.search(("t",), limit=5, offset=o) for o in range(0, 30, 5)]
    assert [(r.namespace, r.key) for page in pages for r in page] == newest
    assert [len(p) for p in pages] == [5, 5, 5, 5, 4, 0]
    kv_store.put(("t", "user3"), "k00", {"i": 0})
    assert [(r.namespace, r.key) for r in kv_store.search(("t",), limit=2)] == [
        (("t", "user3"), "k00"),
        newest[0],
    ]


def test_a_filter_fills_the_page_from_the_newest_matches(kv_store: DynamoDBStore) -> None:
    for i in range(40):
        kv_store.put(("f", f"n{i % 3}"), f"k{i:02d}", {"i": i, "hit": i % 5 == 0})
    found = kv_store.search(("f",), filter={"hit": True}, limit=3)
    assert [r.value["i"] for r in found] == [35, 30, 25]
    rest = kv_store.search(("f",), filter={"hit": True}, limit=10, offset=3)
    assert [r.value["i"] for r in rest] == [20, 15, 10, 5, 0]
    one = kv_store.search(("f", "n0"), filter={"i": {"$lt": 20}}, limit=3)
    assert [r.value["i"] for r in one] == [18, 15, 12]


@pytest.fixture
def ttl_store() -> Iterator[DynamoDBStore]:
    with mock_aws():
        store = DynamoDBStore(
            "memory",
            region_name="us-east-1",
            ttl={"refresh_on_read": True, "omit_expired": True},
        )
        store.setup()
        yield store


def test_expired_items_are_skipped_and_a_ttl_refresh_does_not_reorder(
    ttl_store: DynamoDBStore, clock: FakeClock
) -> None:
    ttl_store.put(NS, "old", {"v": 1}, ttl=10.0)
    before = ttl_store.get(NS, "old", refresh_ttl=False)
    expiry = _expires_at(ttl_store, "old")
    clock.advance(1)
    ttl_store.put(NS, "short", {"v": 2}, ttl=1.0)
    clock.advance(1)
    ttl_store.put(NS, "new", {"v": 3}, ttl=10.0)
    clock.advance(61)
    # The expired item is hidden and the page is still filled from older items.
    assert keys(ttl_store, NS, limit=2) == ["new", "old"]
    assert keys(ttl_store, ("memories",), limit=2) == ["new", "old"]
    # Those searches refreshed what they read: the expiry slid, `updated_at` did not, so
    # the order stays.
    assert _expires_at(ttl_store, "old") > expiry
    assert keys(ttl_store, NS) == ["new", "old"]
    after = ttl_store.get(NS, "old", refresh_ttl=False)
    assert before is not None and after is not None and after.updated_at == before.updated_at


def _expires_at(store: DynamoDBStore, key: str) -> int:
    row = store.client.get_item(
        TableName=store.table_name,
        Key={"PK": {"S": ".".join(NS)}, "SK": {"S": "k#" + key}},
        ConsistentRead=True,
    )["Item"]
    return int(row["expires_at"]["N"])


def test_one_namespace_is_one_round_trip_reading_offset_plus_limit_items(
    kv_store: DynamoDBStore, requests: RequestCounter
) -> None:
    kv_store.batch([PutOp(NS, f"k{i:03d}", {"i": i}) for i in range(150)])
    kv_store.search(NS, limit=5)  # warm nothing: the store keeps no read cache
    requests.reset()
    found = kv_store.search(NS, limit=10, offset=5)
    assert len(found) == 10
    # The registry and the namespace's recency index, queried concurrently.
    assert dict(requests.calls) == {"Query": 2}
    (read,) = [q for q in requests.queries if q.get("IndexName") == RECENCY_INDEX]
    assert read["Limit"] == 15 and read["ScanIndexForward"] is False
    assert read["ConsistentRead"] is True
    # 15 index entries, plus the namespace's single registry row.
    assert requests.scanned["Query"] == 15 + 1


def test_a_prefix_reads_each_namespace_once_per_page(
    kv_store: DynamoDBStore, requests: RequestCounter
) -> None:
    rows = [PutOp(("p", "t", f"u{n}"), f"k{i}", {"i": i}) for n in range(8) for i in range(30)]
    kv_store.batch(rows)
    requests.reset()
    assert len(kv_store.search(("p", "t"), limit=4)) == 4
    # The group's registry partition, the prefix itself (speculatively, empty), and each
    # namespace once.
    assert dict(requests.calls) == {"Query": 1 + 1 + 8}
    assert requests.scanned["Query"] == 8 + 8 * 4  # 8 registry rows, 4 entries each
    requests.reset()
    assert len(kv_store.search(("p",), limit=4)) == 4
    # Shorter than a group: the groups under it, then the group's partition, as above.
    assert dict(requests.calls) == {"Query": 1 + 1 + 1 + 8}


def test_a_prefix_past_max_fanout_is_refused(kv_store: DynamoDBStore) -> None:
    kv_store.batch([PutOp(("wide", f"u{n}"), "k", {"n": n}) for n in range(5)])
    narrow = DynamoDBStore("memory", region_name="us-east-1", max_fanout=4)
    with pytest.raises(ValueError, match=r"covers 5 namespaces, more than max_fanout=4"):
        narrow.search(("wide",))
    assert len(narrow.search(("wide", "u1"))) == 1
    with pytest.raises(ValueError, match="max_fanout must be a positive integer"):
        DynamoDBStore("memory", region_name="us-east-1", max_fanout=0)


def test_a_table_without_the_recency_index_is_refused_with_a_migration_path() -> None:
    with mock_aws():
        _legacy_table(boto3.client("dynamodb", region_name="us-east-1"))
        store = DynamoDBStore("old", region_name="us-east-1")
        with pytest.raises(ValueError, match=r"no local secondary index 'recency'.*copy_table"):
            store.setup()
        # Without setup(), a search fails the same way: never a silent key order.
        store.put(NS, "k", {"v": 1})
        with pytest.raises(ValueError, match=r"no local secondary index 'recency'.*copy_table"):
            store.search(NS)


def test_the_longest_keys_fit_the_index_and_stay_ordered(kv_store: DynamoDBStore) -> None:
    longest = "é" * (MAX_ITEM_KEY_BYTES // 2)
    other = longest[:-1] + "x"
    kv_store.put(NS, longest, {"v": 1})
    kv_store.put(NS, other, {"v": 2})
    assert keys(kv_store, NS) == [other, longest]
    kv_store.batch([PutOp(("tie",), longest, {"v": 1}), PutOp(("tie",), other, {"v": 2})])
    assert keys(kv_store, ("tie",)) == keys(kv_store, ("tie",))
    assert sorted(keys(kv_store, ("tie",))) == sorted([longest, other])


def test_a_full_namespace_refuses_growth_with_a_clear_error() -> None:
    with mock_aws(item_collection_size_limit=20_000):
        store = DynamoDBStore("memory", region_name="us-east-1")
        store.setup()
        with pytest.raises(NamespaceFullError, match=r"\('memories', 'u1'\).*10 GB"):
            for i in range(100):
                store.put(NS, f"k{i:02d}", {"text": "x" * 300})
        full = store.search(NS, limit=100)
        assert 10 < len(full) < 100
        # Reads, deletes and writes elsewhere still work; a delete makes room again.
        store.put(("memories", "u2"), "k", {"text": "elsewhere"})
        store.delete(NS, full[-1].key)
        store.put(NS, "after", {"text": "x" * 300})
        assert keys(store, NS, limit=1) == ["after"]
        with pytest.raises(NamespaceFullError):
            store.batch([PutOp(NS, f"b{i}", {"text": "x" * 300}) for i in range(5)])


def test_copy_table_moves_memories_from_a_table_without_the_index() -> None:
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        _legacy_table(client)
        # Rows as a store before the recency index wrote them (stamps without padding).
        for key, stamp in (
            ("b", "2026-01-02T00:00:00+00:00"),
            ("a", "2026-01-03T00:00:00.5+00:00"),
        ):
            client.put_item(
                TableName="old",
                Item={
                    "PK": {"S": "memories.u1"},
                    "SK": {"S": "k#" + key},
                    "value": {"S": json.dumps({"k": key})},
                    "created_at": {"S": stamp},
                    "updated_at": {"S": stamp},
                },
            )
        client.put_item(
            TableName="old",
            Item={"PK": {"S": "._namespaces"}, "SK": {"S": "memories.u1."}},
        )
        new = DynamoDBStore("new", region_name="us-east-1")
        new.setup()
        # 2 items, the registry row (moved to its group's partition) and its group's row
        assert copy_table(client, "old", "new") == 4
        assert keys(new, ("memories",)) == ["a", "b"]
        assert new.list_namespaces() == [NS]
        assert new.list_namespaces(prefix=NS) == [NS]
        assert copy_table(client, "old", "new") == 4  # idempotent
        assert keys(new, NS) == ["a", "b"]


def test_copy_table_copies_every_scan_page() -> None:
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        _legacy_table(client)
        stamp = "2026-01-02T00:00:00+00:00"
        for n in range(150):  # 10 KB each: a Scan page holds at most 1 MB
            client.put_item(
                TableName="old",
                Item={
                    "PK": {"S": "memories.u1"},
                    "SK": {"S": f"k#{n:03}"},
                    "value": {"S": json.dumps({"text": "x" * 10_000})},
                    "created_at": {"S": stamp},
                    "updated_at": {"S": stamp},
                },
            )
        client.put_item(
            TableName="old",
            Item={"PK": {"S": "._namespaces"}, "SK": {"S": "memories.u1."}},
        )
        assert "LastEvaluatedKey" in client.scan(TableName="old")  # more than one page
        new = DynamoDBStore("new", region_name="us-east-1")
        new.setup()
        assert copy_table(client, "old", "new") == 152  # and the registry and group rows
        assert len(new.search(NS, limit=1000)) == 150


def _legacy_table(client: object) -> None:
    client.create_table(  # type: ignore[attr-defined]
        TableName="old",
        AttributeDefinitions=[
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
        ],
        KeySchema=[
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )


@pytest.mark.parametrize(
    "projection",
    [
        {"ProjectionType": "KEYS_ONLY"},
        {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["value", "created_at", "updated_at"]},
    ],
)
def test_a_recency_index_that_projects_too_little_is_refused(projection: dict[str, Any]) -> None:
    with mock_aws():
        spec = table_spec(None)
        spec["LocalSecondaryIndexes"][0]["Projection"] = projection
        boto3.client("dynamodb", region_name="us-east-1").create_table(TableName="thin", **spec)
        with pytest.raises(ValueError, match=r"no local secondary index 'recency'"):
            DynamoDBStore("thin", region_name="us-east-1").setup()


def test_equal_stamps_across_namespaces_order_by_key_then_namespace(
    kv_store: DynamoDBStore,
) -> None:
    # One batch: every put shares one stamp, so the documented tie-breaks decide.
    kv_store.batch(
        [
            PutOp(("t", "a"), "k1", {"v": 1}),
            PutOp(("t", "b"), "k2", {"v": 2}),
            PutOp(("t", "b"), "k0", {"v": 3}),
            PutOp(("t", "a"), "same", {"v": 4}),
            PutOp(("t", "b"), "same", {"v": 5}),
        ]
    )
    found = [(r.namespace[-1], r.key) for r in kv_store.search(("t",))]
    assert found == [("b", "same"), ("a", "same"), ("b", "k2"), ("a", "k1"), ("b", "k0")]
