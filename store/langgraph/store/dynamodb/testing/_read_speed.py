"""Scan and projection without moto's per-item overheads; answers unchanged.

moto answers each page of a Scan by sorting every item of the table, deep-copies every
item it returns (a 1,024-number vector is 1,025 objects), and projects an item by turning
the whole of it into plain JSON once per projected path. A paginated Scan of a 20,000-item
table with vectors took minutes. The emulation changes only how much work that takes:

- the table's sorted item list is kept between calls and sorted again (by moto) only when
  an item was added, replaced or removed since: it is the same objects in the same order;
- while a Query or Scan runs on a thread, an item's copy gets its own attribute map but
  shares the attribute values, which moto only reads from there on (filters, projections
  and the response each build new objects) and which no other request can change meanwhile
  (every request holds the emulation's lock);
- while an UpdateItem runs, the copies of the item taken before it is changed (moto's, for
  the stream record, and the emulation's, to undo a refused update) deep-copy only the
  attributes its expression names (`copying_only`): it changes no other, and both copies
  are read before the next request (a writes row of 1,000 attributes updated 1,000 times
  was copied whole twice per update);
- a projection converts only the attributes its paths start from;
- the size of a list (moto sizes every item it scans, twice) adds its numbers' sizes
  inline instead of through two method calls per element.
"""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, cast

from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
from moto.dynamodb.models.table import Table

_reading = threading.local()
_updating = threading.local()
# Every name an update expression mentions: `#placeholders` and bare names (keywords and
# the later elements of paths too, which only copies a little more).
_MENTIONED = re.compile(r"#[A-Za-z0-9_]+|(?<![:#\w])[A-Za-z_][A-Za-z0-9_]*")
_CACHE = "_emulated_sorted_items"
_LIST_INDEX = re.compile(r"(\[\d+\])+$")

__all__ = [
    "cached_sort",
    "copying_only",
    "list_size",
    "project_named",
    "shallow_copy",
    "sharing_values",
    "updated_names",
]


def cached_sort(original: Callable[[Table], list[Item]]) -> Callable[[Table], list[Item]]:
    """Wrap ``Table.all_items``: sort again only when the set of items changed."""

    def all_items(self: Table) -> list[Item]:
        rows = [
            item
            for partition in self.items.values()
            for item in (partition.values() if self.range_key_attr else [partition])
        ]
        ids = [id(item) for item in rows]
        cached = getattr(self, _CACHE, None)
        # the cache holds its items, so an id in it cannot be reused by a new item
        if cached is None or cached[0] != ids:
            cached = (ids, original(self))
            setattr(self, _CACHE, cached)
        return list(cached[1])

    return all_items


def sharing_values(original: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap ``Table.query`` or ``Table.scan``: items copied while it runs share values."""

    def read(self: Table, *args: Any, **kwargs: Any) -> Any:
        previous = getattr(_reading, "on", False)
        _reading.on = True
        try:
            return original(self, *args, **kwargs)
        finally:
            _reading.on = previous

    return read


def shallow_copy(original: Callable[[Item, dict[int, Any]], Item]) -> Any:
    """Wrap ``Item.__deepcopy__``: inside a Query or Scan, a copy with its own attribute
    map and keys, sharing the attribute values; elsewhere moto's deep copy."""

    def deepcopy(self: Item, memo: dict[int, Any]) -> Item:
        if getattr(_reading, "on", False):
            return _with_attrs(self, self.attrs)
        names = getattr(_updating, "names", None)
        if names is None:
            return original(self, memo)
        attrs = self.attrs.items()
        return _with_attrs(self, {k: copy.deepcopy(v, memo) if k in names else v for k, v in attrs})

    return deepcopy


def updated_names(
    expression: str | None, names: Mapping[str, str] | None, updates: Mapping[str, Any] | None
) -> frozenset[str] | None:
    """The top-level attributes an UpdateItem may change (a superset): every name its
    `UpdateExpression` mentions, or its `AttributeUpdates`; None when it has neither."""
    if expression:
        tokens = _MENTIONED.findall(expression)
        return frozenset((names or {}).get(t, t) if t.startswith("#") else t for t in tokens)
    return frozenset(updates) if updates else None


@contextmanager
def copying_only(names: frozenset[str] | None) -> Iterator[None]:
    """While it runs, an item's deep copy on this thread deep-copies only `names` and
    shares the other attributes' values (None: copies whole)."""
    previous = getattr(_updating, "names", None)
    _updating.names = names
    try:
        yield
    finally:
        _updating.names = previous


def project_named(original: Callable[[Item, list[list[str]]], Item]) -> Any:
    """Wrap ``Item.project``: moto's projection of an item holding only the attributes
    the paths start from (a path reads nothing else)."""

    def project(self: Item, projection_expressions: list[list[str]]) -> Item:
        names = set()
        for path in projection_expressions:
            if path:
                names |= {path[0], _LIST_INDEX.sub("", path[0])}
        named = {name: value for name, value in self.attrs.items() if name in names}
        return original(_with_attrs(self, named), projection_expressions)

    return project


def list_size(original: Callable[[DynamoType], int]) -> Callable[[DynamoType], int]:
    """Wrap ``DynamoType.size``: a list's size as moto counts it (a number as its text),
    numbers summed inline."""

    def size(self: DynamoType) -> int:
        if self.type != "L":
            return original(self)
        return sum(len(str(v.value)) if v.type == "N" else v.size() for v in self.value)

    return size


def _with_attrs(item: Item, attrs: dict[str, Any]) -> Item:
    """A copy of `item` with its own attribute map holding `attrs` (the same values)."""
    twin = cast(Item, Item.__new__(Item))
    twin.__dict__.update(item.__dict__)
    own = LimitedSizeDict.__new__(LimitedSizeDict)
    dict.update(own, attrs)  # skips the size check: the stored item passed it
    twin.attrs = own
    return twin
