"""The emulated table the emulator benchmarks create: the store's key schema, on demand."""

from __future__ import annotations

from typing import Any

from langgraph.store.dynamodb.table.table_spec import BILLING_MODE, KEY_SCHEMA


def create_table(client: Any, name: str, **extra: Any) -> None:
    """Create `name` keyed by PK (hash) and SK (range), both strings; `extra`: more
    CreateTable fields."""
    client.create_table(
        TableName=name,
        AttributeDefinitions=[
            {"AttributeName": element["AttributeName"], "AttributeType": "S"}
            for element in KEY_SCHEMA
        ],
        KeySchema=[dict(element) for element in KEY_SCHEMA],
        BillingMode=BILLING_MODE,
        **extra,
    )
