"""Fill big tables fast: write a template through the store's own API, then copy its rows.

Writing 20,000 items through each store's API costs 2-25 ms of emulator time per item
(moto parses every expression), minutes per store. Instead a template (one namespace, or
one item) is written through the store's public API, so its rows are exactly what that
store writes, and the emulated table's rows whose key mentions the template's unique label
are copied with that label replaced in every attribute that mentions it, straight into the
emulator's table: the copy shares the attribute values that do not mention the label (a
vector, say; nothing updates the copies in place), skips moto's per-attribute size check
(the label and its replacements have the same length), and bypasses the table's stream.
The vector index then rebuilds from the table as after any write. The workloads check
each store's answers against LangGraph's `InMemoryStore` holding the same logical data,
so a copy that broke a store's layout would show as a wrong answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from langgraph.store.dynamodb.testing import _vector
from moto.core import DEFAULT_ACCOUNT_ID
from moto.dynamodb.models import dynamodb_backends
from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
from moto.dynamodb.models.table import Table

from .stores import REGION


def _table(name: str) -> Table:
    table: Table = dynamodb_backends[DEFAULT_ACCOUNT_ID][REGION].tables[name]
    return table


def _key_mentions(item: Item, token: str) -> bool:
    return any(
        key is not None and isinstance(key.value, str) and token in key.value
        for key in (item.hash_key, item.range_key)
    )


class _Template:
    """One row to copy: the JSON of each attribute that mentions the label."""

    def __init__(self, item: Item, token: str) -> None:
        self.item = item
        self.token = token
        self.mentions = {
            name: text
            for name, value in item.to_json()["Attributes"].items()
            if token in (text := json.dumps(value))
        }

    def copy(self, table: Table, replacement: str) -> Item:
        attrs: dict[str, Any] = dict(self.item.attrs)
        for name, text in self.mentions.items():
            attrs[name] = DynamoType(json.loads(text.replace(self.token, replacement)))
        twin: Item = Item.__new__(Item)
        twin.hash_key = attrs[table.hash_key_attr]
        twin.range_key = attrs[table.range_key_attr] if table.range_key_attr else None
        twin.attrs = LimitedSizeDict.__new__(LimitedSizeDict)
        dict.update(twin.attrs, attrs)
        return twin


def replicate(table_name: str, copies: Mapping[str, Sequence[str]]) -> int:
    """For each token in `copies`, copy every row of `table_name` whose key mentions it
    once per replacement, with the token replaced in every string; returns the rows
    written."""
    table = _table(table_name)
    templates = [
        _Template(item, token)
        for item in table.all_items()
        for token in copies
        if _key_mentions(item, token)
    ]
    written = 0
    for template in templates:
        for replacement in copies[template.token]:
            row = template.copy(table, replacement)
            if table.range_key_attr:
                table.items[row.hash_key][row.range_key] = row
            else:
                table.items[row.hash_key] = row  # type: ignore[assignment]
            written += 1
    _vector.invalidate_all(table)
    return written


def item_count(table_name: str) -> int:
    """Rows in the emulated table."""
    return sum(1 for _ in _table(table_name).all_items())
