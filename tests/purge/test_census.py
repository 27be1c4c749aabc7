"""`rows_left == 0` means no row of the tenant remains: after each failure sequence of
issue 30 the census (one Scan of the emulated table, `tests/census.py`) finds exactly what
the purge reports, and nothing once it reports 0.

A purge that trusts the registries (the default) finds the rows of a thread only through
the thread registry, which the saver keeps complete: every request that writes a thread's
rows registers or extends it. `scan=True` (`--verify-scan`) trusts no registry.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from langgraph.checkpoint.dynamodb.erasure import (
    every_thread_sources,
    thread_sources,
)
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.cli.app import app
from langgraph.store.dynamodb.table.row_sources import RowSource
from langgraph.store.dynamodb.testing import mock_aws
from typer.testing import CliRunner

from tests import census
from tests.census import EVERY, Scope
from tests.support import FakeClock, RequestCounter

from . import sequences
from .sequences import THREADS
from .tenants import TABLE, TENANT, make_store, rows
from .test_cli import ENV

MODES = [pytest.param(False, id="registry"), pytest.param(True, id="scan")]
TENANT_SCOPE = Scope(TENANT, (THREADS,))


@pytest.fixture
def store() -> Iterator[DynamoDBStore]:
    with mock_aws():
        created = make_store()
        created.setup()
        sequences.tenant_with_threads(created)
        yield created


def purge_tenant(store: DynamoDBStore, scan: bool, **kwargs: Any) -> census.Census:
    """Purge TENANT with its threads; the census must agree with the report."""
    sources = thread_sources(store.client, TABLE, THREADS)
    result = store.purge(TENANT, sources=sources, scan=scan, **kwargs)
    return census.check(store.client, TABLE, TENANT_SCOPE, result)


def test_the_census_sees_what_a_purge_left() -> None:
    """The census is a real check: rows a purge left and did not report make it fail."""
    with mock_aws():
        store = make_store()
        store.setup()
        sequences.tenant_with_threads(store)
        result = store.purge(TENANT)  # the threads were not asked for
        found = census.take(store.client, TABLE, TENANT_SCOPE)
        assert result.rows_left == 0 and found.by_kind().get("thread_rows", 0) > 5
        assert not found.agrees(result)


@pytest.mark.parametrize("scan", MODES)
def test_a_refused_first_put_leaves_no_row_behind(store: DynamoDBStore, scan: bool) -> None:
    sequences.refused_first_put()
    assert census.take(store.client, TABLE, TENANT_SCOPE).texts()  # the user's text is there
    assert purge_tenant(store, scan).total == 0


@pytest.mark.parametrize("scan", MODES)
def test_a_thread_whose_registry_row_expired_is_erased(
    store: DynamoDBStore, clock: FakeClock, scan: bool
) -> None:
    sequences.expired_registry(clock)
    assert purge_tenant(store, scan).total == 0


@pytest.mark.parametrize("scan", MODES)
def test_thread_ids_at_the_key_limits_leave_nothing(store: DynamoDBStore, scan: bool) -> None:
    sequences.long_thread_ids()
    assert purge_tenant(store, scan).total == 0


@pytest.mark.parametrize("knows", [False, True], ids=["new writer", "writer that knows"])
@pytest.mark.parametrize("scan", MODES)
def test_a_writer_racing_the_purge_is_reported_then_erased_by_the_rerun(
    store: DynamoDBStore, scan: bool, knows: bool
) -> None:
    """A writer that trusts the registry row it wrote before the purge does not list the
    thread again: the purge keeps it listed, so the rerun finds what the writer added."""
    writer = sequences.RacingWriter(knows)
    first = purge_tenant(store, scan, on_progress=writer)
    assert writer.wrote and first.total > 0  # reported, not hidden
    assert purge_tenant(store, scan).total == 0


def test_a_scan_costs_one_pass_over_the_table(store: DynamoDBStore) -> None:
    """`scan=True` adds `SCAN_SEGMENTS` Scan requests (one page each on a small table) to
    the purge, and reads every row of the table once: all the other tenants' rows too."""
    before = rows(store)
    theirs = len(before) - census.census_of(before, TENANT_SCOPE).total
    counter = RequestCounter(store.client)
    result = store.purge(TENANT, sources=thread_sources(store.client, TABLE, THREADS), scan=True)
    assert result.rows_left == 0 and result.verification.scanned
    assert counter.calls["Scan"] == 4
    assert theirs <= counter.scanned["Scan"] <= len(before)


