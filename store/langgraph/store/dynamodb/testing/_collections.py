"""Local secondary index limits DynamoDB enforces and moto 5.2.5 does not.

On a table with local secondary indexes (LSIs):
- an LSI sort key value is at most 1024 bytes, like the table's (moto checks only GSI
  and table keys);
- an item plus its entries in every LSI must fit in 400 KB ("Item size has exceeded the
  maximum allowed size");
- an item collection (every row sharing a partition key value, plus their LSI entries)
  may not grow past 10 GB (``ItemCollectionSizeLimitExceededException``; the limit is
  ``EmulatorSettings.item_collection_size_limit`` so tests can reach it). Writes that
  keep or shrink a full collection still succeed.

Sizes follow DynamoDB's rules: attribute names plus values, and 100 bytes of overhead per
table row and per index entry in the collection. Rows without an LSI's sort key are not in
that index (sparse).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.store.dynamodb.testing._errors import ItemCollectionSizeLimitExceeded
from langgraph.store.dynamodb.testing._settings import current_settings
from moto.dynamodb.exceptions import ItemSizeTooLarge, RangeKeyTooLong
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import Table
from moto.dynamodb.models.utilities import bytesize

MAX_ITEM_BYTES = 400 * 1024
MAX_SORT_KEY_BYTES = 1024
OVERHEAD_BYTES = 100

__all__ = ["check_write", "forget", "note_write"]

Attributes = Mapping[str, DynamoType]


def _size(attributes: Attributes, names: Any = None) -> int:
    return sum(
        bytesize(name) + value.size()
        for name, value in attributes.items()
        if names is None or name in names
    )


def _entry_sizes(table: Table, attributes: Attributes) -> list[int]:
    """The size of the item's entry in each LSI that holds it."""
    table_keys = {table.hash_key_attr, table.range_key_attr}
    sizes = []
    for index in table.indexes:
        keys = table_keys | {k["AttributeName"] for k in index.schema}
        if not all(name in attributes for name in keys):
            continue
        projection = index.projection or {}
        kind = projection.get("ProjectionType", "ALL")
        if kind == "ALL":
            sizes.append(_size(attributes))
        elif kind == "INCLUDE":
            sizes.append(_size(attributes, keys | set(projection.get("NonKeyAttributes", []))))
        else:
            sizes.append(_size(attributes, keys))
    return sizes


def _footprint(table: Table, attributes: Attributes | None) -> int:
    """Bytes a row adds to its item collection."""
    if attributes is None:
        return 0
    entries = _entry_sizes(table, attributes)
    return _size(attributes) + sum(entries) + OVERHEAD_BYTES * (1 + len(entries))


def check_write(
    table: Table,
    hash_key: DynamoType,
    old: Attributes | None,
    new: Attributes,
    *,
    applied: bool = False,
) -> None:
    """Raise as DynamoDB would when writing `new` over `old` breaks an LSI limit (`applied`:
    the table already holds `new`, and the caller rolls it back on error). O(1) for the
    item-collection limit: the collection's size is kept running (`note_write`)."""
    if not table.indexes:
        return
    for index in table.indexes:
        for key in index.schema:
            value = new.get(key["AttributeName"])
            if key["KeyType"] == "RANGE" and value and value.size() > MAX_SORT_KEY_BYTES:
                raise RangeKeyTooLong()
    if _size(new) + sum(_entry_sizes(table, new)) > MAX_ITEM_BYTES:
        raise ItemSizeTooLarge()
    growth = _footprint(table, new) - _footprint(table, old)
    if growth <= 0:
        return
    before = _collection_bytes(table, hash_key, old, new, applied=applied)
    if before + growth > current_settings().item_collection_size_limit:
        raise ItemCollectionSizeLimitExceeded()


# Per table: hash key -> (rows, bytes) of its item collection, kept by `note_write`.
_RUNNING = "_emulated_collection_bytes"


def _running(table: Table) -> dict[DynamoType, tuple[int, int]]:
    found: dict[DynamoType, tuple[int, int]] = table.__dict__.setdefault(_RUNNING, {})
    return found


def _rows(table: Table, hash_key: DynamoType) -> int:
    return len(table.items.get(hash_key, {})) if table.range_key_attr else 0


def _collection_bytes(
    table: Table, hash_key: DynamoType, old: Attributes | None, new: Attributes, *, applied: bool
) -> int:
    """The collection's size before this write: the running figure, or (first use, or a
    row count that disagrees with it) the sum over its rows, once."""
    rows = _rows(table, hash_key) - (1 if applied and old is None else 0)
    known = _running(table).get(hash_key)
    if known is not None and known[0] == rows:
        return known[1]
    held = table.items.get(hash_key, {}) if table.range_key_attr else {}
    total = sum(_footprint(table, row.attrs) for row in held.values())
    if applied:
        total -= _footprint(table, new) - _footprint(table, old)
    _running(table)[hash_key] = (rows, total)
    return total


def note_write(
    table: Table, hash_key: DynamoType, old: Attributes | None, new: Attributes | None
) -> None:
    """Keep the running size exact after a write replaced `old` by `new` (None: absent).
    A figure that no longer matches the collection's row count is dropped (recomputed on
    next use), so a write through a path that does not call this cannot leave it wrong."""
    if not table.indexes or not table.range_key_attr:
        return
    running = _running(table)
    known = running.get(hash_key)
    if known is None:
        return
    rows = _rows(table, hash_key)
    if known[0] != rows - (new is not None) + (old is not None):
        del running[hash_key]
        return
    running[hash_key] = (rows, known[1] + _footprint(table, new) - _footprint(table, old))


def forget(table: Table, hash_key: DynamoType) -> None:
    """Drop the collection's running size (a rollback changed its rows): the next write
    that needs it sums the collection once."""
    _running(table).pop(hash_key, None)


def attributes_of(raw: Mapping[str, Any]) -> dict[str, DynamoType]:
    """Request attributes (``{"S": ...}``) as moto's typed values."""
    return {name: DynamoType(value) for name, value in raw.items()}
