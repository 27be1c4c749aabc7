"""Move a table's memories into a new table, e.g. one created before the recency index.

DynamoDB creates a local secondary index only with its table, so a table set up before
the recency index existed cannot gain it: create a new table with `setup()` and copy.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from . import dynamo
from .keys import ITEM_PREFIX, RECENCY, SK, item_key_of, recency_sort_key
from .rows import UPDATED_AT


def copy_table(client: Any, source: str, target: str) -> int:
    """Copy every row of `source` into `target`, a table set up by `DynamoDBStore.setup()`
    (with the same `index` configuration, if any). Item rows that lack the recency sort key
    gain it from their `updated_at`; everything else (timestamps, TTL, vectors, registry
    and metadata rows) is copied as is, so the new table answers exactly as the old one,
    newest first. Stop writers to `source` first: a write during the copy may be missed.
    Safe to run again (rows are overwritten with the same content). Returns the rows
    copied."""
    copied = 0
    batch: list[dict[str, Any]] = []
    for row in _scan(client, source):
        if row[SK].startswith(ITEM_PREFIX) and RECENCY not in row:
            stamp = datetime.fromisoformat(row[UPDATED_AT]).isoformat(timespec="microseconds")
            row[RECENCY] = recency_sort_key(stamp, item_key_of(row[SK]))
        batch.append({"PutRequest": {"Item": row}})
        if len(batch) == dynamo.BATCH_WRITE_LIMIT * dynamo.MAX_WORKERS:
            dynamo.batch_write(client, target, batch)
            copied += len(batch)
            batch = []
    dynamo.batch_write(client, target, batch)
    return copied + len(batch)


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
