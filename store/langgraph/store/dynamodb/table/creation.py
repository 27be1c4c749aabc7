"""Table lifecycle: create what is missing (table with its recency index, stream, TTL) and
nothing else."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

from botocore.exceptions import ClientError
from langgraph.store.dynamodb.table.errors import KeySchemaError
from langgraph.store.dynamodb.table.schema import (
    EXPIRES_AT,
    ITEM_ATTRIBUTES,
    PK,
    RECENCY,
    RECENCY_INDEX,
)
from langgraph.store.dynamodb.table.table_spec import KEY_SCHEMA, ttl_spec

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


def ensure_table(
    client: Any, table: str, spec: dict[str, Any], *, owner: str = "DynamoDBStore"
) -> None:
    """Create the table from `spec` (CreateTable parameters, see `table_spec`) when it is
    missing, wait until it is ACTIVE, check an existing table's key schema (a refusal names
    `owner`, the class whose setup() met it) and recency index (refusing a table without
    it), enable TTL."""
    existing = describe(client, table)
    if existing is None:
        _create(client, table, spec)
    else:
        _check_keys(table, existing, owner)
        check_recency_index(table, existing)
    client.get_waiter("table_exists").wait(
        TableName=table, WaiterConfig={"Delay": 1, "MaxAttempts": 600}
    )
    _ensure_ttl(client, table)


def _create(client: Any, table: str, spec: dict[str, Any]) -> None:
    logger.info("Creating DynamoDB table %s", table)
    try:
        client.create_table(TableName=table, **spec)
    except ClientError as error:
        # Another process created it first: setup() is safe to call concurrently.
        if error.response["Error"]["Code"] != "ResourceInUseException":
            raise


def _check_keys(table: str, description: dict[str, Any], owner: str) -> None:
    keys = {k["AttributeName"]: k["KeyType"] for k in description["KeySchema"]}
    if keys != {k["AttributeName"]: k["KeyType"] for k in KEY_SCHEMA}:
        raise KeySchemaError(
            f"Table {table} has key schema {keys}; {owner} needs PK (HASH, S) and "
            "SK (RANGE, S). Use another table name or a table created by setup()."
        )


@contextlib.contextmanager
def keys_must_match(client: Any, table: str, owner: str) -> Iterator[None]:
    """Turn the `ValidationException` DynamoDB answers a request whose keys the table's
    key schema does not have into a one-line `KeySchemaError` naming `owner` (costs one
    DescribeTable, only then); any other error passes unchanged."""
    try:
        yield
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") != "ValidationException":
            raise
        existing = describe(client, table)
        if existing is not None:
            _check_keys(table, existing, owner)
        raise


def missing_recency_index(table: str) -> str:
    """What to do about a table created without the recency index."""
    return (
        f"Table {table} has no local secondary index {RECENCY_INDEX!r} with sort key "
        f"{RECENCY!r} projecting {list(ITEM_ATTRIBUTES)}, which DynamoDBStore needs to "
        "return search results newest first. DynamoDB creates local secondary indexes only "
        "with the table, so setup() cannot add it: create a new table with setup() under "
        "another name, copy the memories with langgraph.store.dynamodb.jobs.migration."
        "copy_table(client, source, target) (stop writers first), and point the store at "
        "the new table."
    )


def check_recency_index(table: str, description: dict[str, Any]) -> None:
    """Raise `ValueError` unless the table has the recency index as this store needs it."""
    for index in description.get("LocalSecondaryIndexes") or []:
        if index["IndexName"] != RECENCY_INDEX:
            continue
        keys = {k["AttributeName"]: k["KeyType"] for k in index["KeySchema"]}
        projection = index.get("Projection", {})
        projected = set(projection.get("NonKeyAttributes") or [])
        if keys == {PK: "HASH", RECENCY: "RANGE"} and (
            projection.get("ProjectionType") == "ALL" or projected >= set(ITEM_ATTRIBUTES)
        ):
            return
    raise ValueError(missing_recency_index(table))


def _ensure_ttl(client: Any, table: str) -> None:
    status = client.describe_time_to_live(TableName=table)["TimeToLiveDescription"]
    if status.get("TimeToLiveStatus") in ("ENABLED", "ENABLING"):
        if status.get("AttributeName") != EXPIRES_AT:
            raise ValueError(
                f"Table {table} has TTL on {status.get('AttributeName')!r}; DynamoDBStore "
                f"expires items through {EXPIRES_AT!r}. Disable that TTL or use another table."
            )
        return
    client.update_time_to_live(TableName=table, TimeToLiveSpecification=ttl_spec())
