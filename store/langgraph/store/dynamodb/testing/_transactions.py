"""TransactWriteItems at a cost that does not grow with the table.

moto 5.2.5 backs up every table a transaction names with a deep copy of the whole table
before applying it, to restore on a cancellation: a transaction on a table of n rows
copies n rows, so a thread's puts slowed as the thread grew (a turn took 250 ms at turn
1 and 2 s at turn 90), and each copy, registered as a model instance, stayed in memory
until the emulation stopped. Here the backup is a copy of each row the transaction names
(and the length of the table's stream), restored the same way a refused UpdateItem is.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from typing import Any, cast

from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.table import Table

_backing_up = threading.local()

Restore = Callable[[Table, Any, Any, Any], None]


def table_deepcopy(table: Table, memo: dict[int, Any]) -> Table:
    """`copy.deepcopy` of a table: the table itself while a transaction makes its backup
    (its rows are backed up one by one), else a full copy as Python would make it."""
    if getattr(_backing_up, "on", False):
        return table
    twin = cast(Table, Table.__new__(Table))
    memo[id(table)] = twin
    twin.__dict__.update(copy.deepcopy(table.__dict__, memo))
    return twin


def transact_write_items(restore: Restore) -> Callable[[Callable[..., Any]], Any]:
    """Wrap `DynamoDBBackend.transact_write_items`: back up the rows it names and, when
    it fails, put them back with `restore(table, hash key, range key, old row)`."""

    def wrap(original: Callable[..., Any]) -> Any:
        def transact(self: DynamoDBBackend, transact_items: list[dict[str, Any]]) -> Any:
            rows = []
            shards = []
            for action in transact_items:
                ((kind, body),) = action.items()
                table = self.tables.get(body.get("TableName"))
                if table is None:
                    continue
                key = _key(table, body["Item"] if kind == "Put" else body.get("Key") or {})
                if key is None:
                    continue  # moto refuses the action before it writes
                hk, rk = self.get_keys_value(table, key)
                rows.append((table, hk, rk, copy.deepcopy(table.get_item(hk, rk))))
                if table.stream_shard is not None:
                    shards.append((table.stream_shard, len(table.stream_shard.items)))
            _backing_up.on = True
            try:
                return original(self, transact_items)
            except Exception:
                for table, hk, rk, old in reversed(rows):
                    restore(table, hk, rk, old)
                for shard, length in shards:
                    del shard.items[length:]
                raise
            finally:
                _backing_up.on = False

        return transact

    return wrap


def _key(table: Table, attributes: dict[str, Any]) -> dict[str, Any] | None:
    names = [table.hash_key_attr] + ([table.range_key_attr] if table.range_key_attr else [])
    if not all(name in attributes for name in names):
        return None
    return {name: attributes[name] for name in names}
