"""Query in O(partition): moto filters every item of the table on each Query.

moto keeps a table's items as ``items[hash_key][range_key]`` yet answers a Query by walking
``all_items()`` and sorting the matches, so a Query of a 20-item partition costs time in
proportion to the whole table. While a Query whose partition is known (the table's own key,
or a local secondary index, which shares it) runs, ``all_items()`` on that table answers
with that partition only. The scope is per thread, so concurrent requests never see each
other's. moto's own matching, sorting, paging and projection run unchanged on it.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
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
        _scope.partition = (self, value)
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
        return list(partition.values())

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
