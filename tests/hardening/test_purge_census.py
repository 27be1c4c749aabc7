"""Purges killed at every request, after each failure sequence of issue 30, then run
again: the census (`tests/census.py`, one Scan of the table) must agree with the rerun's
report, kind by kind, and find nothing of the tenant left; every row outside the purge's
scope stays exactly as it was, whatever request the kill hit.

Sequences (`tests/purge/sequences.py`): a tenant with memories and threads; with a thread
whose registry row expired; with a refused first put whose pending writes landed; with
thread ids at the key limits; with what a writer racing a first purge left (one new to the
thread, one trusting the registry row it wrote just before); and a wipe of
every tenant with tenant-keyed and tenant-less savers' threads. Each runs with a purge
that trusts the registries and with one that sweeps by Scan (`scan=True`).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from langgraph.checkpoint.dynamodb.erasure import every_thread_sources, thread_sources
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.jobs.purge import PurgeResult
from langgraph.store.dynamodb.table.schema import PK, SK
from langgraph.store.dynamodb.testing import mock_aws

from tests import census
from tests.census import EVERY, Scope
from tests.fault.layer import FaultLayer
from tests.purge import sequences
from tests.purge.sequences import THREADS
from tests.purge.tenants import TABLE, TENANT, Row, make_store, rows
from tests.purge.test_resume import KILLED, ONCE, from_request
from tests.support import FakeClock, RequestCounter

pytestmark = pytest.mark.hardening

Setup = Callable[[DynamoDBStore, FakeClock], None]


def _racing(knows: bool) -> Setup:
    def setup(store: DynamoDBStore, _: FakeClock) -> None:
        writer = sequences.RacingWriter(knows)
        sources = thread_sources(store.client, TABLE, THREADS)
        store.purge(TENANT, sources=sources, on_progress=writer)
        assert writer.wrote

    return setup


# name -> what the sequence adds to the tenant with threads
SEQUENCES: dict[str, Setup] = {
    "tenant with threads": lambda store, clock: None,
    "expired registry": lambda store, clock: sequences.expired_registry(clock),
    "refused first put": lambda store, clock: sequences.refused_first_put(),
    "ids at the key limits": lambda store, clock: sequences.long_thread_ids(),
    "racing writer": _racing(knows=False),
    "racing writer that knows the thread": _racing(knows=True),
}


def reset(store: DynamoDBStore, wanted: list[Row]) -> None:
    """Make the table hold exactly `wanted`."""
    keep = {(r[PK]["S"], r[SK]["S"]) for r in wanted}
    doomed = [
        {"DeleteRequest": {"Key": {PK: r[PK], SK: r[SK]}}}
        for r in rows(store)
        if (r[PK]["S"], r[SK]["S"]) not in keep
    ]
    puts = [{"PutRequest": {"Item": row}} for row in wanted]
    requests = doomed + puts
    for start in range(0, len(requests), 25):
        chunk = requests[start : start + 25]
        assert not store.client.batch_write_item(RequestItems={TABLE: chunk})["UnprocessedItems"]
    assert rows(store) == wanted


def kill_everywhere(
    store: DynamoDBStore, scope: Scope, run: Callable[[DynamoDBStore], PurgeResult], name: str
) -> int:
    """Kill `run` at each of its requests in turn, from the same table, then run it again
    on a healthy client: outside rows untouched, the census agreeing with the rerun and
    finding nothing. Returns the kill points."""
    before = rows(store)
    assert census.census_of(before, scope).total > 0
    counter = RequestCounter(store.client)
    run(store)
    total = counter.total
    victim = make_store(boto_config=ONCE)
    for n in range(total):
        reset(store, before)
        layer = FaultLayer(victim.client, rate=1.0, kinds=(KILLED,), when=from_request(n))
        with pytest.raises(Exception):  # noqa: B017 - whatever the kill looks like
            run(victim)
        layer.remove()
        after = rows(store)
        assert census.outside(after, scope) == census.outside(before, scope), f"killed at {n}"
        result = run(store)
        left = census.check(store.client, TABLE, scope, result)
        assert left.total == 0, f"{name}: killed at {n}, {left.by_kind()}"
        assert census.outside(rows(store), scope) == census.outside(before, scope)
    print(f"\n{name}: killed at each of {total} requests, census agreed after each rerun")
    return total


def tenant_purge(scan: bool) -> Callable[[DynamoDBStore], PurgeResult]:
    def run(store: DynamoDBStore) -> PurgeResult:
        sources = thread_sources(store.client, TABLE, THREADS)
        return store.purge(TENANT, sources=sources, scan=scan)

    return run


CASES = [
    pytest.param(name, scan, id=f"{name}-{'scan' if scan else 'registry'}")
    for name in SEQUENCES
    for scan in (False, True)
]


@pytest.mark.parametrize(("name", "scan"), CASES)
def test_a_purge_killed_at_every_request_then_rerun_leaves_nothing(
    name: str, scan: bool, clock: FakeClock
) -> None:
    with mock_aws():
        store = make_store()
        store.setup()
        sequences.tenant_with_threads(store)
        SEQUENCES[name](store, clock)
        mode = "scan" if scan else "registry"
        kill_everywhere(store, Scope(TENANT, (THREADS,)), tenant_purge(scan), f"{name}, {mode}")


def test_a_wipe_of_every_tenant_killed_at_every_request(clock: FakeClock) -> None:
    with mock_aws():
        store = make_store()
        store.setup()
        sequences.tenant_with_threads(store)
        sequences.refused_first_put()
        sequences.expired_registry(clock)

        def wipe(victim: DynamoDBStore) -> PurgeResult:
            return victim.purge((), all_tenants=True, sources=every_thread_sources())

        kill_everywhere(store, Scope((), (EVERY,)), wipe, "every tenant")
