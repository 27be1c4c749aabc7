"""The BaseStore key-value contract, through boto3 on the emulated table."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from botocore.exceptions import ClientError
from langgraph.store.base import GetOp, InvalidNamespaceError, PutOp, SearchOp
from langgraph.store.dynamodb import DynamoDBStore, TableNotFoundError
from langgraph.store.dynamodb.testing import LexicalEmbeddings

from tests.support import FakeClock


def _walk(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [x for v in value.values() for x in _walk(v)]
    if isinstance(value, list):
        return [x for v in value for x in _walk(v)]
    return [value]


def test_values_round_trip_exactly(kv_store: DynamoDBStore) -> None:
    value = {
        "score": 0.1,
        "n": 3,
        "big": 2**53 + 1,
        "neg": -7.25e-12,
        "flag": False,
        "none": None,
        "text": "héllo 日本",
        "nested": {"list": [1, 2.5, {"deep": [True, None, "x"]}], "empty": {}},
    }
    kv_store.put(("users", "u1"), "prefs", value)
    item = kv_store.get(("users", "u1"), "prefs")
    assert item is not None
    assert item.value == value
    assert type(item.value["score"]) is float and type(item.value["n"]) is int
    assert not any(isinstance(v, Decimal) for v in _walk(item.value))
    assert item.namespace == ("users", "u1") and item.key == "prefs"


def test_missing_item_is_none_and_empty_namespace_is_empty(kv_store: DynamoDBStore) -> None:
    assert kv_store.get(("nobody",), "k") is None
    assert kv_store.search(("nobody",)) == []
    assert kv_store.list_namespaces(prefix=("nobody",)) == []


def test_created_at_survives_overwrites_and_updated_at_moves(
    kv_store: DynamoDBStore, clock: FakeClock
) -> None:
    def at(seconds: float) -> datetime:
        return datetime.fromtimestamp(seconds, UTC)

    start = clock.now()
    kv_store.put(("a",), "k", {"v": 1})
    first = kv_store.get(("a",), "k")
    assert first is not None
    assert (first.created_at, first.updated_at) == (at(start), at(start))
    clock.advance(1)
    kv_store.put(("a",), "k", {"v": 2})
    second = kv_store.get(("a",), "k")
    assert second is not None and second.value == {"v": 2}
    assert (second.created_at, second.updated_at) == (at(start), at(start + 1))
    # The batch write path keeps created_at too.
    clock.advance(1)
    kv_store.batch([PutOp(("a",), "k", {"v": 3}), PutOp(("a",), "other", {"v": 0})])
    third = kv_store.get(("a",), "k")
    assert third is not None and third.value == {"v": 3}
    assert (third.created_at, third.updated_at) == (at(start), at(start + 2))


def test_delete(kv_store: DynamoDBStore) -> None:
    kv_store.put(("a",), "k", {"v": 1})
    kv_store.delete(("a",), "k")
    assert kv_store.get(("a",), "k") is None
    assert kv_store.search(("a",)) == []
    assert kv_store.list_namespaces() == []
    kv_store.put(("b",), "k", {"v": 2})
    kv_store.delete(("b",), "never-existed")  # a no-op that leaves the namespace intact
    assert [r.value for r in kv_store.search(("b",))] == [{"v": 2}]
    assert kv_store.list_namespaces() == [("b",)]


@pytest.mark.parametrize(
    "bad",
    [{"x": float("nan")}, {"x": {1, 2}}, {"x": b"bytes"}, {"x": object()}, {"x": float("inf")}],
)
def test_non_json_values_are_rejected_before_any_write(kv_store: DynamoDBStore, bad: Any) -> None:
    with pytest.raises(ValueError, match=r"\$\.x"):
        kv_store.batch([PutOp(("a",), "good", {"v": 1}), PutOp(("a",), "bad", bad)])
    assert kv_store.get(("a",), "good") is None
    assert kv_store.list_namespaces() == []


def test_oversized_item_is_rejected_naming_size_and_limit(kv_store: DynamoDBStore) -> None:
    with pytest.raises(ValueError, match=r"Item .*is \d+ bytes.*limit is 409600 bytes"):
        kv_store.put(("a",), "big", {"text": "x" * 409_600})
    # The recency index holds a copy of the value, and DynamoDB counts it against the item's
    # 400 KB: a value can be about half of that.
    with pytest.raises(ValueError, match=r"with its copy in the recency index is \d+ bytes"):
        kv_store.put(("a",), "big", {"text": "x" * 205_000})
    kv_store.put(("a",), "fits", {"text": "x" * 195_000})
    fits = kv_store.get(("a",), "fits")
    assert fits is not None and len(fits.value["text"]) == 195_000


@pytest.mark.parametrize(
    "op",
    [
        PutOp(("a.b",), "k", {"v": 1}),
        GetOp(("a.b",), "k"),
        SearchOp(("a.b",)),
        PutOp(("",), "k", {"v": 1}),
        PutOp(("langgraph",), "k", {"v": 1}),
    ],
)
def test_raw_ops_are_validated(kv_store: DynamoDBStore, op: Any) -> None:
    kv_store.put(("a", "b"), "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError):
        kv_store.batch([op])
    assert kv_store.list_namespaces() == [("a", "b")]


def test_labels_with_separators_never_collide(kv_store: DynamoDBStore) -> None:
    namespaces = [
        ("a:b",),
        ("a", "b"),
        ("a#b",),
        ("a/b",),
        ("a|b",),
        ("a%b",),
        ("a*",),
        ("a b",),
        ("日本", "語"),
        ("A", "b"),
    ]
    for i, ns in enumerate(namespaces):
        kv_store.put(ns, "k", {"i": i})
    for i, ns in enumerate(namespaces):
        item = kv_store.get(ns, "k")
        assert item is not None and item.value == {"i": i}
        assert [r.value["i"] for r in kv_store.search(ns)] == [i]
    assert sorted(kv_store.list_namespaces()) == sorted(namespaces)


def test_prefix_search_respects_label_boundaries(kv_store: DynamoDBStore) -> None:
    kv_store.put(("alice",), "1", {"v": 1})
    kv_store.put(("alice", "memories"), "2", {"v": 2})
    kv_store.put(("alice", "memories", "deep"), "3", {"v": 3})
    kv_store.put(("alicex",), "4", {"v": 4})
    kv_store.put(("Alice",), "5", {"v": 5})
    # Newest first (written in key order).
    assert [r.key for r in kv_store.search(("alice",))] == ["3", "2", "1"]
    assert [r.key for r in kv_store.search(("alice", "memories"))] == ["3", "2"]
    assert [r.key for r in kv_store.search(("alicex",))] == ["4"]
    assert [r.key for r in kv_store.search(("Alice",))] == ["5"]
    assert sorted(r.key for r in kv_store.search((), limit=100)) == ["1", "2", "3", "4", "5"]


@pytest.mark.parametrize("meta", ["*", "%", "_", "?", "["])
def test_metacharacters_in_prefixes_are_literal(kv_store: DynamoDBStore, meta: str) -> None:
    kv_store.put((f"a{meta}",), "k", {"v": 1})
    kv_store.put(("ab",), "k", {"v": 2})
    kv_store.put(("a",), "k", {"v": 3})
    assert [r.value["v"] for r in kv_store.search((f"a{meta}",))] == [1]
    assert [r.value["v"] for r in kv_store.search((meta,))] == []


def test_pages_are_complete_and_disjoint_across_namespaces(kv_store: DynamoDBStore) -> None:
    ops = [PutOp(("t", f"user{n}"), f"k{i}", {"n": n, "i": i}) for n in range(6) for i in range(7)]
    kv_store.batch(ops)
    everything = kv_store.search(("t",), limit=100)
    assert len(everything) == 42
    assert everything == kv_store.search(("t",), limit=100)  # deterministic
    pages = [kv_store.search(("t",), limit=5, offset=o) for o in range(0, 45, 5)]
    flat = [(r.namespace, r.key) for page in pages for r in page]
    assert flat == [(r.namespace, r.key) for r in everything]
    assert len(set(flat)) == 42
    assert [len(p) for p in pages] == [5] * 8 + [2]


def test_filters_every_operator(kv_store: DynamoDBStore) -> None:
    for i in range(10):
        kv_store.put(
            ("f",), f"k{i}", {"i": i, "tag": "even" if i % 2 == 0 else "odd", "m": {"x": i % 3}}
        )

    def keys(**kwargs: Any) -> list[int]:
        return [r.value["i"] for r in kv_store.search(("f",), limit=20, **kwargs)]

    # Newest first: k9 was written last.
    assert keys(filter={"tag": "odd"}) == [9, 7, 5, 3, 1]
    assert keys(filter={"m": {"x": 0}}) == [9, 6, 3, 0]
    assert keys(filter={"i": {"$eq": 4}}) == [4]
    assert keys(filter={"i": {"$ne": 4}, "tag": "even"}) == [8, 6, 2, 0]
    assert keys(filter={"i": {"$gt": 7}}) == [9, 8]
    assert keys(filter={"i": {"$gte": 7}}) == [9, 8, 7]
    assert keys(filter={"i": {"$lt": 2}}) == [1, 0]
    assert keys(filter={"i": {"$lte": 2}}) == [2, 1, 0]
    assert keys(filter={"i": {"$gt": 2, "$lt": 6}, "tag": "odd"}) == [5, 3]
    with pytest.raises(ValueError, match="Unsupported filter operator"):
        kv_store.search(("f",), filter={"i": {"$in": [1]}})


def test_filtered_search_fills_the_limit_across_namespaces(kv_store: DynamoDBStore) -> None:
    # One match in every 20 items, spread over several namespaces.
    ops = [
        PutOp(("s", f"n{n}"), f"k{i:02d}", {"hit": (n * 40 + i) % 20 == 0})
        for n in range(4)
        for i in range(40)
    ]
    kv_store.batch(ops)
    found = kv_store.search(("s",), filter={"hit": True}, limit=7)
    assert len(found) == 7
    assert all(r.value["hit"] for r in found)
    rest = kv_store.search(("s",), filter={"hit": True}, limit=7, offset=7)
    assert len(rest) == 1  # 8 matches in all
    assert not {(r.namespace, r.key) for r in rest} & {(r.namespace, r.key) for r in found}


MISSING_TABLE_CALLS: dict[str, Callable[[DynamoDBStore], Any]] = {
    "get": lambda s: s.get(("a",), "k"),
    "search": lambda s: s.search(["a"]),
    "semantic search": lambda s: s.search(("a",), query="x"),
    "list_namespaces": lambda s: s.list_namespaces(),
    "put": lambda s: s.put(("a",), "k", {"v": 1}),
    "delete": lambda s: s.delete(("a",), "k"),
    "aget": lambda s: asyncio.run(s.aget(("a",), "k")),
}


@pytest.mark.parametrize("call", MISSING_TABLE_CALLS)
def test_missing_table_names_table_region_and_setup(kv_store: DynamoDBStore, call: str) -> None:
    missing = DynamoDBStore(
        "no-such-table",
        region_name="us-east-1",
        index={"dims": 8, "embed": LexicalEmbeddings(dims=8)},
    )
    with pytest.raises(TableNotFoundError) as raised:
        MISSING_TABLE_CALLS[call](missing)
    message = str(raised.value)
    assert "'no-such-table' was not found in region us-east-1" in message
    assert "https://dynamodb.us-east-1.amazonaws.com" in message
    assert "store.setup()" in message
    cause = raised.value.__cause__
    assert isinstance(cause, ClientError)
    assert cause.response["Error"]["Code"] == "ResourceNotFoundException"


def test_missing_region_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    monkeypatch.delenv("AWS_REGION", raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    with pytest.raises(ValueError, match="region_name"):
        DynamoDBStore("t")
