"""The tables the emulation in this process holds (what `serve --state` saves)."""

from __future__ import annotations

from langgraph.store.dynamodb.testing._vector import iter_tables
from moto.core.models import DEFAULT_ACCOUNT_ID
from moto.dynamodb.models import dynamodb_backends


def emulated_tables() -> list[tuple[str, str, str]]:
    """(account, region, table name) of every emulated DynamoDB table, in no set order."""
    return [
        (account, region, table.name) for account, region, table in iter_tables(dynamodb_backends)
    ]


def emulated_regions() -> frozenset[str]:
    """The regions the emulation serves DynamoDB in (moto's, as botocore lists them)."""
    return frozenset(dynamodb_backends[DEFAULT_ACCOUNT_ID].regions)
