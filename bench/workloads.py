"""The data set and the operations measured on it, with how to tell a right answer.

Data: tenants `tnt-000..` of 50 users of 100 items each under ("memories", tenant, user)
(4 tenants: 20,000 items in 200 namespaces); namespaces of 10, 100 and 1,000 items under
("sizes",); prefixes with 5, 20 and 50 namespaces of 10 items under ("fan",); TTL items
under ("ttl", "usr-0000"). Every value is {"text": ..., "i": n}. Items carry vectors where
semantic searches read them: in `USER_NS` (of every tenant), under ("sizes",) and
("fan",); the other "memories" items are stored with `index=False`, which keeps the
emulator's full-table Scans (a peer's) affordable.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from langgraph.store.base import BaseStore, GetOp, Item, PutOp, SearchItem

USER_NS = ("memories", "tnt-000", "usr-0000")
PREFIX = ("memories", "tnt-000")
ALL_MEMORIES = ("memories",)
TTL_NS = ("ttl", "usr-0000")
WRITES_NS = ("writes", "usr-0000")  # where the put workloads write (read workloads never look)
QUERY = "which dashboard did the customer ask about"
TOPICS = (
    "prefers email over phone calls",
    "runs a proxy that closes idle sockets",
    "asked about the billing dashboard",
    "pinned the SDK to version 2.14",
    "works in the Lisbon office",
    "likes short weekly summaries",
    "reported a timeout in the export job",
    "uses dark mode on every screen",
)


def tenant(t: int) -> str:
    return f"tnt-{t:03d}"


def user(u: int) -> str:
    return f"usr-{u:04d}"


def key(i: int) -> str:
    return f"m{i:04d}"


def value(i: int) -> dict[str, Any]:
    return {"text": f"memory {i}: {TOPICS[i % len(TOPICS)]} (note {i})", "i": i}


def sizes_ns(n: int) -> tuple[str, ...]:
    return ("sizes", f"n{n:04d}")


def sizes_token(n: int) -> str:
    return f"z{n:04d}-00000"


def sizes_key(n: int, k: int) -> str:
    return f"z{n:04d}-{k:05d}"


def fan_prefix(n: int) -> tuple[str, ...]:
    return ("fan", f"p{n:03d}")


def fan_user(n: int, u: int) -> str:
    return f"p{n:03d}u{u:04d}"


Check = Callable[[Any, Any], bool]


def same_value(answer: Any, reference: Any) -> bool:
    """Gets: the same value (or both missing)."""
    if isinstance(answer, Item) and isinstance(reference, Item):
        return bool(answer.value == reference.value)
    return answer is None and reference is None


def page_of(limit: int) -> Check:
    """Searches without a query: `min(limit, all)` distinct items, all of them matches
    (the reference answers with every match); order is not part of the contract."""

    def check(answer: Any, reference: Any) -> bool:
        found = [(tuple(r.namespace), r.key) for r in answer]
        allowed = {(tuple(r.namespace), r.key) for r in reference}
        return len(set(found)) == len(found) == min(limit, len(allowed)) and set(found) <= allowed

    return check


def same_hits(answer: Any, reference: Any) -> bool:
    """Semantic searches: the same scores, best first. Which of several items with equal
    scores fills the last places is free (texts that differ only in numbers tie under the
    local model, and copies of one text in several namespaces tie too)."""

    def scores(results: Sequence[SearchItem]) -> list[float]:
        return [round(r.score or 0.0, 4) for r in results]

    return scores(answer) == scores(reference)


def same_namespaces(answer: Any, reference: Any) -> bool:
    return sorted(map(tuple, answer)) == sorted(map(tuple, reference))


def ignored(answer: Any, reference: Any) -> bool:
    return True


@dataclass(frozen=True)
class Workload:
    """One operation. `run(store, r)` does run number `r`; `reference` gives the
    InMemoryStore call whose answer `check` compares with (None: nothing to compare)."""

    name: str
    run: Callable[[BaseStore, int], Any]
    check: Check = ignored
    reference: Callable[[BaseStore], Any] | None = None
    repeats: int | None = None  # fewer runs for the slow ones
    on: str = "main"  # "ttl": the store built with a refresh-on-read TTL; "curves" table


def _abatch(store: BaseStore, ops: list[Any]) -> Any:
    return asyncio.run(store.abatch(ops))


def workloads(users: int, items: int, fan: int, batch: int, heavy_repeats: int) -> list[Workload]:
    """The workloads of the results table (stream mode is measured separately) on
    `users` namespaces of `items` items per tenant; `fan`: the largest ("fan",) prefix;
    `batch`: ops per `abatch` (at most `items` for gets)."""
    filter_ = {"i": {"$gte": items - 5}}
    some = key(min(42, items - 1))
    gets = [GetOp(USER_NS, key(i)) for i in range(min(batch, items))]
    semantic_prefix = fan_prefix(fan)
    return [
        Workload("put (write mode)", lambda s, r: s.put(WRITES_NS, f"new-{r}", value(r))),
        Workload(
            "get",
            lambda s, r: s.get(USER_NS, some),
            same_value,
            lambda ref: ref.get(USER_NS, some),
        ),
        Workload(
            "search one namespace (limit 10)",
            lambda s, r: s.search(USER_NS, limit=10),
            page_of(10),
            lambda ref: ref.search(USER_NS, limit=1000),
        ),
        Workload(
            "filtered search one namespace",
            lambda s, r: s.search(USER_NS, filter=filter_, limit=10),
            page_of(10),
            lambda ref: ref.search(USER_NS, filter=filter_, limit=1000),
        ),
        Workload(
            f"filtered search under a prefix ({users} ns)",
            lambda s, r: s.search(PREFIX, filter=filter_, limit=10),
            page_of(10),
            lambda ref: ref.search(PREFIX, filter=filter_, limit=10_000),
        ),
        Workload(
            f"prefix search ({users} ns, limit 10)",
            lambda s, r: s.search(PREFIX, limit=10),
            page_of(10),
            lambda ref: ref.search(PREFIX, limit=10_000),
        ),
        Workload(
            "list_namespaces under ('memories',)",
            lambda s, r: s.list_namespaces(prefix=ALL_MEMORIES, limit=1000),
            same_namespaces,
            lambda ref: ref.list_namespaces(prefix=ALL_MEMORIES, limit=1000),
        ),
        Workload(
            "semantic search one namespace",
            lambda s, r: s.search(USER_NS, query=QUERY, limit=5),
            same_hits,
            lambda ref: ref.search(USER_NS, query=QUERY, limit=5),
        ),
        Workload(
            f"semantic search under a prefix ({fan} ns)",
            lambda s, r: s.search(semantic_prefix, query=QUERY, limit=5),
            same_hits,
            lambda ref: ref.search(semantic_prefix, query=QUERY, limit=5),
            on="curves",
        ),
        Workload(
            "TTL-refreshing get",
            lambda s, r: s.get(TTL_NS, key(3), refresh_ttl=True),
            same_value,
            lambda ref: ref.get(TTL_NS, key(3)),
            on="ttl",
        ),
        Workload(
            "TTL-refreshing search (10 items)",
            lambda s, r: s.search(TTL_NS, limit=10, refresh_ttl=True),
            page_of(10),
            lambda ref: ref.search(TTL_NS, limit=1000),
            on="ttl",
        ),
        Workload(
            f"abatch of {batch} puts",
            lambda s, r: _abatch(
                s, [PutOp(WRITES_NS, f"b{r}-{i}", value(i)) for i in range(batch)]
            ),
            repeats=heavy_repeats,
        ),
        Workload(
            f"abatch of {len(gets)} gets",
            lambda s, r: _abatch(s, gets),
            lambda a, b: len(a) == len(b) and all(map(same_value, a, b)),
            lambda ref: ref.batch(gets),
        ),
    ]
