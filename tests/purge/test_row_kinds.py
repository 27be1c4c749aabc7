"""The declaration of row kinds (`table/row_kinds.py`) is complete and the purge reads it:
a key prefix added to `schema` with no declared erasure fails here, and so does a declared
kind of a tenant that neither the README's purge route nor the CLI's reports."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.cli.app import app
from langgraph.store.dynamodb.table import schema
from langgraph.store.dynamodb.table.row_kinds import ROW_KINDS, Scope, erased_kinds
from langgraph.store.dynamodb.testing import mock_aws
from typer.testing import CliRunner

from .tenants import TABLE, TENANT, make_store
from .test_cli import ENV

# A key prefix or partition in `schema`: what a partition key or sort key starts with.
KEY_SHAPED = re.compile(r"^\.|#$|/$|^#")


def key_prefixes() -> dict[str, str]:
    """Every key-shaped string constant of `schema`, by name."""
    return {
        name: value
        for name, value in vars(schema).items()
        if name.isupper() and isinstance(value, str) and KEY_SHAPED.search(value)
    }


def test_schema_has_key_prefixes_to_check() -> None:
    assert {"ITEM_PREFIX", "CURSOR", "LEDGER", "LEDGER_INDEX", "THREAD_KIND"} <= set(key_prefixes())


@pytest.mark.parametrize("name", sorted(key_prefixes()))
def test_every_key_prefix_is_a_declared_row_kind(name: str) -> None:
    value = key_prefixes()[name]
    declared = [k for k in ROW_KINDS if value in k.partition or value in k.sort]
    assert declared, f"schema.{name} ({value!r}) names no row kind in table/row_kinds.py"


def test_every_row_kind_of_a_tenant_has_an_erasure() -> None:
    assert all(kind.erased_as for kind in ROW_KINDS if kind.scope is not Scope.TABLE)


@pytest.fixture
def store() -> Iterator[DynamoDBStore]:
    with mock_aws():
        created = make_store()
        created.setup()
        yield created


def test_the_readme_route_reports_every_declared_kind(store: DynamoDBStore) -> None:
    saver = DynamoDBSaver(TABLE, region_name="us-east-1", tenant_key="tenant")
    sources = saver.for_tenant("acme").erasure_sources()
    result = store.purge(TENANT, sources=sources)
    kinds = set(result.verification.rows)
    assert set(erased_kinds(Scope.NAMESPACE, Scope.TENANT)) <= kinds


def test_the_cli_reports_every_declared_kind(store: DynamoDBStore) -> None:
    args = ["purge", "memories.acme", "--threads-tenant", "acme", "--dry-run", "--json"]
    done = CliRunner().invoke(app, args, env=ENV)
    assert done.exit_code == 0, done.output
    assert set(erased_kinds(Scope.NAMESPACE, Scope.TENANT)) <= set(json.loads(done.stdout)["rows"])
