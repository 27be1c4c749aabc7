"""Bad input, table-driven, on every public entry point (raw ops in `batch` included):
each case raises a specific exception whose message says what to change, and nothing is
written (checked by scanning the table)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.table.errors import TableNotFoundError
from langgraph.store.dynamodb.table.keys import MAX_ITEM_KEY_BYTES
from langgraph.store.dynamodb.table.values import MAX_DEPTH, MAX_ITEM_BYTES
from langgraph.store.dynamodb.testing import LexicalEmbeddings

from tests.hardening.conftest import DIMS, TABLE, make_store
from tests.hardening.invariants import rows_of

NS = ("tenant", "user")
Call = Callable[[DynamoDBStore], Any]


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(depth - 1):
        value = {"n": value}
    return value


class WrongDims(LexicalEmbeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [vector[:-1] for vector in super().embed_documents(texts)]


class NotFinite(LexicalEmbeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[math.nan] * DIMS for _ in texts]


# (id, call, exception type, a phrase of the message that says what to change)
CASES: list[tuple[str, Call, type[Exception], str]] = [
    # namespaces (LangGraph's rules), on every path
    ("empty namespace", lambda s: s.put((), "k", {"v": 1}), InvalidNamespaceError, "empty"),
    ("empty label", lambda s: s.put(("a", ""), "k", {"v": 1}), InvalidNamespaceError, "empty"),
    ("dot in label", lambda s: s.put(("a.b",), "k", {"v": 1}), InvalidNamespaceError, "period"),
    ("NUL in label", lambda s: s.put(("a\x00",), "k", {"v": 1}), InvalidNamespaceError, ""),
    (
        "langgraph root",
        lambda s: s.put(("langgraph",), "k", {"v": 1}),
        InvalidNamespaceError,
        "langgraph",
    ),
    ("label not str", lambda s: s.put(("a", 1), "k", {"v": 1}), InvalidNamespaceError, "str"),  # type: ignore[arg-type]
    ("namespace a str", lambda s: s.batch([GetOp("abc", "k")]), InvalidNamespaceError, "tuple"),  # type: ignore[arg-type]
    ("raw get dot", lambda s: s.batch([GetOp(("a.b",), "k")]), InvalidNamespaceError, "period"),
    ("raw search dot", lambda s: s.batch([SearchOp(("a.b",))]), InvalidNamespaceError, "period"),
    (
        "raw list dot",
        lambda s: s.batch([ListNamespacesOp((MatchCondition("prefix", ("a.b",)),))]),
        InvalidNamespaceError,
        "period",
    ),
    (
        "namespace too long",
        lambda s: s.put(("n" * 1100,), "k", {"v": 1}),
        InvalidNamespaceError,
        "limit",
    ),
    # keys
    (
        "key too long",
        lambda s: s.put(NS, "k" * (MAX_ITEM_KEY_BYTES + 1), {"v": 1}),
        ValueError,
        "limit",
    ),
    ("raw key not str", lambda s: s.batch([PutOp(NS, 5, {"v": 1})]), ValueError, "string"),  # type: ignore[arg-type]
    (
        "multi-vector key too long",
        lambda s: s.put(NS, "k" * (MAX_ITEM_KEY_BYTES - 2), {"notes": ["a", "b"]}),
        ValueError,
        "shorter key",
    ),
    # values
    ("value not a dict", lambda s: s.put(NS, "k", [1, 2]), ValueError, "dict"),  # type: ignore[arg-type]
    ("NaN", lambda s: s.put(NS, "k", {"x": math.nan}), ValueError, "finite"),
    ("infinity", lambda s: s.put(NS, "k", {"x": math.inf}), ValueError, "finite"),
    ("set", lambda s: s.put(NS, "k", {"x": {1}}), ValueError, "sorted lists"),
    ("bytes", lambda s: s.put(NS, "k", {"x": b"1"}), ValueError, "base64"),
    ("tuple", lambda s: s.put(NS, "k", {"x": (1,)}), ValueError, "convert tuples"),
    ("int key", lambda s: s.put(NS, "k", {1: "x"}), ValueError, "must be strings"),  # type: ignore[dict-item]
    ("object", lambda s: s.put(NS, "k", {"x": object()}), ValueError, "not JSON"),
    ("too deep", lambda s: s.put(NS, "k", _nested(MAX_DEPTH + 1)), ValueError, "flatten"),
    (
        "over the size limit",
        lambda s: s.put(NS, "k", {"x": "x" * MAX_ITEM_BYTES}),
        ValueError,
        "S3",
    ),
    (
        "raw put over the limit in a batch",
        lambda s: s.batch([PutOp(NS, "ok", {"v": 1}), PutOp(NS, "k", {"x": "x" * MAX_ITEM_BYTES})]),
        ValueError,
        "S3",
    ),
    # TTL
    ("ttl inf", lambda s: s.put(NS, "k", {"v": 1}, ttl=math.inf), ValueError, "number of minutes"),
    ("ttl bool", lambda s: s.put(NS, "k", {"v": 1}, ttl=True), ValueError, "number of minutes"),
    ("ttl huge", lambda s: s.put(NS, "k", {"v": 1}, ttl=10**40), ValueError, "1,000 years"),
    ("ttl negative", lambda s: s.put(NS, "k", {"v": 1}, ttl=-5), ValueError, "positive"),
    ("ttl str", lambda s: s.put(NS, "k", {"v": 1}, ttl="5"), ValueError, "number of minutes"),  # type: ignore[arg-type]
    # embedding output
    (
        "wrong dims",
        lambda s: _with(WrongDims(dims=DIMS)).put(NS, "k", {"text": "hi"}),
        ValueError,
        "dims",
    ),
    (
        "non-finite vector",
        lambda s: _with(NotFinite(dims=DIMS)).put(NS, "k", {"text": "hi"}),
        ValueError,
        "non-finite",
    ),
    # filters
    (
        "unknown operator",
        lambda s: s.search(NS, filter={"x": {"$regex": "a"}}),
        ValueError,
        "supported",
    ),
    ("filter not a dict", lambda s: s.search(NS, filter=[("x", 1)]), ValueError, "dict"),  # type: ignore[arg-type]
    # paging
    ("negative limit", lambda s: s.search(NS, limit=-1), ValueError, "non-negative int"),
    ("bool limit", lambda s: s.search(NS, limit=True), ValueError, "non-negative int"),
    ("float limit", lambda s: s.search(NS, limit=2.5), ValueError, "non-negative int"),  # type: ignore[arg-type]
    ("negative offset", lambda s: s.search(NS, offset=-1), ValueError, "non-negative int"),
    (
        "semantic page over the cap",
        lambda s: s.search(NS, query="x", limit=90, offset=20),
        ValueError,
        "limit + offset <= 100",
    ),
    ("list bool limit", lambda s: s.list_namespaces(limit=True), ValueError, "non-negative int"),
    ("list max_depth 0", lambda s: s.list_namespaces(max_depth=0), ValueError, "max_depth"),
    ("list max_depth str", lambda s: s.list_namespaces(max_depth="2"), ValueError, "max_depth"),  # type: ignore[arg-type]
    ("list max_depth bool", lambda s: s.list_namespaces(max_depth=True), ValueError, "max_depth"),
]


def _with(embed: LexicalEmbeddings) -> DynamoDBStore:
    return make_store(embed=embed)


def _data_rows(store: DynamoDBStore) -> list[dict[str, Any]]:
    return [row for row in rows_of(store.client, TABLE) if row["PK"] != "._meta"]


@pytest.mark.parametrize(("name", "call", "error", "phrase"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_raises_a_clear_error_and_writes_nothing(
    store: DynamoDBStore, name: str, call: Call, error: type[Exception], phrase: str
) -> None:
    with pytest.raises(error) as raised:
        call(store)
    assert phrase.lower() in str(raised.value).lower(), str(raised.value)
    assert _data_rows(store) == [], name


async def test_async_entry_points_validate_the_same_way(store: DynamoDBStore) -> None:
    with pytest.raises(InvalidNamespaceError):
        await store.aput(("a.b",), "k", {"v": 1})
    with pytest.raises(ValueError, match="non-negative int"):
        await store.asearch(NS, limit=True)
    with pytest.raises(ValueError, match="max_depth"):
        await store.alist_namespaces(max_depth="2")  # type: ignore[arg-type]
    assert _data_rows(store) == []


def test_a_missing_table_is_named_with_setup(emulated: None) -> None:
    store = DynamoDBStore("nowhere", region_name="us-east-1")
    for call in (
        lambda: store.put(NS, "k", {"v": 1}),
        lambda: store.get(NS, "k"),
        lambda: store.search(NS),
        lambda: store.list_namespaces(),
    ):
        with pytest.raises(TableNotFoundError, match=r"'nowhere'.*setup\(\)"):
            call()


def test_a_table_with_the_wrong_key_schema_is_refused(emulated: None) -> None:
    client = DynamoDBStore(TABLE, region_name="us-east-1").client
    client.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    store = DynamoDBStore(TABLE, region_name="us-east-1")
    with pytest.raises(ValueError, match="key schema") as raised:
        store.setup()
    assert "PK" in str(raised.value)
    assert client.scan(TableName=TABLE)["Items"] == []


def test_an_index_with_mismatched_settings_is_refused(store: DynamoDBStore) -> None:
    other = make_store(dims=DIMS * 2, embed=LexicalEmbeddings(dims=DIMS * 2))
    with pytest.raises(ValueError, match="dims") as raised:
        other.setup()
    assert str(DIMS) in str(raised.value) and str(DIMS * 2) in str(raised.value)
    assert _data_rows(store) == []


def test_bad_index_configuration_is_refused_at_construction() -> None:
    bad: list[dict[str, Any]] = [
        {"dims": 0},
        {"dims": True},
        {"dims": 5000},
        {"distance_function": "MANHATTAN"},
        {"fields": "text"},
        {"max_fanout": 0},
        {"filter_fields": ["a.b"]},
        {"unknown_setting": 1},
    ]
    for override in bad:
        config: dict[str, Any] = {"dims": DIMS, "embed": LexicalEmbeddings(dims=DIMS), **override}
        with pytest.raises(ValueError, match=r"index\[|index setting|dims") as raised:
            DynamoDBStore(TABLE, region_name="us-east-1", index=config)  # type: ignore[arg-type]
        assert "must" in str(raised.value) or "known" in str(raised.value), override
