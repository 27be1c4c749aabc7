"""The emulated table the emulator benchmarks create: string PK and SK, on demand."""

from __future__ import annotations

from typing import Any


def create_table(client: Any, name: str, **extra: Any) -> None:
    """Create `name` keyed by PK (hash) and SK (range); `extra`: more CreateTable fields."""
    client.create_table(
        TableName=name,
        AttributeDefinitions=[
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
        ],
        KeySchema=[
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"},
        ],
        BillingMode="PAY_PER_REQUEST",
        **extra,
    )
