"""list_namespaces: LangGraph semantics, exact answers, cost that scales with the answer."""

from __future__ import annotations

from typing import Any

from langgraph.store.base import PutOp
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.items.registry import CACHE_SECONDS, GRACE_SECONDS
from langgraph.store.dynamodb.table.keys import registry_partition
from langgraph.store.dynamodb.table.schema import REGISTRY_PREFIX
from langgraph.store.dynamodb.testing import mock_aws
from langgraph.store.memory import InMemoryStore

from bench.fill import replicate
from tests.support import FakeClock, RequestCounter

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


def test_listing_under_a_group_prefix_costs_one_query_not_a_scan(
    kv_store: DynamoDBStore, requests: RequestCounter
) -> None:
    kv_store.batch([PutOp(("memories", "tenant", f"user{i}"), "k", {"v": i}) for i in range(50)])
    kv_store.batch([PutOp(("memories", "other", f"user{i}"), "k", {"v": i}) for i in range(50)])
    requests.reset()
    assert len(kv_store.list_namespaces(prefix=("memories", "tenant"), limit=1000)) == 50
    assert dict(requests.calls) == {"Query": 1}


def test_listing_under_a_shorter_prefix_reads_each_group_below_it_once(
    kv_store: DynamoDBStore, requests: RequestCounter
) -> None:
    kv_store.batch([PutOp(("memories", "tenant", f"user{i}"), "k", {"v": i}) for i in range(50)])
    kv_store.batch([PutOp(("memories", f"t{i}", "u"), "k", {"v": i}) for i in range(3)])
    kv_store.batch([PutOp(("other", "x"), "k", {"v": 1})])
    requests.reset()
    assert len(kv_store.list_namespaces(prefix=("memories",), limit=1000)) == 53
    assert dict(requests.calls) == {"Query": 1 + 4}  # the groups, then each of 4 groups
    requests.reset()
    assert len(kv_store.list_namespaces(limit=1000)) == 54
    assert dict(requests.calls) == {"Query": 1 + 5}


def _registrations(store: DynamoDBStore) -> list[str]:
    """The namespace registrations `store` applies (UpdateItems of a namespace's registry
    row that succeed; a conditional refresh of a row that is not there yet does not count)."""
    seen: list[str] = []

    def before(params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        key = params["Key"]
        if (
            key["PK"]["S"].startswith(REGISTRY_PREFIX)
            and "registered_at" in params["UpdateExpression"]
        ):
            context["registering"] = key["SK"]["S"]

    def after(parsed: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        if "registering" in context and "Error" not in parsed:
            seen.append(context["registering"])

    store.client.meta.events.register("before-parameter-build.dynamodb.UpdateItem", before)
    store.client.meta.events.register("after-call.dynamodb.UpdateItem", after)
    return seen


def _registry_row(store: DynamoDBStore, ns: tuple[str, ...]) -> dict[str, Any] | None:
    response = store.client.get_item(
        TableName=store.table_name,
        Key={"PK": {"S": registry_partition(ns)}, "SK": {"S": ".".join(ns) + "."}},
        ConsistentRead=True,
    )
    return response.get("Item")


def test_a_put_registers_again_once_the_cache_lifetime_is_over(
    kv_store: DynamoDBStore, clock: FakeClock
) -> None:
    registrations = _registrations(kv_store)
    kv_store.put(("c",), "1", {"v": 1})
    assert registrations == ["c."]
    clock.advance(CACHE_SECONDS - 1)
    kv_store.put(("c",), "2", {"v": 1})
    assert registrations == ["c."]  # still cached
    clock.advance(2)
    kv_store.put(("c",), "3", {"v": 1})
    assert registrations == ["c.", "c."]


def test_a_namespace_that_gains_its_first_ttl_item_later_goes_when_it_expires(
    clock: FakeClock,
) -> None:
    with mock_aws():
        store = DynamoDBStore("memory", region_name="us-east-1", ttl={"omit_expired": True})
        store.setup()
        other = DynamoDBStore("memory", region_name="us-east-1", ttl={"omit_expired": True})
        for ns in [("same",), ("other",)]:
            store.put(ns, "plain", {"v": 1})  # registered without TTL, and cached
        store.put(("same",), "temp", {"v": 1}, ttl=1.0)  # the process that cached it
        other.put(("other",), "temp", {"v": 1}, ttl=1.0)  # a process that never saw it
        store.put(("overwritten",), "k", {"v": 1})
        store.put(("overwritten",), "k", {"v": 2}, ttl=1.0)
        store.delete(("same",), "plain")
        store.delete(("other",), "plain")
        assert store.list_namespaces() == [("other",), ("overwritten",), ("same",)]
        clock.advance(60)
        assert store.list_namespaces() == []
        assert other.list_namespaces() == []


def test_the_grace_period_keeps_a_racing_put_registered(clock: FakeClock) -> None:
    with mock_aws():
        a = DynamoDBStore("memory", region_name="us-east-1")
        a.setup()
        b = DynamoDBStore("memory", region_name="us-east-1")
        ns = ("race",)
        a.put(ns, "1", {"v": 1})  # A registers the namespace and caches that
        # B empties it and lists late in A's cache lifetime: the row is only marked.
        b.delete(ns, "1")
        clock.advance(CACHE_SECONDS - 1)
        assert b.list_namespaces() == []
        assert _registry_row(b, ns) is not None
        a.put(ns, "2", {"v": 1})  # A trusts its cache and writes no registration
        assert b.list_namespaces() == [ns]
        # B empties it again and lists after the grace period: the row is removed ...
        b.delete(ns, "2")
        clock.advance(GRACE_SECONDS + 1)
        assert b.list_namespaces() == []
        assert _registry_row(b, ns) is None
        # ... which is safe because A's cache has expired: its next put registers again.
        a.put(ns, "3", {"v": 1})
        assert b.list_namespaces() == [ns]
        assert a.list_namespaces() == [ns]


def _listing_costs(tenants: int, *, ttl: float | None) -> dict[str, tuple[int, list[Any]]]:
    """Requests and answers of a page of 10 (root, under a prefix, at depth 2) on a table
    of `tenants` tenants with one namespace each (one written through the store, copied
    row for row to the others: `bench.fill`)."""
    with mock_aws():
        store = DynamoDBStore("memory", region_name="us-east-1")
        store.setup()
        store.put(("memories", "t00000", "u"), "k", {"v": 0}, ttl=ttl)  # the template
        replicate("memory", {"t00000": [f"t{n:05}" for n in range(1, tenants)]})
        store.put(("memories",), "root", {"v": 1})
        counter = RequestCounter(store.client)
        pages = {
            "root": lambda: store.list_namespaces(limit=10),
            "prefix": lambda: store.list_namespaces(prefix=("memories",), limit=10, offset=5),
            "depth": lambda: store.list_namespaces(prefix=("memories",), max_depth=2, limit=10),
        }
        costs = {}
        for name, page in pages.items():
            counter.reset()
            answer = page()
            costs[name] = (counter.total, answer)
        return costs


def test_a_page_of_ten_costs_the_same_at_200_and_2000_tenants() -> None:
    for ttl in (None, 60.0):
        small, large = _listing_costs(200, ttl=ttl), _listing_costs(2_000, ttl=ttl)
        for name in small:
            assert small[name][1] == large[name][1], name  # the same first answers
            assert large[name][0] == small[name][0] <= 40, (name, ttl, small, large)
        assert small["root"][1][:2] == [("memories",), ("memories", "t00000", "u")]
        assert small["depth"][1][1] == ("memories", "t00000")
