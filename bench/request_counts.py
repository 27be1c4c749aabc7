"""Requests per store operation, ours against the two peers, on the local emulation.

Every DynamoDB API call any client makes is counted at botocore's `_make_api_call` (bench
instrumentation only). Same data, same operations, same run for all three stores.

    python -m bench.request_counts [--tenants 20 --users 10 --items 5]
"""

from __future__ import annotations

import argparse
import os
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from botocore.client import BaseClient
from langgraph.store.base import BaseStore, PutOp, SearchItem
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.testing import LexicalEmbeddings, mock_aws
from langgraph.store.memory import InMemoryStore

DIMS = 64
ITEMS_READ = "items read"


def _items_read(response: dict[str, Any]) -> int:
    if "ScannedCount" in response:
        return int(response["ScannedCount"])
    if "Responses" in response:
        return sum(len(items) for items in response["Responses"].values())
    if "SearchResults" in response:
        return len(response["SearchResults"])
    return 1 if "Item" in response else 0


Factory = Callable[[dict[str, Any] | None], BaseStore]


class NewestFirstReference(InMemoryStore):
    """LangGraph's InMemoryStore answering a search without a query newest first, as
    PostgresStore, SqliteStore and ours do (InMemoryStore keeps insertion order)."""

    def search(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
    ) -> list[SearchItem]:
        if query is not None:
            return super().search(
                namespace_prefix, query=query, filter=filter, limit=limit, offset=offset
            )
        found = super().search(namespace_prefix, filter=filter, limit=1 << 30)
        found.sort(key=lambda item: item.updated_at, reverse=True)
        return found[offset : offset + limit]


@contextmanager
def counting() -> Iterator[Counter[str]]:
    """Count every AWS API call made while the block runs, and (under the key
    `ITEMS_READ`) the items DynamoDB had to read to answer them."""
    calls: Counter[str] = Counter()
    original = BaseClient._make_api_call

    def counted(self: BaseClient, operation: str, params: dict[str, Any]) -> Any:
        calls[operation] += 1
        response = original(self, operation, params)
        calls[ITEMS_READ] += _items_read(response)
        return response

    BaseClient._make_api_call = counted  # type: ignore[method-assign]
    try:
        yield calls
    finally:
        BaseClient._make_api_call = original  # type: ignore[method-assign]


def ours(index: dict[str, Any] | None) -> BaseStore:
    store = DynamoDBStore("ours", index=index)  # type: ignore[arg-type]
    store.setup()
    return store


def checkpoint_aws(index: dict[str, Any] | None) -> BaseStore:
    from langgraph_checkpoint_aws.store.dynamodb import DynamoDBStore as Peer

    store = Peer("peer-checkpoint-aws", index=index)
    store.setup()
    return store


def store_dynamodb(index: dict[str, Any] | None) -> BaseStore:
    from langgraph_store_dynamodb import DynamoDBStore as Peer

    return Peer("peer-store-dynamodb", index=index)  # type: ignore[arg-type]


STORES: dict[str, Factory] = {
    "ours": ours,
    "langgraph-checkpoint-aws": checkpoint_aws,
    "langgraph-store-dynamodb": store_dynamodb,
}


