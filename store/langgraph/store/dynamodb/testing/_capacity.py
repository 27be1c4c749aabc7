"""Consumed capacity as DynamoDB reports it, for the item operations the store uses.

moto 5.2.5 answers with fixed numbers (a write of any size 1 unit, an UpdateItem 0.5),
reports capacity for UpdateItem and BatchWriteItem even when not asked, counts a
BatchWriteItem as 1 unit whatever its size, and answers a BatchGetItem asking for `TOTAL`
with one object instead of a list per table. Here the answer follows DynamoDB's documented
rules (on-demand, "Read/write capacity unit consumption" and "Local secondary indexes:
provisioned throughput considerations"):

- only when `ReturnConsumedCapacity` is `TOTAL` or `INDEXES` (`INDEXES` adds `Table` and
  `LocalSecondaryIndexes`); a list per table for the batch operations;
- reads: a GetItem rounds its item up to 4 KB (1 unit, 0.5 eventually consistent; a
  missing item still costs the minimum), a BatchGetItem each item on its own, a Query the
  total size of the entries it evaluated (before any filter; index entries on an index);
- writes: the larger of the item's size before and after, rounded up to 1 KB; a local
  secondary index adds one write of its entry (1 KB units) when an item enters, leaves or
  changes in it, two when the item's index key changes (delete and put);
- a TransactWriteItems: each Put, Update and Delete as such a write, twice ("transactions
  consume two write units per 1 KB"), summed per table.

Not emulated: writes' `VectorWriteRequestBytes` (their formula is not published), the
capacity a refused conditional write (or cancelled transaction) consumes (DynamoDB's error
does not report it either), a transaction's ConditionCheck.
"""

from __future__ import annotations

import functools
import inspect
import math
import threading
from collections.abc import Callable, Mapping
from typing import Any

from langgraph.store.dynamodb.table.values import attribute_size
from moto.core.responses import ActionResult
from moto.dynamodb.models.table import Table
from moto.dynamodb.responses import DynamoHandler

READ_UNIT = 4096
WRITE_UNIT = 1024
ASKED = ("TOTAL", "INDEXES")
_query_scan = threading.local()

Wire = dict[str, Any]


def _size(attributes: Mapping[str, Any] | None) -> int:
    if not attributes:
        return 0
    return sum(len(name.encode()) + attribute_size(value) for name, value in attributes.items())


def _read_units(size: int, consistent: bool) -> float:
    units = max(1, math.ceil(size / READ_UNIT))
    return float(units) if consistent else units / 2


def _stored(handler: DynamoHandler, table: Table, key: Wire) -> Wire | None:
    """The stored item (wire attributes) under `key`, or None."""
    hk, rk = handler.dynamodb_backend.get_keys_value(table, key)
    item = table.get_item(hk, rk)
    return None if item is None else dict(item.to_json()["Attributes"])


def _key_of(table: Table, item: Wire) -> Wire:
    names = [table.hash_key_attr] + ([table.range_key_attr] if table.range_key_attr else [])
    return {name: item[name] for name in names}


def _entry(table: Table, index: Any, item: Wire | None) -> Wire | None:
    """A local secondary index's entry for an item (None when the item is not in it)."""
    if item is None or any(name not in item for name in index.schema_key_attrs):
        return None
    projection = index.projection or {}
    kind = projection.get("ProjectionType", "ALL")
    if kind == "ALL":
        return item
    keep = set(index.table_key_attrs) | set(index.schema_key_attrs)
    if kind == "INCLUDE":
        keep |= set(projection.get("NonKeyAttributes") or [])
    return {name: value for name, value in item.items() if name in keep}


def _write_units(
    table: Table, old: Wire | None, new: Wire | None
) -> tuple[float, dict[str, float]]:
    """(table units, units per local secondary index) of one write from `old` to `new`."""
    base = float(max(1, math.ceil(max(_size(old), _size(new)) / WRITE_UNIT)))
    per_index: dict[str, float] = {}
    for index in table.indexes or []:
        before, after = _entry(table, index, old), _entry(table, index, new)
        units = 0
        if before is not None and after is not None:
            moved = any(before[k] != after[k] for k in index.schema_key_attrs)
            if moved:
                units = math.ceil(_size(before) / WRITE_UNIT) + math.ceil(_size(after) / WRITE_UNIT)
            elif before != after:
                units = math.ceil(_size(after) / WRITE_UNIT)
        elif before is not None or after is not None:
            units = math.ceil(_size(before or after) / WRITE_UNIT)
        if units:
            per_index[index.name] = per_index.get(index.name, 0.0) + units
    return base, per_index


def _capacity(
    table: str, asked: str, base: float, per_index: Mapping[str, float], index_read: bool = False
) -> Wire:
    total = base + sum(per_index.values())
    capacity: Wire = {"TableName": table, "CapacityUnits": total}
    if asked == "INDEXES":
        if not index_read:
            capacity["Table"] = {"CapacityUnits": base}
        if per_index:
            capacity["LocalSecondaryIndexes"] = {
                name: {"CapacityUnits": units} for name, units in per_index.items()
            }
    return capacity


def _answer(result: ActionResult, capacity: Wire | list[Wire] | None) -> ActionResult:
    body: dict[str, Any] = result.result  # type: ignore[assignment]
    body.pop("ConsumedCapacity", None)
    body.pop("ConsumedCapacityUnits", None)
    if capacity is not None:
        body["ConsumedCapacity"] = capacity
    return result


Before = list[tuple[str, Table, Wire, Wire | None]]


