"""Erasing threads and runs: `delete_for_runs` takes exactly the runs' checkpoints, their
chunks and their run index rows, also of checkpoints that reads kept alive past a TTL;
`delete_thread` takes every row of the thread, run index rows included; `prune` takes the
run index rows no kept checkpoint leads to; nothing of another thread, run or tenant
moves."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.table.schema import CHECKPOINT, CHUNK, PK, RUN, RUN_KIND, RUN_LINK, SK
from langgraph.store.dynamodb.table.thread_keys import (
    Thread,
    parse_run_sk,
    registry_pk,
    run_link_sk,
    run_pk,
    writes_sk,
)
from langgraph.store.dynamodb.testing import expire_ttl_items

from tests.checkpoint.conftest import TABLE
from tests.checkpoint.notes import BIG_NOTES, BIG_WRITE, config, notes_graph, texts, turn
from tests.checkpoint.rows_of import full_rows
from tests.support import FakeClock

Key = tuple[str, str]


@pytest.fixture
def tenants(emulation: None) -> Iterator[DynamoDBSaver]:
    with DynamoDBSaver.from_table(
        TABLE, region_name="us-east-1", setup=True, tenant_key="tenant"
    ) as saver:
        yield saver


@pytest.fixture
def expiring(emulation: None, clock: FakeClock) -> Iterator[DynamoDBSaver]:
    ttl = {"default_ttl": 10.0, "refresh_on_read": True}
    with DynamoDBSaver.from_table(
        TABLE, region_name="us-east-1", setup=True, tenant_key="tenant", ttl=ttl
    ) as saver:
        yield saver


def table(saver: DynamoDBSaver) -> dict[Key, dict[str, Any]]:
    return {(r[PK], r[SK]): r for r in full_rows(saver.client, TABLE)}


def big_write(saver: DynamoDBSaver, cfg: dict[str, Any]) -> None:
    """A pending write large enough for chunk rows, on the thread's latest checkpoint."""
    latest = saver.get_tuple(cfg)
    assert latest is not None
    saver.put_writes(latest.config, [("messages", BIG_WRITE)], "task-big")


def test_delete_for_runs_then_delete_thread_take_what_they_name_and_nothing_else(
    tenants: DynamoDBSaver,
) -> None:
    graph = notes_graph(tenants)
    t1, t2, beta = config("t1", "acme"), config("t2", "acme"), config("t1", "beta")
    turn(graph, t1, "hello", "run-1", notes=BIG_NOTES)
    big_write(tenants, t1)
    turn(graph, t1, "again", "run-2")
    big_write(tenants, t1)
    turn(graph, t2, "hi", "run-2")  # one run, two threads
    turn(graph, beta, "hello", "run-2", notes=BIG_NOTES)  # same thread and run ids, another tenant
    big_write(tenants, beta)
    before = table(tenants)
    acme = tenants.for_tenant("acme")
    acme_threads = {Thread("acme", "t1").pk, Thread("acme", "t2").pk}

    run_2 = {
        key
        for key, row in before.items()
        if key[0] in acme_threads and key[1].startswith(CHECKPOINT) and row.get(RUN) == "run-2"
    }
    writes = {(pk, writes_sk(sk)) for pk, sk in run_2} & set(before)
    chunks = {
        key
        for key in before
        if key[0] in acme_threads
        and key[1].startswith(CHUNK + CHECKPOINT)
        and (key[0], key[1].removeprefix(CHUNK).rsplit("#", 2)[0]) in run_2 | writes
    }
    index = {key for key in before if key[0] == run_pk("acme", "run-2")}
    links = {key for key in before if key[0] in acme_threads and key[1] == run_link_sk("run-2", "")}
    assert len(run_2) == 6 and len(chunks) == 1 and len(index) == len(links) == 2  # per thread
    acme.delete_for_runs(["run-2"])
    after = table(tenants)
    assert set(before) - set(after) == run_2 | writes | chunks | index | links
    assert all(after[key] == before[key] for key in after)
    assert texts(graph, t1) == ["hello", "echo hello"]
    assert tenants.get_tuple(t2) is None and acme.threads() == ["t1", "t2"]
    assert texts(graph, beta) == ["hello", "echo hello"]

    def of_t1(key: Key) -> bool:
        pk, sk = key
        return (
            pk == Thread("acme", "t1").pk
            or (pk, sk) == (registry_pk("acme"), "t1")
            or (pk.startswith(RUN_KIND + "acme/") and parse_run_sk(sk)[0] == "t1")
        )

    doomed = {key for key in after if of_t1(key)}
    assert len([key for key in doomed if key[0].startswith(RUN_KIND)]) == 1  # run-1's
    acme.delete_thread("t1")
    left = table(tenants)
    assert set(after) - set(left) == doomed
    assert all(left[key] == after[key] for key in left)
    assert acme.threads() == ["t2"] and tenants.for_tenant("beta").threads() == ["t1"]
    assert texts(graph, beta) == ["hello", "echo hello"]


