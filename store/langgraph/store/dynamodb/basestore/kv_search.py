"""Search without a query: items under a namespace prefix, filtered, newest first.

Each namespace is read newest first from the recency index (`items.recency`), starting
with a page of `offset + limit` entries; a prefix merges the namespaces below it (a lazy
k-way merge, bounded by `max_fanout`), so an unfiltered page reads each namespace once and
a filtered search still fills `limit` from the newest matches. The registry lookup runs
concurrently with the read of the prefix's own namespace: searching one namespace is one
round trip.

Order: `updated_at` descending, then item key descending, then namespace descending
(the `recency` sort key and the partition key, compared as strings).
"""

from __future__ import annotations

import heapq
from typing import Any

from langgraph.store.base import SearchOp
from langgraph.store.dynamodb.items.recency import Newest
from langgraph.store.dynamodb.items.registry import Registry
from langgraph.store.dynamodb.items.rows import row_matches
from langgraph.store.dynamodb.table import dynamo
from langgraph.store.dynamodb.table.keys import Namespace, validate_namespace
from langgraph.store.dynamodb.table.schema import PK, RECENCY
from langgraph.store.dynamodb.table.ttl import is_expired

# Rows read per first Query of a namespace when a filter decides which rows count.
FILTER_PAGE = 100


def search_rows(
    client: Any,
    table: str,
    registry: Registry,
    op: SearchOp,
    *,
    consistent: bool,
    omit_expired_at: float | None,
    max_fanout: int,
) -> list[dict[str, Any]]:
    """The rows of page `offset:offset+limit` of the matches under `op.namespace_prefix`."""
    if op.limit <= 0:
        return []
    need = op.offset + op.limit
    # Expired rows are rare and skipped as met; a filter may reject many, so read more.
    page = max(need, FILTER_PAGE) if op.filter else need

    def newest(namespace: Namespace) -> Newest:
        return Newest(client, table, namespace, consistent=consistent, page=page)

    prefix = op.namespace_prefix
    own = newest(prefix) if _is_namespace(prefix) else None
    if own is None:
        namespaces = registry.candidates(prefix)
    else:
        _, namespaces = dynamo.both(own.prime, lambda: registry.candidates(prefix))
    if len(namespaces) > max_fanout:
        raise ValueError(
            f"Search under {prefix!r} covers {len(namespaces)} namespaces, more than "
            f"max_fanout={max_fanout}. Search a narrower prefix or raise "
            "DynamoDBStore(max_fanout=...)."
        )
    readers = [own if own and ns == prefix else newest(ns) for ns in namespaces]
    dynamo.parallel_map(Newest.prime, readers)
    found: list[dict[str, Any]] = []
    for row in heapq.merge(*readers, key=_order, reverse=True):
        if omit_expired_at is not None and is_expired(row, omit_expired_at):
            continue
        if not row_matches(row, op.filter):
            continue
        found.append(row)
        if len(found) >= need:
            break
    return found[op.offset :]


def _order(row: dict[str, Any]) -> tuple[str, str]:
    return row[RECENCY], row[PK]


def _is_namespace(prefix: Namespace) -> bool:
    """Whether items can live under exactly this prefix (worth reading speculatively)."""
    try:
        validate_namespace(prefix)
    except ValueError:
        return False
    return True
