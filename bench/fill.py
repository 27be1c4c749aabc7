"""Fill big tables fast: write a template through the store's own API, then copy its rows.

Writing 20,000 items through each store's API costs 2-25 ms of emulator time per item
(moto parses every expression), minutes per store. Instead a template (one namespace, or
one item) is written through the store's public API, so its rows are exactly what that
store writes, and the emulated table's rows that mention the template's unique label are
copied with that label replaced, straight into the emulator's table (the emulation
indexes their vectors as for any write). The workloads then check each store's answers
against LangGraph's `InMemoryStore` holding the same logical data.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from moto.core import DEFAULT_ACCOUNT_ID
from moto.dynamodb.models import dynamodb_backends
from moto.dynamodb.models.table import Table

from .stores import REGION


def _table(name: str) -> Table:
    table: Table = dynamodb_backends[DEFAULT_ACCOUNT_ID][REGION].tables[name]
    return table


def replicate(table_name: str, copies: Mapping[str, Sequence[str]]) -> int:
    """For each token in `copies`, copy every row of `table_name` that mentions it once
    per replacement, with the token replaced in every string; returns the rows written."""
    table = _table(table_name)
    templates: dict[str, list[str]] = {token: [] for token in copies}
    for item in table.all_items():
        row = json.dumps(item.to_json()["Attributes"])
        for token, rows in templates.items():
            if token in row:
                rows.append(row)
    written = 0
    for token, rows in templates.items():
        for replacement in copies[token]:
            for row in rows:
                table.put_item(json.loads(row.replace(token, replacement)))
                written += 1
    return written


def item_count(table_name: str) -> int:
    """Rows in the emulated table."""
    return sum(1 for _ in _table(table_name).all_items())
