"""Move a table's memories into a new table, e.g. one created before the recency index.

DynamoDB creates a local secondary index only with its table, so a table set up before
the recency index existed cannot gain it: create a new table with `setup()` and copy.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from langgraph.store.dynamodb.table import dynamo
from langgraph.store.dynamodb.table.keys import (
    group_of,
    item_key_of,
    namespace_of_registry_key,
    recency_sort_key,
    registry_partition,
    registry_sort_key,
)
from langgraph.store.dynamodb.table.schema import (
    GROUPS_PK,
    ITEM_PREFIX,
    LEGACY_REGISTRY_PK,
    PK,
    RECENCY,
    REGISTERED_AT,
    SK,
    UPDATED_AT,
)


def copy_table(client: Any, source: str, target: str) -> int:
    """Copy every row of `source` into `target`, a table set up by `DynamoDBStore.setup()`
    (with the same `index` configuration, if any). Item rows that lack the recency sort key
    gain it from their `updated_at`; everything else (timestamps, TTL, vectors, registry
    and metadata rows) is copied as is (registry rows of earlier versions move to their
    group's partition), so the new table answers exactly as the old one,
    newest first. Stop writers to `source` first: a write during the copy may be missed.
    Safe to run again (rows are overwritten with the same content). Returns the rows
    copied."""
    copied = 0
    batch: list[dict[str, Any]] = []
    groups: set[str] = set()
    for row in _scan(client, source):
        if row[SK].startswith(ITEM_PREFIX) and RECENCY not in row:
            stamp = datetime.fromisoformat(row[UPDATED_AT]).isoformat(timespec="microseconds")
            row[RECENCY] = recency_sort_key(stamp, item_key_of(row[SK]))
        for moved in _regroup(row, groups):
            batch.append({"PutRequest": {"Item": moved}})
        if len(batch) >= dynamo.BATCH_WRITE_LIMIT * dynamo.MAX_WORKERS:
            dynamo.batch_write(client, target, batch)
            copied += len(batch)
            batch = []
    dynamo.batch_write(client, target, batch)
    return copied + len(batch)


def _regroup(row: dict[str, Any], groups: set[str]) -> list[dict[str, Any]]:
    """A row as the target keeps it: rows of the single registry partition of earlier
    versions move to their group's partition, after their group's row (once)."""
    if row[PK] != LEGACY_REGISTRY_PK:
        return [row]
    namespace = namespace_of_registry_key(row[SK])
    rows = [{**row, PK: registry_partition(namespace)}]
    group = registry_sort_key(group_of(namespace))
    if group not in groups:
        groups.add(group)
        rows.insert(0, {PK: GROUPS_PK, SK: group, REGISTERED_AT: row.get(REGISTERED_AT, 0)})
    return rows


def _scan(client: Any, table: str) -> Iterator[dict[str, Any]]:
    kwargs: dict[str, Any] = {"TableName": table, "ConsistentRead": True}
    while True:
        response = client.scan(**kwargs)
        for item in response.get("Items", []):
            yield dynamo.deserialize(item)
        last = response.get("LastEvaluatedKey")
        if not last:
            return
        kwargs["ExclusiveStartKey"] = last