def test_every_tenant_means_every_thread_too(store: DynamoDBStore) -> None:
    """A wipe erases threads of every saver, tenant-keyed or not, with no source given."""
    result = store.purge((), all_tenants=True)
    left = census.check(store.client, TABLE, Scope((), ()), result)
    assert left.total == 0 and result.deleted["other_rows"] > 10
    assert [r["SK"]["S"] for r in rows(store)] == ["model#memory-vectors"]


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, ["purge", *args], env=ENV)


def test_purge_all_tenants_reports_the_threads_it_erased(store: DynamoDBStore) -> None:
    done = invoke("--all-tenants", "--yes", "--json")
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["rows_left"] == 0 and report["verification"]["scanned"]
    assert report["deleted"]["thread_rows"] > 10 and report["deleted"]["thread_registry"] == 4
    assert census.take(store.client, TABLE, Scope((), (EVERY,))).total == 0


def test_the_threads_of_savers_without_a_tenant_key_have_a_purge(store: DynamoDBStore) -> None:
    before = rows(store)
    done = invoke("--untenanted-threads", "--yes")
    assert done.exit_code == 0, done.output
    assert "Verified: 0 rows left of the threads of savers without a tenant key" in done.output
    assert census.take(store.client, TABLE, Scope(None, ("",))).total == 0
    untenanted = census.census_of(before, Scope(None, ("",)))
    assert len(rows(store)) == len(before) - untenanted.total > 0


def test_a_tenants_threads_need_no_memories_prefix(store: DynamoDBStore) -> None:
    before = rows(store)
    done = invoke("--threads-tenant", THREADS, "--yes", "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["prefix"] is None
    assert census.take(store.client, TABLE, Scope(None, (THREADS,))).total == 0
    memories = census.census_of(before, Scope(TENANT))
    assert census.take(store.client, TABLE, Scope(TENANT)).rows == memories.rows


def test_the_saver_without_a_tenant_key_gives_its_erasure_sources(store: DynamoDBStore) -> None:
    result = store.purge(None, sources=sequences.saver(None).erasure_sources())
    assert census.check(store.client, TABLE, Scope(None, ("",)), result).total == 0
    assert result.deleted["thread_registry"] == 1


SNAKE = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")


def keys_of(data: Any) -> set[str]:
    if not isinstance(data, dict):
        return set()
    return set(data) | {k for value in data.values() for k in keys_of(value)}


@pytest.mark.parametrize("dry_run", [True, False])
def test_purge_json_keys_share_one_style(store: DynamoDBStore, dry_run: bool) -> None:
    args = ["memories.acme", "--threads-tenant", THREADS, "--json"]
    done = invoke(*args, "--dry-run" if dry_run else "--yes")
    assert done.exit_code == 0, done.output
    keys = keys_of(json.loads(done.stdout))
    assert "thread_rows" in keys
    assert [key for key in keys if not SNAKE.fullmatch(key)] == []


def test_a_row_source_kind_must_be_snake_case() -> None:
    with pytest.raises(ValueError, match="snake_case"):
        RowSource("thread rows", lambda _: [])


def test_every_tenants_threads_are_found_only_by_a_scan(store: DynamoDBStore) -> None:
    with pytest.raises(ValueError, match="all_tenants=True or scan=True"):
        store.purge(None, sources=every_thread_sources())
    result = store.purge(None, sources=every_thread_sources(), scan=True)
    assert census.check(store.client, TABLE, Scope(None, (EVERY,)), result).total == 0
    assert census.take(store.client, TABLE, Scope(TENANT)).total > 0  # memories stay


def test_a_purge_of_nothing_is_refused(store: DynamoDBStore) -> None:
    with pytest.raises(ValueError, match="needs a prefix"):
        store.purge(None)
