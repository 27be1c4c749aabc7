"""Erasing a tenant's threads with its memories (`erasure_sources`), where threads
expire: rows past their expiry that DynamoDB has not swept yet (its sweep can lag by
days) are erased too, and the evidence counts what a writer adds to a thread while the
purge runs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langgraph.checkpoint.dynamodb import CheckpointTTL, DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.table.schema import PK, RUN_KIND, THREAD_KIND
from langgraph.store.dynamodb.testing import mock_aws

from tests.checkpoint.notes import BIG_NOTES, config, notes_graph, turn
from tests.support import FakeClock

from .tenants import TABLE, TENANT, Row, rows

TTL = 10 * 60


@pytest.fixture
def tables(clock: FakeClock) -> Iterator[tuple[DynamoDBStore, DynamoDBSaver]]:
    with mock_aws():
        store = DynamoDBStore(TABLE, region_name="us-east-1")
        store.setup()
        store.put((*TENANT, "user-0"), "k", {"text": "a memory"})
        ttl: CheckpointTTL = {"default_ttl": TTL / 60}
        with DynamoDBSaver(TABLE, region_name="us-east-1", tenant_key="tenant", ttl=ttl) as saver:
            yield store, saver


def of_tenant(all_rows: list[Row], tenant: str) -> list[Row]:
    """The rows of a tenant's threads: theirs, their registry, their runs' index."""
    own = (f"{THREAD_KIND}{tenant}/", f"{RUN_KIND}{tenant}/")
    return [r for r in all_rows if r[PK]["S"].startswith(own) or r[PK]["S"] == THREAD_KIND + tenant]


def test_a_purge_erases_thread_rows_past_their_expiry_not_yet_swept(
    tables: tuple[DynamoDBStore, DynamoDBSaver], clock: FakeClock
) -> None:
    store, saver = tables
    graph = notes_graph(saver)
    turn(graph, config("t1", "acme"), "hello", "run-1", notes=BIG_NOTES)
    turn(graph, config("t2", "acme"), "hello", "run-2")
    turn(graph, config("t1", "acme-corp"), "hello", "run-1")
    clock.advance(TTL // 2)
    turn(graph, config("t2", "acme"), "later", "run-3")  # t2: part expired, part alive
    clock.advance(TTL // 2 + 1)  # t1 wholly expired, nothing swept
    before = rows(store)
    assert len(of_tenant(before, "acme")) > 20
    result = store.purge(TENANT, sources=saver.for_tenant("acme").erasure_sources())
    after = rows(store)
    assert result.rows_left == 0 and of_tenant(after, "acme") == []
    assert result.deleted["thread_registry"] == 2 and result.deleted["thread_run_index"] == 3
    assert of_tenant(after, "acme-corp") == of_tenant(before, "acme-corp")


def test_what_a_writer_adds_to_a_thread_during_its_purge_is_counted(
    tables: tuple[DynamoDBStore, DynamoDBSaver],
) -> None:
    store, saver = tables
    graph = notes_graph(saver)
    t1 = config("t1", "acme")
    turn(graph, t1, "hello", "run-1")
    running = saver.get_tuple(t1)  # a task of a run that read the state before the purge
    assert running is not None
    late: list[int] = []

    def write_late(_: int) -> None:
        # Once the thread registry is gone (the last source), the task writes.
        if not late and not saver.for_tenant("acme").threads():
            late.append(1)
            saver.put_writes(running.config, [("messages", "late")], "task-late")

    result = store.purge(
        TENANT, sources=saver.for_tenant("acme").erasure_sources(), on_progress=write_late
    )
    assert late
    left = of_tenant(rows(store), "acme")
    # The late writes found their checkpoint row gone and registered the thread again.
    assert len(left) == 2 and result.rows_left == 2
    assert result.verification.rows["thread_rows"] == 1
    assert result.verification.rows["thread_registry"] == 1
    rerun = store.purge(TENANT, sources=saver.for_tenant("acme").erasure_sources())
    assert rerun.rows_left == 0 and of_tenant(rows(store), "acme") == []
