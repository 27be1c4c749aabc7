"""`dynamodb-memory usage`: per tenant, what it stores, from the registry and COUNT Queries
(never a Scan)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from langgraph.store.base import PutOp
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.cli.app import app
from langgraph.store.dynamodb.jobs.tenants import tenant_storage
from langgraph.store.dynamodb.testing import LexicalEmbeddings, mock_aws
from typer.testing import CliRunner

from tests.support import RequestCounter

TABLE = "tenants"


@pytest.fixture
def store() -> Iterator[DynamoDBStore]:
    with mock_aws():
        store = DynamoDBStore(
            TABLE,
            region_name="us-east-1",
            index={"dims": 16, "embed": LexicalEmbeddings(dims=16), "fields": ["a", "b"]},
        )
        store.setup()
        store.batch(
            [PutOp(("acme", "u1", "notes"), str(n), {"a": "x" * 5000}) for n in range(3)]
            + [PutOp(("acme", "u1"), "two", {"a": "first", "b": "second"})]  # 2 vectors
            + [PutOp(("acme", "u2"), "plain", {"c": "no text to embed"})]
            + [PutOp(("beta", "u9"), "gone", {"a": "deleted"})]
        )
        store.delete(("beta", "u9"), "gone")
        yield store


def test_counts_per_tenant_without_a_scan(store: DynamoDBStore) -> None:
    counter = RequestCounter(store.client)
    found = {t.tenant: t for t in tenant_storage(store.client, TABLE, ())}
    assert set(counter.calls) == {"Query"}
    acme = found["acme.u1"]
    assert (acme.namespaces, acme.items, acme.vectors) == (2, 4, 5)
    assert 15_000 < acme.approx_bytes < 15_000 + 2 * 8192  # three 5 KB values, rounded up
    assert (found["acme.u2"].items, found["acme.u2"].vectors) == (1, 0)
    emptied = found["beta.u9"]
    assert (emptied.namespaces, emptied.items, emptied.approx_bytes) == (0, 0, 0)
    only = tenant_storage(store.client, TABLE, ("acme", "u1", "notes"))
    assert [(t.tenant, t.items) for t in only] == [("acme.u1", 3)]


def test_the_command_prints_a_table_or_json(store: DynamoDBStore) -> None:
    runner = CliRunner()
    env = {"AWS_DEFAULT_REGION": "us-east-1"}
    result = runner.invoke(app, ["usage", "--table", TABLE, "acme", "--json"], env=env)
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.stdout)
    assert [(r["tenant"], r["items"], r["vectors"]) for r in rows] == [
        ("acme.u1", 4, 5),
        ("acme.u2", 1, 0),
    ]
    shown = runner.invoke(app, ["usage", "--table", TABLE], env=env)
    assert shown.exit_code == 0 and "acme.u1" in shown.stdout and "beta.u9" in shown.stdout
