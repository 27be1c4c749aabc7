"""Query in O(page): moto filters every item of the table on each Query.

moto keeps a table's items as ``items[hash_key][range_key]`` yet answers a Query by walking
``all_items()`` and sorting the matches, so a Query of a 20-item partition costs time in
proportion to the whole table. While a Query whose partition is known (the table's own key,
or a local secondary index, which shares it) runs, ``all_items()`` on that table answers
with that partition only. The scope is per thread, so concurrent requests never see each
other's. moto's own matching, sorting, paging and projection run unchanged on it.

A Query on the table's own string sort key reads even less: the rows its key condition,
`ExclusiveStartKey`, direction and `Limit` can reach (one past the limit, so moto pages
as it would), found by bisection in the partition's sorted keys. The sorted keys are
kept per partition and updated by the keys added or removed since the last Query, so a
page of a thread of 3,000 checkpoints costs what a page of one of 30 does (moto sorted
and compared every row of the partition on every Query: a turn of a long thread slowed
with its length).
"""

from __future__ import annotations

import bisect
import inspect
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from moto.dynamodb.models.dynamo_type import DynamoType, Item
from moto.dynamodb.models.table import Table

_scope = threading.local()


def partition_query(original: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap ``Table.query`` so it reads only the queried partition."""

    signature = inspect.signature(original)

    def query(self: Table, hash_key: DynamoType | None, *args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(self, hash_key, *args, **kwargs).arguments
        value = _partition_value(self, hash_key, bound)
        if value is None:
            return original(self, hash_key, *args, **kwargs)
        previous = getattr(_scope, "partition", None)
        _scope.partition = (self, value, _reach(self, bound))
        try:
            return original(self, hash_key, *args, **kwargs)
        finally:
            _scope.partition = previous

    return query


def scoped_all_items(original: Callable[[Table], list[Item]]) -> Callable[[Table], list[Item]]:
    """Wrap ``Table.all_items`` to honour the scope a running Query set on this thread."""

    def all_items(self: Table) -> list[Item]:
        scope = getattr(_scope, "partition", None)
        if scope is None or scope[0] is not self:
            return original(self)
        partition = self.items.get(scope[1])  # .get: items is a defaultdict
        if partition is None:
            return []
        if not self.range_key_attr:
            return [partition]
        rows = (
            list(partition.values())
            if scope[2] is None
            else _within(self, scope[1], partition, scope[2])
        )
        _scope.examined = len(rows)  # what moto then sorts and compares
        return rows

    return all_items


def _partition_value(table: Table, hash_key: DynamoType | None, bound: Any) -> Any:
    index_name = bound.get("index_name")
    if not index_name:
        return hash_key
    local = {ix.name for ix in table.indexes}
    if index_name not in local:
        return None  # a global index is keyed by other attributes: moto's own walk
    for name, value in bound.get("hash_key_conditions") or []:
        if name == table.hash_key_attr:
            return value
    return None


# A key condition's bounds on the sort key: (lowest, highest, prefix), None where open.
_KEYS = "_emulated_sorted_keys"


@dataclass
class _Reach:
    """What of a partition a Query on the table's sort key can read."""

    low: str | None
    low_open: bool
    high: str | None
    high_open: bool
    prefix: str | None
    after: str | None  # ExclusiveStartKey's sort key
    forward: bool
    limit: int | None


@dataclass
class _Sorted:
    """A partition's sort keys (strings) in order, and the key objects they came from."""

    ids: list[int] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    objects: dict[str, Any] = field(default_factory=dict)


def _reach(table: Table, bound: Any) -> _Reach | None:
    """The reach of a Query on the table's own string sort key (None for any other)."""
    if bound.get("index_name") or bound.get("filter_kwargs") or not table.range_key_attr:
        return None
    comparison = bound.get("range_comparison")
    values = [o.value for o in bound.get("range_objs") or [] if isinstance(o, DynamoType)]
    if any(not isinstance(o, DynamoType) or o.type != "S" for o in bound.get("range_objs") or []):
        return None
    start = bound.get("exclusive_start_key") or {}
    after = start.get(table.range_key_attr)
    if after is not None and "S" not in after:
        return None
    reach = _Reach(
        None,
        False,
        None,
        False,
        None,
        after["S"] if after else None,
        bound.get("scan_index_forward") is not False,
        bound.get("limit"),
    )
    if comparison is None:
        return reach
    ranges = {
        "EQ": (0, False, 0, False),
        "LE": (None, False, 0, False),
        "LT": (None, False, 0, True),
        "GE": (0, False, None, False),
        "GT": (0, True, None, False),
        "BETWEEN": (0, False, 1, False),
    }
    if comparison == "BEGINS_WITH":
        reach.prefix = values[0]
        return reach
    if comparison not in ranges:
        return None
    low, reach.low_open, high, reach.high_open = ranges[comparison]
    reach.low = values[low] if low is not None else None
    reach.high = values[high] if high is not None else None
    return reach


def _sorted(table: Table, hash_key: Any, partition: dict[Any, Any]) -> _Sorted | None:
    """The partition's sorted keys, updated by what changed since last asked (None when a
    sort key is not a string: moto's own walk)."""
    held: dict[Any, _Sorted] = table.__dict__.setdefault(_KEYS, {})
    known = held.get(hash_key) or _Sorted()
    ids = list(map(id, partition))
    if ids == known.ids:
        return known
    now = {id(k): k for k in partition}
    gone = set(known.ids) - now.keys()
    added = [now[i] for i in now.keys() - set(known.ids)]
    if any(k.type != "S" for k in added):
        return None
    if gone:
        dropped = {raw for raw, obj in known.objects.items() if id(obj) in gone}
        known.keys = [raw for raw in known.keys if raw not in dropped]
        for raw in dropped:
            del known.objects[raw]
    for key in added:
        bisect.insort(known.keys, key.value)
        known.objects[key.value] = key
    known.ids = ids
    held[hash_key] = known
    return known


def _within(table: Table, hash_key: Any, partition: dict[Any, Any], reach: _Reach) -> list[Any]:
    """The rows of `partition` the Query can reach (one past its limit)."""
    found = _sorted(table, hash_key, partition)
    if found is None:
        return list(partition.values())
    keys = found.keys
    prefix = reach.prefix
    if prefix is not None:
        lo = bisect.bisect_left(keys, prefix)
        hi = bisect.bisect_left(keys, True, lo=lo, key=lambda k: not k.startswith(prefix))
    else:
        lo = (
            0
            if reach.low is None
            else (
                bisect.bisect_right(keys, reach.low)
                if reach.low_open
                else bisect.bisect_left(keys, reach.low)
            )
        )
        hi = (
            len(keys)
            if reach.high is None
            else (
                bisect.bisect_left(keys, reach.high)
                if reach.high_open
                else bisect.bisect_right(keys, reach.high)
            )
        )
    if reach.after is not None:
        if reach.forward:
            lo = max(lo, bisect.bisect_right(keys, reach.after))
        else:
            hi = min(hi, bisect.bisect_left(keys, reach.after))
    if reach.limit is not None and hi - lo > reach.limit + 1:
        lo, hi = (lo, lo + reach.limit + 1) if reach.forward else (hi - reach.limit - 1, hi)
    return [partition[found.objects[k]] for k in keys[lo:hi]]