def test_delete_for_runs_finds_the_checkpoints_reads_kept_alive(
    expiring: DynamoDBSaver, clock: FakeClock
) -> None:
    graph = notes_graph(expiring)
    t1, t2 = config("t1", "acme"), config("t2", "acme")
    turn(graph, t1, "hello", "run-1", notes=BIG_NOTES)
    turn(graph, t1, "again", "run-2")
    turn(graph, t2, "hi", "run-2")
    for _ in range(4):  # 16 minutes of reads of t1, past the 10-minute TTL; t2 unread
        clock.advance(4 * 60)
        assert texts(graph, t1) == ["hello", "echo hello", "again", "echo again"]
    expire_ttl_items(TABLE, now=clock.now())
    acme = expiring.for_tenant("acme")
    assert acme.count_checkpoints("t1") == 1  # what the reads kept: run-2's last
    acme.delete_for_runs(["run-2"])
    assert acme.count_checkpoints("t1") == 0 and expiring.get_tuple(t1) is None
    left = table(expiring)
    assert [key for key in left if key[0].startswith(RUN_KIND)] == [
        (run_pk("acme", "run-1"), "t1#")
    ]
    assert not [key for key in left if key[1].startswith(CHECKPOINT)]
    # run-1's index row outlives its swept checkpoints by at most a TTL (it is written
    # for two, so that not every put rewrites it)
    clock.advance(4 * 60 + 1)
    expire_ttl_items(TABLE, now=clock.now())
    assert not [key for key in table(expiring) if key[0].startswith(RUN_KIND)]


def test_a_checkpoint_whose_run_index_row_is_gone_still_lives_while_read(
    expiring: DynamoDBSaver, clock: FakeClock
) -> None:
    # An earlier version let run index rows expire under checkpoints that reads kept
    # alive: such a checkpoint must still slide (and a run index row must not come back).
    graph = notes_graph(expiring)
    t1 = config("t1", "acme")
    turn(graph, t1, "hello", "run-1", notes=BIG_NOTES)
    for key in [key for key in table(expiring) if key[0].startswith(RUN_KIND)]:
        expiring.client.delete_item(TableName=TABLE, Key={PK: {"S": key[0]}, SK: {"S": key[1]}})
    for _ in range(4):
        clock.advance(4 * 60)
        assert texts(graph, t1) == ["hello", "echo hello"]
    expire_ttl_items(TABLE, now=clock.now())
    assert graph.get_state(t1).values["notes"] == BIG_NOTES
    assert not [key for key in table(expiring) if key[0].startswith(RUN_KIND)]


def test_prune_takes_the_run_index_rows_of_the_checkpoints_it_deletes(
    tenants: DynamoDBSaver,
) -> None:
    # A run index row left behind points nowhere, and a tenant's purge (which finds run
    # index rows through the checkpoints) would never erase it.
    graph = notes_graph(tenants)
    t1, t2 = config("t1", "acme"), config("t2", "acme")
    turn(graph, t1, "hello", "run-1", notes=BIG_NOTES)
    turn(graph, t1, "again", "run-2")
    turn(graph, t2, "hi", "run-2")
    tenants.for_tenant("acme").prune(["t1"])
    left = table(tenants)
    checkpoints = {key for key in left if key[1].startswith(CHECKPOINT) and RUN in left[key]}
    pointed = {
        (Thread("acme", thread_id).pk, pk.rsplit("/", 1)[1])
        for pk, sk in left
        if pk.startswith(RUN_KIND)
        for thread_id, _, _ in [parse_run_sk(sk)]
    }
    runs = {(key[0], left[key][RUN]) for key in checkpoints}
    assert pointed == runs and len(checkpoints) == 1 + 3  # t1's latest, t2's
    assert texts(graph, t1) == ["hello", "echo hello", "again", "echo again"]


def test_prune_takes_the_run_rows_the_sweep_left_and_keeps_those_it_needs(
    emulation: None, clock: FakeClock
) -> None:
    """A run index row (and its run link) outlives the checkpoints it leads to by up to a
    TTL; once the sweep took those, only the link names it. `prune` deletes both, and
    keeps those of the checkpoints it keeps."""
    ttl = {"default_ttl": 10.0, "refresh_on_read": False}
    with DynamoDBSaver.from_table(
        TABLE, region_name="us-east-1", setup=True, tenant_key="tenant", ttl=ttl
    ) as saver:
        graph = notes_graph(saver)
        t1 = config("t1", "acme")
        turn(graph, t1, "hello", "run-1")
        clock.advance(8 * 60)
        turn(graph, t1, "again", "run-2")
        clock.advance(3 * 60)  # run-1's checkpoints expired; its index row lives 9 more minutes
        expire_ttl_items(TABLE, now=clock.now())

        def run_rows() -> list[Key]:
            return sorted(
                key
                for key in table(saver)
                if key[0].startswith(RUN_KIND) or key[1].startswith(RUN_LINK)
            )

        pk = Thread("acme", "t1").pk
        run_1 = [(run_pk("acme", "run-1"), "t1#"), (pk, run_link_sk("run-1", ""))]
        run_2 = [(run_pk("acme", "run-2"), "t1#"), (pk, run_link_sk("run-2", ""))]
        assert run_rows() == sorted(run_1 + run_2)
        saver.for_tenant("acme").prune(["t1"])
        assert run_rows() == sorted(run_2)
        assert texts(graph, t1) == ["hello", "echo hello", "again", "echo again"]