def _summed(handler: DynamoHandler, asked: str, before: Before, factor: int) -> list[Wire]:
    """The capacity of several writes (each key's item `before` them against now), summed
    per table, each write counted `factor` times (a transaction's: twice)."""
    totals: dict[str, tuple[float, dict[str, float]]] = {}
    for name, table, key, old in before:
        base, per_index = _write_units(table, old, _stored(handler, table, key))
        sum_base, sum_index = totals.get(name, (0.0, {}))
        for index, units in per_index.items():
            sum_index[index] = sum_index.get(index, 0.0) + factor * units
        totals[name] = (sum_base + factor * base, sum_index)
    return [_capacity(name, asked, base, index) for name, (base, index) in totals.items()]


def single_write(original: Callable[[DynamoHandler], ActionResult]) -> Any:
    """PutItem, UpdateItem, DeleteItem: capacity from the item before and after."""

    def action(self: DynamoHandler) -> ActionResult:
        asked = self.body.get("ReturnConsumedCapacity")
        if asked not in ASKED:
            return _answer(original(self), None)
        name = self.body["TableName"]
        table = self.dynamodb_backend.get_table(name)
        key = self.body.get("Key") or _key_of(table, self.body["Item"])
        old = _stored(self, table, key)
        result = original(self)
        base, per_index = _write_units(table, old, _stored(self, table, key))
        return _answer(result, _capacity(name, asked, base, per_index))

    return action


def batch_write(original: Callable[[DynamoHandler], ActionResult]) -> Any:
    """BatchWriteItem: each request as its own write, summed per table."""

    def action(self: DynamoHandler) -> ActionResult:
        asked = self.body.get("ReturnConsumedCapacity")
        if asked not in ASKED:
            return _answer(original(self), None)
        before: Before = []
        for name, requests in self.body["RequestItems"].items():
            table = self.dynamodb_backend.get_table(name)
            for request in requests:
                put = request.get("PutRequest")
                key = _key_of(table, put["Item"]) if put else request["DeleteRequest"]["Key"]
                before.append((name, table, key, _stored(self, table, key)))
        result = original(self)
        return _answer(result, _summed(self, asked, before, factor=1))

    return action


def transact_write(original: Callable[[DynamoHandler], ActionResult]) -> Any:
    """TransactWriteItems: each Put, Update and Delete as its own write, doubled."""

    def action(self: DynamoHandler) -> ActionResult:
        asked = self.body.get("ReturnConsumedCapacity")
        if asked not in ASKED:
            return _answer(original(self), None)
        before: Before = []
        for item in self.body["TransactItems"]:
            for kind, operation in item.items():
                if kind == "ConditionCheck":
                    continue
                name = operation["TableName"]
                table = self.dynamodb_backend.get_table(name)
                key = operation.get("Key") or _key_of(table, operation["Item"])
                before.append((name, table, key, _stored(self, table, key)))
        result = original(self)
        return _answer(result, _summed(self, asked, before, factor=2))

    return action


def get_item(original: Callable[[DynamoHandler], ActionResult]) -> Any:
    """GetItem: the whole item rounded up to 4 KB, whatever the projection."""

    def action(self: DynamoHandler) -> ActionResult:
        asked = self.body.get("ReturnConsumedCapacity")
        result = original(self)
        if asked not in ASKED:
            return _answer(result, None)
        name = self.body["TableName"]
        table = self.dynamodb_backend.get_table(name)
        size = _size(_stored(self, table, self.body["Key"]))
        units = _read_units(size, bool(self.body.get("ConsistentRead")))
        return _answer(result, _capacity(name, asked, units, {}))

    return action


def batch_get(original: Callable[[DynamoHandler], ActionResult]) -> Any:
    """BatchGetItem: each item rounded up to 4 KB on its own, summed per table."""

    def action(self: DynamoHandler) -> ActionResult:
        asked = self.body.get("ReturnConsumedCapacity")
        result = original(self)
        if asked not in ASKED:
            return _answer(result, None)
        capacities: list[Wire] = []
        for name, request in self.body["RequestItems"].items():
            table = self.dynamodb_backend.get_table(name)
            consistent = bool(request.get("ConsistentRead"))
            units = sum(
                _read_units(_size(_stored(self, table, key)), consistent) for key in request["Keys"]
            )
            capacities.append(_capacity(name, asked, units, {}))
        return _answer(result, capacities)

    return action


def query(original: Callable[[DynamoHandler], ActionResult]) -> Any:
    """Query: the entries it evaluated (measured by `measured_query`), rounded up to 4 KB
    together."""

    def action(self: DynamoHandler) -> ActionResult:
        asked = self.body.get("ReturnConsumedCapacity")
        if asked not in ASKED:
            return _answer(original(self), None)
        _query_scan.size = 0
        _query_scan.on = True
        try:
            result = original(self)
        finally:
            _query_scan.on = False
        units = _read_units(_query_scan.size, bool(self.body.get("ConsistentRead")))
        index = self.body.get("IndexName")
        per_index = {index: units} if index else {}
        return _answer(
            result,
            _capacity(
                self.body["TableName"], asked, 0.0 if index else units, per_index, bool(index)
            ),
        )

    return action


def measured_query(original: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap `Table.query`: while a Query asking for capacity runs on this thread, measure
    the entries it evaluates (the same page without its filter and projection)."""
    signature = inspect.signature(original)

    def table_query(self: Table, *args: Any, **kwargs: Any) -> Any:
        answer = original(self, *args, **kwargs)
        if getattr(_query_scan, "on", False):
            bound = signature.bind(self, *args, **kwargs)
            bound.arguments["projection_expressions"] = None
            bound.arguments["filter_expression"] = None
            items, _, _ = original(*bound.args, **bound.kwargs)
            _query_scan.size = sum(_size(item.to_json()["Attributes"]) for item in items)
        return answer

    functools.update_wrapper(table_query, original)  # its signature, for `partition_query`
    return table_query
