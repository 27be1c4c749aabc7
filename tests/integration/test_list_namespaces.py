"""list_namespaces: LangGraph semantics, exact answers, cost that scales with the answer."""

from __future__ import annotations

from langgraph.store.base import PutOp
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.memory import InMemoryStore

from tests.support import RequestCounter

NAMESPACES = [
    ("memories", "acme", "u1"),
    ("memories", "acme", "u2"),
    ("memories", "acme", "u2", "agent"),
    ("memories", "globex", "u1"),
    ("account_facts", "acme"),
    ("account_facts", "globex"),
    ("docs",),
]


def _fill(*stores: object) -> None:
    for store in stores:
        for ns in NAMESPACES:
            store.put(ns, "k", {"v": 1})  # type: ignore[attr-defined]


def test_answers_match_the_reference_store(kv_store: DynamoDBStore) -> None:
    reference = InMemoryStore()
    _fill(kv_store, reference)
    cases: list[dict[str, object]] = [
        {},
        {"prefix": ("memories",)},
        {"prefix": ("memories", "acme")},
        {"prefix": ("memories", "*", "u1")},
        {"suffix": ("u1",)},
        {"suffix": ("acme",)},
        {"prefix": ("*",), "suffix": ("*", "u2")},
        {"max_depth": 1},
        {"max_depth": 2},
        {"prefix": ("memories",), "max_depth": 2},
        {"limit": 2},
        {"limit": 3, "offset": 2},
        {"offset": 100},
        {"prefix": ("nothing",)},
        {"prefix": ("memories", "acme", "u2", "agent", "deeper")},
    ]
    for case in cases:
        assert kv_store.list_namespaces(**case) == reference.list_namespaces(**case), case  # type: ignore[arg-type]


def test_a_namespace_disappears_with_its_last_item(kv_store: DynamoDBStore) -> None:
    kv_store.batch([PutOp(("t", "a"), "1", {"v": 1}), PutOp(("t", "a"), "2", {"v": 1})])
    kv_store.put(("t", "b"), "1", {"v": 1})
    kv_store.delete(("t", "a"), "1")
    assert kv_store.list_namespaces(prefix=("t",)) == [("t", "a"), ("t", "b")]
    kv_store.delete(("t", "a"), "2")
    assert kv_store.list_namespaces(prefix=("t",)) == [("t", "b")]
    assert kv_store.search(("t",)) == kv_store.search(("t", "b"))
    # ... and comes back with a new item, also from a process that cached it.
    kv_store.put(("t", "a"), "3", {"v": 1})
    assert kv_store.list_namespaces(prefix=("t",)) == [("t", "a"), ("t", "b")]
    other = DynamoDBStore(kv_store.table_name, region_name="us-east-1")
    other.put(("t", "b"), "2", {"v": 1})  # other process registers ("t","b")
    kv_store.batch([PutOp(("t", "b"), "1", None)])
    other.batch([PutOp(("t", "b"), "2", None)])
    assert kv_store.list_namespaces(prefix=("t",)) == [("t", "a")]
    other.put(("t", "b"), "4", {"v": 1})
    assert kv_store.list_namespaces(prefix=("t",)) == [("t", "a"), ("t", "b")]


def test_listing_under_a_prefix_costs_one_query_not_a_scan(
    kv_store: DynamoDBStore, requests: RequestCounter
) -> None:
    kv_store.batch([PutOp(("tenant", f"user{i}"), "k", {"v": i}) for i in range(50)])
    kv_store.batch([PutOp(("other", f"user{i}"), "k", {"v": i}) for i in range(50)])
    requests.reset()
    assert len(kv_store.list_namespaces(prefix=("tenant",), limit=1000)) == 50
    assert dict(requests.calls) == {"Query": 1}
    requests.reset()
    assert len(kv_store.list_namespaces(limit=1000)) == 100
    assert dict(requests.calls) == {"Query": 1}
