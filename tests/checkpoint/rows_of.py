"""What a thread holds in the table, read directly (not through the saver)."""

from __future__ import annotations

from typing import Any

from langgraph.store.dynamodb.table import dynamo
from langgraph.store.dynamodb.table.schema import PK, SK


def all_rows(client: Any, table: str) -> list[tuple[str, str]]:
    """Every row's key in the table, sorted (a Scan: tests only)."""
    rows: list[tuple[str, str]] = []
    kwargs: dict[str, Any] = {"TableName": table}
    while True:
        page = client.scan(**kwargs)
        rows += [(i[PK]["S"], i[SK]["S"]) for i in page["Items"]]
        if "LastEvaluatedKey" not in page:
            return sorted(rows)
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def full_rows(client: Any, table: str) -> list[dict[str, Any]]:
    """Every row of the table, deserialized (a Scan: tests only)."""
    rows: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {"TableName": table}
    while True:
        page = client.scan(**kwargs)
        rows += [dynamo.deserialize(i) for i in page["Items"]]
        if "LastEvaluatedKey" not in page:
            return rows
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
