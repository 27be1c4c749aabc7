"""`dynamodb-memory purge`: dry run, confirmation, the whole-table flag, and the verified
summary as evidence; bad prefixes exit 2 with nothing deleted."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.cli.app import app
from langgraph.store.dynamodb.testing import mock_aws
from typer.testing import CliRunner, Result

from .tenants import NEIGHBOURS, TABLE, TENANT, fill, make_store, outside, rows, under

ENV = {
    "DYNAMODB_MEMORY_TABLE": TABLE,
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
}


@pytest.fixture
def store() -> Iterator[DynamoDBStore]:
    with mock_aws():
        store = make_store()
        store.setup()
        fill(store, TENANT)
        fill(store, NEIGHBOURS[0])
        yield store


def purge(*args: str, answer: str = "") -> Result:
    return CliRunner().invoke(app, ["purge", *args], env=ENV, input=answer)


def test_dry_run_counts_and_deletes_nothing(store: DynamoDBStore) -> None:
    before = rows(store)
    result = purge("memories.acme", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    counted = json.loads(result.stdout)
    assert counted["total"] == len(under(before, TENANT))
    assert counted["rows"]["items"] == 10
    assert rows(store) == before


def test_it_asks_first_and_a_no_deletes_nothing(store: DynamoDBStore) -> None:
    before = rows(store)
    result = purge("memories.acme", answer="n\n")
    assert result.exit_code == 4  # declined (README's exit codes)
    assert "Erase 23 rows under memories.acme" in result.output
    assert "nothing was deleted" in result.output
    assert rows(store) == before


def test_a_confirmed_purge_prints_the_verified_summary(store: DynamoDBStore) -> None:
    before = rows(store)
    result = purge("memories.acme", answer="y\n")
    assert result.exit_code == 0, result.output
    assert "Verified: 0 rows left under memories.acme in table memory" in result.output
    assert rows(store) == outside(before, TENANT)


def test_json_output_is_the_evidence(store: DynamoDBStore) -> None:
    result = purge("memories.acme", "--yes", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["rows_left"] == 0
    assert report["deleted"]["items"] == 10
    assert report["verification"]["rows"]["items"] == 0
    assert report["verification"]["table"] == TABLE


@pytest.mark.parametrize("prefix", ["", "memories"])
def test_a_prefix_shorter_than_a_tenant_exits_2(store: DynamoDBStore, prefix: str) -> None:
    before = rows(store)
    result = purge(*([prefix] if prefix else []), "--yes")
    assert result.exit_code == 2
    assert "would erase many tenants" in result.output
    assert "--all-tenants" in result.output
    assert rows(store) == before


def test_the_whole_table_needs_its_name_typed(store: DynamoDBStore) -> None:
    before = rows(store)
    assert purge("--all-tenants", answer="yes\n").exit_code == 4
    assert rows(store) == before
    result = purge("--all-tenants", answer=f"{TABLE}\n")
    assert result.exit_code == 0, result.output
    assert [r["SK"]["S"] for r in rows(store)] == ["model#memory-vectors"]


def test_a_tenant_with_no_data_reports_zero(store: DynamoDBStore) -> None:
    result = purge("memories.nobody", "--json")
    assert result.exit_code == 2  # --json cannot prompt
    result = purge("memories.nobody", "--yes", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["rows_left"] == 0


def test_an_overlapping_purge_is_named(store: DynamoDBStore) -> None:
    def stop(_: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        store.purge((*TENANT, "user-0"), on_progress=stop)
    result = purge("memories.acme", "--yes")
    assert result.exit_code == 3
    assert "A purge of memories.acme.user-0 holds its resume marker" in result.output
    assert purge("memories.acme", "--yes", "--force").exit_code == 0
