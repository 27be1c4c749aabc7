"""Search without a query: items under a namespace prefix, filtered, in a stable order.

Namespaces come from the registry (one Query), then each partition is read in key order
until `offset + limit` matches are found, so a filtered search still fills `limit` and the
cost scales with the answer. Order: namespace (as a tuple), then key.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from langgraph.store.base import SearchOp

from . import dynamo
from .keys import ITEM_PREFIX, Namespace, encode_namespace
from .registry import Registry
from .rows import READ_NAMES, READ_PROJECTION, row_matches
from .ttl import is_expired

# Rows read per Query when a filter decides which rows count.
FILTER_PAGE = 100


def search_rows(
    client: Any,
    table: str,
    registry: Registry,
    op: SearchOp,
    *,
    consistent: bool,
    omit_expired_at: float | None,
) -> list[dict[str, Any]]:
    """The rows of page `offset:offset+limit` of the matches under `op.namespace_prefix`."""
    need = op.offset + op.limit
    if op.limit <= 0:
        return []
    found: list[dict[str, Any]] = []
    for namespace in sorted(registry.candidates(op.namespace_prefix)):
        # Expired rows are rare and skipped as met; a filter may reject many, so read more.
        page = max(need, FILTER_PAGE) if op.filter else need - len(found)
        for row in _partition(client, table, namespace, consistent=consistent, page=page):
            if omit_expired_at is not None and is_expired(row, omit_expired_at):
                continue
            if not row_matches(row, op.filter):
                continue
            found.append(row)
            if len(found) >= need:
                return found[op.offset :]
    return found[op.offset :]


def _partition(
    client: Any, table: str, namespace: Namespace, *, consistent: bool, page: int | None
) -> Iterator[dict[str, Any]]:
    kwargs: dict[str, Any] = {
        "TableName": table,
        "KeyConditionExpression": "PK = :pk AND begins_with(SK, :items)",
        "ProjectionExpression": READ_PROJECTION,
        "ExpressionAttributeNames": READ_NAMES,
        "ExpressionAttributeValues": {
            ":pk": {"S": encode_namespace(namespace)},
            ":items": {"S": ITEM_PREFIX},
        },
        "ConsistentRead": consistent,
    }
    if page is not None:
        kwargs["Limit"] = max(1, page)
    return dynamo.query(client, **kwargs)
