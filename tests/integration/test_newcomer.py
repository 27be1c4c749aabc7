"""What a new user trips over: list namespaces, expired memories, reads that carry vectors."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
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
from langgraph.store.dynamodb.table.schema import EXPIRES_AT
from langgraph.store.dynamodb.testing import LexicalEmbeddings, local_endpoint, mock_aws

from tests.support import RequestCounter


@pytest.fixture
def aws() -> Iterator[None]:
    with mock_aws():
        yield


def _store(**kwargs: Any) -> DynamoDBStore:
    store = DynamoDBStore("memory", region_name="us-east-1", **kwargs)
    store.setup()
    return store


def _expire_now(store: DynamoDBStore, ns: tuple[str, ...], key: str) -> int:
    """Move an item's expiry into the past, as it is once its TTL ran out but DynamoDB's
    sweep (which can lag by days) has not deleted it yet; returns the stamp written."""
    past = int(time.time()) - 5
    store.client.update_item(
        TableName=store.table_name,
        Key={"PK": {"S": ".".join(ns)}, "SK": {"S": "k#" + key}},
        UpdateExpression=f"SET {EXPIRES_AT} = :p",
        ExpressionAttributeValues={":p": {"N": str(past)}},
    )
    return past


def _expiry(store: DynamoDBStore, ns: tuple[str, ...], key: str) -> int:
    item = store.client.get_item(
        TableName=store.table_name,
        Key={"PK": {"S": ".".join(ns)}, "SK": {"S": "k#" + key}},
        ConsistentRead=True,
    )["Item"]
    return int(item[EXPIRES_AT]["N"])


def test_namespaces_given_as_lists_work_on_every_path(aws: None) -> None:
    store = _store()
    store.put(["users", "a"], "k", {"v": 1})  # type: ignore[arg-type]
    assert store.get(["users", "a"], "k").value == {"v": 1}  # type: ignore[arg-type, union-attr]
    assert [(r.namespace, r.key) for r in store.search(["users"])] == [(("users", "a"), "k")]  # type: ignore[arg-type]
    assert store.list_namespaces(prefix=["users"]) == [("users", "a")]  # type: ignore[arg-type]
    assert store.list_namespaces(suffix=["a"]) == [("users", "a")]  # type: ignore[arg-type]
    raw: list[Any] = [
        PutOp(["users", "b"], "k", {"v": 2}),
        GetOp(["users", "a"], "k"),
        SearchOp(["users", "a"]),
        ListNamespacesOp(match_conditions=(MatchCondition("prefix", ["users"]),)),
    ]
    _, got, found, listed = store.batch(raw)
    assert got.value == {"v": 1}  # type: ignore[union-attr]
    assert [r.key for r in found] == ["k"]  # type: ignore[union-attr]
    assert listed == [("users", "a")]  # the put lands after the batch's reads
    assert store.get(("users", "b"), "k").value == {"v": 2}  # type: ignore[union-attr]


def test_a_bare_string_namespace_is_still_an_error(aws: None) -> None:
    store = _store()
    with pytest.raises(InvalidNamespaceError, match=r"Write \('users',\)"):
        store.search("users")  # type: ignore[arg-type]
    with pytest.raises(InvalidNamespaceError):
        store.batch([GetOp("users", "k")])  # type: ignore[arg-type]


def test_expired_items_are_hidden_by_default(aws: None) -> None:
    store = _store(ttl={"default_ttl": 10.0, "refresh_on_read": True})
    ns = ("memories", "u")
    store.put(ns, "old", {"v": 1})
    store.put(ns, "live", {"v": 2})
    _expire_now(store, ns, "old")
    assert store.get(ns, "old") is None
    assert [r.key for r in store.search(ns)] == ["live"]
    store.delete(ns, "live")
    assert store.list_namespaces() == []


def test_a_read_never_brings_an_expired_item_back_to_life(aws: None) -> None:
    store = _store(ttl={"default_ttl": 10.0, "refresh_on_read": True, "omit_expired": False})
    ns = ("memories", "u")
    store.put(ns, "k", {"v": 1})
    past = _expire_now(store, ns, "k")
    requests = RequestCounter(store.client)
    assert store.get(ns, "k") is not None  # omit_expired=False shows it, as asked
    assert [r.key for r in store.search(ns)] == ["k"]
    assert _expiry(store, ns, "k") == past  # but neither read extended it
    assert requests.calls["UpdateItem"] == 0  # nor even tried to


def test_sweep_interval_is_logged_once_as_not_applicable(
    aws: None, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="langgraph.store.dynamodb"):
        for _ in range(3):
            DynamoDBStore("memory", region_name="us-east-1", ttl={"sweep_interval_minutes": 7})
    notes = [r.getMessage() for r in caplog.records if "sweep_interval_minutes" in r.getMessage()]
    assert len(notes) == 1
    assert "=7 does not apply" in notes[0] and "DynamoDB's own TTL sweep" in notes[0]


def test_reads_leave_the_vector_and_bookkeeping_behind(aws: None) -> None:
    store = _store(index={"dims": 64, "embed": LexicalEmbeddings(dims=64), "fields": ["text"]})
    ns = ("memories", "u")
    store.put(ns, "k", {"text": "a proxy closes idle sockets"}, ttl=5.0)
    returned: list[set[str]] = []

    def record(parsed: dict[str, Any], model: Any, **_: Any) -> None:
        if model.name == "BatchGetItem":
            returned.extend(set(i) for items in parsed["Responses"].values() for i in items)
        elif model.name == "Query" and parsed.get("Items"):
            returned.extend(set(i) for i in parsed["Items"] if not i["PK"]["S"].startswith("."))

    store.client.meta.events.register("after-call.dynamodb", record)
    assert store.get(ns, "k") is not None
    assert [r.key for r in store.search(ns)] == ["k"]
    wanted = {"PK", "SK", "value", "created_at", "updated_at", "expires_at", "ttl_minutes"}
    # A search reads the recency index, whose sort key comes with every entry.
    assert returned == [wanted, wanted | {"recency"}]


def test_local_endpoint_works_without_any_configured_credentials(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    for name in [n for n in os.environ if n.startswith("AWS_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    with local_endpoint() as url:
        store = DynamoDBStore("memory", endpoint_url=url)
        store.setup()
        store.put(("a",), "k", {"v": 1})
        assert store.get(("a",), "k").value == {"v": 1}  # type: ignore[union-attr]
    assert "AWS_ACCESS_KEY_ID" not in os.environ  # restored on exit