def scenario(store: BaseStore, tenants: int, users: int, items: int) -> dict[str, int | str]:
    """Fill the store (one put at a time, so "newest" is well defined), then count the
    requests of each operation."""
    ops = [
        PutOp(
            ("memories", f"t{t}", f"u{u}"),
            f"m{i}",
            {"text": f"note {i} of user {u} in tenant {t}", "i": i},
        )
        for t in range(tenants)
        for u in range(users)
        for i in range(items)
    ]
    for op in ops:
        store.batch([op])
    user_ns = ("memories", "t0", "u0")
    checks: dict[str, Callable[[], Any]] = {
        "put (new item)": lambda: store.put(user_ns, "new", {"text": "fresh note", "i": -1}),
        "put (overwrite)": lambda: store.put(user_ns, "new", {"text": "fresher note", "i": -1}),
        "get": lambda: store.get(user_ns, "m1"),
        "search one namespace": lambda: store.search(user_ns, limit=10),
        f"search prefix over {users} namespaces": lambda: store.search(
            ("memories", "t0"), limit=10
        ),
        "search with filter": lambda: store.search(
            ("memories", "t0"), filter={"i": {"$gte": items - 1}}, limit=5
        ),
        f"list_namespaces prefix ({users})": lambda: store.list_namespaces(
            prefix=("memories", "t0")
        ),
        f"list_namespaces all ({tenants * users})": lambda: store.list_namespaces(limit=1000),
        "semantic search one namespace": lambda: store.search(
            user_ns, query="note 3 of user 0 in tenant 0", limit=3
        ),
        f"semantic search prefix ({users})": lambda: store.search(
            ("memories", "t0"), query="note 3 of user 0 in tenant 0", limit=3
        ),
        "delete": lambda: store.delete(user_ns, "new"),
    }
    counts: dict[str, int | str] = {}
    for name, check in checks.items():
        with counting() as calls:
            try:
                counts[name + " answer"] = _normalize(check())
            except Exception as error:  # a peer that cannot do it: report, not crash
                counts[name] = f"error: {type(error).__name__}"
                continue
        read = calls.pop(ITEMS_READ, 0)
        counts[name] = sum(calls.values())
        counts[name + " calls"] = ", ".join(f"{k}={v}" for k, v in sorted(calls.items()))
        counts[name + " calls"] += f"; {read} items read"
        counts[name + " read"] = read
    return counts


def _normalize(result: Any) -> str:
    """Comparable form of an answer: which items (or namespaces), not their order; for
    semantic results the best hit and the count (ties below it may break either way)."""
    if isinstance(result, list) and result and getattr(result[0], "score", None) is not None:
        return repr((tuple(result[0].namespace), result[0].key, len(result)))
    if isinstance(result, list):
        keys = [(tuple(r.namespace), r.key) if hasattr(r, "key") else tuple(r) for r in result]
        return repr(sorted(keys))
    if result is not None and hasattr(result, "value"):
        return repr(result.value)
    return repr(result)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tenants", type=int, default=20)
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--items", type=int, default=5)
    args = parser.parse_args()
    os.environ["AWS_DEFAULT_REGION"] = "us-east-1"  # the mock brings fake credentials
    index = {"dims": DIMS, "embed": LexicalEmbeddings(dims=DIMS), "fields": ["text"]}
    results: dict[str, dict[str, int | str]] = {
        "reference": scenario(
            NewestFirstReference(index=index),  # type: ignore[arg-type]
            args.tenants,
            args.users,
            args.items,
        )
    }
    with mock_aws():
        for name, factory in STORES.items():
            try:
                store = factory(index)
            except Exception as error:
                print(f"{name}: could not be set up: {type(error).__name__}: {error}")
                continue
            results[name] = scenario(store, args.tenants, args.users, args.items)
    reference = results.pop("reference")
    operations = [k for k in results["ours"] if not k.endswith((" calls", " answer", " read"))]
    peers = [name for name in results if name != "ours"]

    def mark(counts: dict[str, int | str], op: str) -> str:
        answer = counts.get(op + " answer")
        return "" if answer is None or answer == reference.get(op + " answer") else " WRONG"

    for metric, suffix in (("Requests", ""), ("Items DynamoDB read", " read")):
        print(
            f"\n{metric} per operation ({args.tenants} tenants x {args.users} users x "
            f"{args.items} items; peers also as a ratio to ours)"
        )
        print(
            "(WRONG: the answer differs from LangGraph's InMemoryStore on the same data, "
            "with searches without a query answered newest first)"
        )
        print(f"{'operation':40} {'ours':>12} " + " ".join(f"{p:>26}" for p in peers))
        for op in operations:
            mine = results["ours"].get(op + suffix, results["ours"][op])
            row = f"{op:40} {str(mine) + mark(results['ours'], op):>12} "
            for peer in peers:
                theirs = results[peer].get(op + suffix, results[peer].get(op, "-"))
                ratio = (
                    f" ({theirs / mine:.1f}x)"
                    if isinstance(theirs, int) and isinstance(mine, int) and mine
                    else ""
                )
                row += f"{str(theirs) + ratio + mark(results[peer], op):>26} "
            print(row)
    for name, counts in results.items():
        print(f"\nCalls by API ({name}):")
        for op in operations:
            print(f"  {op}: {counts.get(op + ' calls', counts.get(op, ''))}")


if __name__ == "__main__":
    main()
