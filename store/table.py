"""Table lifecycle: create what is missing (table with its recency index, stream, TTL) and
nothing else."""

from __future__ import annotations

import logging
from typing import Any

from botocore.exceptions import ClientError

from . import recency
from .keys import PK, RECENCY, SK
from .ttl import EXPIRES_AT

logger = logging.getLogger(__name__)


def describe(client: Any, table: str) -> dict[str, Any] | None:
    """The table description, or None when the table does not exist."""
    try:
        description: dict[str, Any] = client.describe_table(TableName=table)["Table"]
    except ClientError as error:
        if error.response["Error"]["Code"] == "ResourceNotFoundException":
            return None
        raise
    return description


def ensure_table(client: Any, table: str, *, extra: dict[str, Any] | None = None) -> None:
    """Create the table (on-demand, `PK`/`SK` strings, the recency index, stream with both
    images) when it is missing, wait until it is ACTIVE, check an existing table's key
    schema and recency index (refusing a table without it), enable TTL. `extra` adds
    CreateTable parameters (e.g. vector indexes, more attribute definitions)."""
    existing = describe(client, table)
    if existing is None:
        _create(client, table, dict(extra or {}))
    else:
        _check_keys(table, existing)
        recency.check_table(table, existing)
    client.get_waiter("table_exists").wait(
        TableName=table, WaiterConfig={"Delay": 1, "MaxAttempts": 600}
    )
    _ensure_ttl(client, table)


def _create(client: Any, table: str, extra: dict[str, Any]) -> None:
    definitions = {name: "S" for name in (PK, SK, RECENCY)}
    for definition in extra.pop("AttributeDefinitions", None) or []:
        definitions[definition["AttributeName"]] = definition["AttributeType"]
    logger.info("Creating DynamoDB table %s", table)
    try:
        client.create_table(
            TableName=table,
            AttributeDefinitions=[
                {"AttributeName": name, "AttributeType": kind} for name, kind in definitions.items()
            ],
            KeySchema=[
                {"AttributeName": PK, "KeyType": "HASH"},
                {"AttributeName": SK, "KeyType": "RANGE"},
            ],
            LocalSecondaryIndexes=[recency.index_spec()],
            BillingMode="PAY_PER_REQUEST",
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
            **extra,
        )
    except ClientError as error:
        # Another process created it first: setup() is safe to call concurrently.
        if error.response["Error"]["Code"] != "ResourceInUseException":
            raise


def _check_keys(table: str, description: dict[str, Any]) -> None:
    keys = {k["AttributeName"]: k["KeyType"] for k in description["KeySchema"]}
    if keys != {PK: "HASH", SK: "RANGE"}:
        raise ValueError(
            f"Table {table} has key schema {keys}; DynamoDBStore needs PK (HASH, S) and "
            "SK (RANGE, S). Use another table name or a table created by setup()."
        )


def _ensure_ttl(client: Any, table: str) -> None:
    status = client.describe_time_to_live(TableName=table)["TimeToLiveDescription"]
    if status.get("TimeToLiveStatus") in ("ENABLED", "ENABLING"):
        if status.get("AttributeName") != EXPIRES_AT:
            raise ValueError(
                f"Table {table} has TTL on {status.get('AttributeName')!r}; DynamoDBStore "
                f"expires items through {EXPIRES_AT!r}. Disable that TTL or use another table."
            )
        return
    client.update_time_to_live(
        TableName=table,
        TimeToLiveSpecification={"Enabled": True, "AttributeName": EXPIRES_AT},
    )
