"""Erasing a tenant erases its threads too (a `DynamoDBSaver` with `tenant_key`): every
checkpoint, value, chunk, write, run index and registry row of the tenant's threads, with
the verification counting them; other tenants' threads untouched; a purge killed at any
request is finished by a rerun."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.checkpoint.dynamodb.erasure import thread_sources
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.cli.app import app
from langgraph.store.dynamodb.table.schema import PK
from langgraph.store.dynamodb.testing import mock_aws
from typer.testing import CliRunner

from tests.checkpoint.graphs import chat_graph, say
from tests.fault.layer import FaultLayer
from tests.support import RequestCounter

from .tenants import NEIGHBOURS, TABLE, TENANT, Row, fill, make_store, outside, rows
from .test_cli import ENV
from .test_resume import KILLED, ONCE, from_request, restore

THREADS = {"acme": ".t/acme", "acme-corp": ".t/acme-corp"}


def write_threads(saver: DynamoDBSaver) -> None:
    """Two threads of tenant acme (one with a large value, one with a run id), one of its
    neighbour acme-corp."""
    graph = chat_graph(saver)
    for tenant, thread in (("acme", "t1"), ("acme", "t2"), ("acme-corp", "t1")):
        config: dict[str, Any] = {"configurable": {"thread_id": thread, "tenant": tenant}}
        graph.invoke(say("hello"), {**config, "metadata": {"run_id": f"run-{thread}"}})
    big = {"configurable": {"thread_id": "t2", "tenant": "acme"}}
    graph.invoke(say("x" * 600_000), big)


def acme_threads(all_rows: list[Row]) -> list[Row]:
    return [
        r
        for r in all_rows
        if r[PK]["S"].startswith((".t/acme/", ".r/acme/")) or r[PK]["S"] == ".t/acme"
    ]


def tenant_rows(all_rows: list[Row]) -> list[Row]:
    """Memories of TENANT (and its purge's checkpoint), and acme's threads."""
    return [r for r in all_rows if r not in untouched(all_rows)]


def untouched(all_rows: list[Row]) -> list[Row]:
    """Rows neither of TENANT's memories nor of acme's threads."""
    theirs = acme_threads(all_rows)
    return [r for r in outside(all_rows, TENANT) if r not in theirs]


def setup_tables() -> tuple[DynamoDBStore, DynamoDBSaver]:
    store = make_store()
    store.setup()
    fill(store, TENANT, users=1, items=2)
    fill(store, NEIGHBOURS[0], users=1, items=2)
    saver = DynamoDBSaver(TABLE, region_name="us-east-1", tenant_key="tenant")
    write_threads(saver)
    return store, saver


def test_a_tenants_purge_erases_its_threads_and_nothing_else() -> None:
    with mock_aws():
        store, saver = setup_tables()
        before = rows(store)
        assert len(acme_threads(before)) > 10
        sources = saver.for_tenant("acme").erasure_sources()
        result = store.purge(TENANT, sources=sources)
        assert result.rows_left == 0 and result.verification.total == 0
        assert result.deleted["thread_rows"] > 10 and result.deleted["thread_registry"] == 2
        assert result.deleted["thread_run_index"] >= 2
        after = rows(store)
        assert acme_threads(after) == []
        assert after == [r for r in before if r not in tenant_rows(before)]
        assert saver.for_tenant("acme").threads() == []
        assert saver.for_tenant("acme-corp").threads() == ["t1"]


def test_a_purge_with_threads_killed_at_any_request_is_finished_by_a_rerun() -> None:
    with mock_aws():
        store, _ = setup_tables()
        before = rows(store)
        doomed = tenant_rows(before)
        kept = [r for r in before if r not in doomed]
        counter = RequestCounter(store.client)
        store.purge(TENANT, sources=thread_sources(store.client, TABLE, "acme"))
        for n in range(0, counter.total, 2):  # the threads' deletes come last: reached too
            restore(store, doomed)
            assert rows(store) == before
            victim = make_store(boto_config=ONCE)
            FaultLayer(victim.client, rate=1.0, kinds=(KILLED,), when=from_request(n))
            with pytest.raises(Exception):  # noqa: B017 - whatever the kill looks like
                victim.purge(TENANT, sources=thread_sources(victim.client, TABLE, "acme"))
            assert untouched(rows(store)) == kept, f"killed at {n}"
            result = store.purge(TENANT, sources=thread_sources(store.client, TABLE, "acme"))
            assert result.rows_left == 0 and rows(store) == kept, f"killed at {n}"


def test_an_unnamed_tenant_is_refused() -> None:
    with pytest.raises(ValueError, match="tenant"):
        thread_sources(None, TABLE, "")


def test_the_cli_erases_a_tenants_threads_with_its_memories() -> None:
    with mock_aws():
        store, _ = setup_tables()
        before = rows(store)
        env = {**ENV, "DYNAMODB_MEMORY_TABLE": TABLE}
        dry = CliRunner().invoke(
            app,
            ["purge", "memories.acme", "--threads-tenant", "acme", "--dry-run", "--json"],
            env=env,
        )
        assert dry.exit_code == 0, dry.output
        counted = json.loads(dry.stdout)["rows"]
        assert counted["thread_registry"] == 2 and counted["thread_rows"] > 10
        assert rows(store) == before
        done = CliRunner().invoke(
            app, ["purge", "memories.acme", "--threads-tenant", "acme", "--yes"], env=env
        )
        assert done.exit_code == 0, done.output
        assert "Verified: 0 rows left" in done.output and "thread_rows" in done.output
        assert rows(store) == untouched(before)
