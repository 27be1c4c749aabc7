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


class _Measured:
    """One row's sizes, each attribute measured once: the row's, and its entry's in each
    LSI that holds it. An attribute whose value is the very object `like` measured (the
    row before an update shares the attributes the update left alone) takes its size."""

    def __init__(self, table: Table, attributes: Attributes, like: _Measured | None = None) -> None:
        known = like.attributes if like is not None else {}

        def measure(name: str, value: DynamoType) -> int:
            if like is not None and known.get(name) is value:
                return like.each[name]
            return bytesize(name) + value.size()

        each = {name: measure(name, value) for name, value in attributes.items()}
        self.attributes: Attributes = attributes
        self.each: dict[str, int] = each
        self.size = sum(each.values())
        table_keys = {table.hash_key_attr, table.range_key_attr}
        self.entries: list[int] = []
        for index in table.indexes:
            keys = table_keys | {k["AttributeName"] for k in index.schema}
            if not all(name in attributes for name in keys):
                continue
            projection = index.projection or {}
            kind = projection.get("ProjectionType", "ALL")
            if kind == "ALL":
                self.entries.append(self.size)
                continue
            if kind == "INCLUDE":
                keys = keys | set(projection.get("NonKeyAttributes", []))
            self.entries.append(sum(size for name, size in each.items() if name in keys))

    @property
    def footprint(self) -> int:
        """Bytes the row adds to its item collection."""
        return self.size + sum(self.entries) + OVERHEAD_BYTES * (1 + len(self.entries))


def _footprint(table: Table, attributes: Attributes | None) -> int:
    """Bytes a row adds to its item collection."""
    return 0 if attributes is None else _Measured(table, attributes).footprint


def check_write(
    table: Table,
    hash_key: DynamoType,
    old: Attributes | None,
    new: Attributes,
    *,
    applied: bool = False,
) -> int | None:
    """Raise as DynamoDB would when writing `new` over `old` breaks an LSI limit (`applied`:
    the table already holds `new`, and the caller rolls it back on error). O(1) for the
    item-collection limit: the collection's size is kept running (`note_write`). Returns
    how much the write grows the collection (None: the table has no LSI)."""
    if not table.indexes:
        return None
    for index in table.indexes:
        for key in index.schema:
            value = new.get(key["AttributeName"])
            if key["KeyType"] == "RANGE" and value and value.size() > MAX_SORT_KEY_BYTES:
                raise RangeKeyTooLong()
    measured = _Measured(table, new)
    if measured.size + sum(measured.entries) > MAX_ITEM_BYTES:
        raise ItemSizeTooLarge()
    growth = measured.footprint - (0 if old is None else _Measured(table, old, measured).footprint)
    if growth <= 0:
        return growth
    before = _collection_bytes(table, hash_key, growth, old is None, applied=applied)
    if before + growth > current_settings().item_collection_size_limit:
        raise ItemCollectionSizeLimitExceeded()
    return growth


# Per table: hash key -> (rows, bytes) of its item collection, kept by `note_write`.
_RUNNING = "_emulated_collection_bytes"


def _running(table: Table) -> dict[DynamoType, tuple[int, int]]:
    found: dict[DynamoType, tuple[int, int]] = table.__dict__.setdefault(_RUNNING, {})
    return found


def _rows(table: Table, hash_key: DynamoType) -> int:
    return len(table.items.get(hash_key, {})) if table.range_key_attr else 0


def _collection_bytes(
    table: Table, hash_key: DynamoType, growth: int, added: bool, *, applied: bool
) -> int:
    """The collection's size before a write that grows it by `growth` (`added`: a new
    row): the running figure, or (first use, or a row count that disagrees with it) the
    sum over its rows, once."""
    rows = _rows(table, hash_key) - (1 if applied and added else 0)
    known = _running(table).get(hash_key)
    if known is not None and known[0] == rows:
        return known[1]
    held = table.items.get(hash_key, {}) if table.range_key_attr else {}
    total = sum(_footprint(table, row.attrs) for row in held.values())
    if applied:
        total -= growth
    _running(table)[hash_key] = (rows, total)
    return total


def note_write(
    table: Table,
    hash_key: DynamoType,
    old: Attributes | None,
    new: Attributes | None,
    growth: int | None = None,
) -> None:
    """Keep the running size exact after a write replaced `old` by `new` (None: absent),
    which grew the collection by `growth` (measured again when not given). A figure that
    no longer matches the collection's row count is dropped (recomputed on next use), so a
    write through a path that does not call this cannot leave it wrong."""
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
    if growth is None:
        growth = _footprint(table, new) - _footprint(table, old)
    running[hash_key] = (rows, known[1] + growth)


def forget(table: Table, hash_key: DynamoType) -> None:
    """Drop the collection's running size (a rollback changed its rows): the next write
    that needs it sums the collection once."""
    _running(table).pop(hash_key, None)


def attributes_of(raw: Mapping[str, Any]) -> dict[str, DynamoType]:
    """Request attributes (``{"S": ...}``) as moto's typed values."""
    return {name: DynamoType(value) for name, value in raw.items()}
