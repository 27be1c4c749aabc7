"""The store under injected faults: a mixed workload against a shadow model.

`make test` runs short workloads; `make test-hardening` runs the full ones (2,000
operations, 20% of requests faulted) and prints the figures issue 8 asks for.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from botocore.config import Config
from langgraph.store.dynamodb.testing import mock_aws

from tests.fault.layer import FaultLayer
from tests.fault.workload import Workload, final_report, make_store
from tests.support import FakeClock

# "retried": the client retries (legacy mode: DynamoDB's 50 ms base backoff), so most
# faults are absorbed and the store must stay exact through retries of requests that
# may already have been applied. "surfacing": no client retries, so every fault reaches
# the store and many operations fail; the caller must see each of them fail.
CLIENTS = {
    "retried": Config(retries={"mode": "legacy", "max_attempts": 4}),
    "surfacing": Config(retries={"mode": "legacy", "max_attempts": 1}),
}


@pytest.fixture
def emulated() -> Iterator[None]:
    with mock_aws():
        yield


def run(
    clock: FakeClock, client: str, operations: int, rate: float, seed: int
) -> dict[str, object]:
    setup = make_store()
    setup.setup()
    store = make_store(boto_config=CLIENTS[client])
    layer = FaultLayer(store.client, rate=rate, seed=seed)
    workload = Workload(store, clock, seed=seed)
    workload.run(operations)
    layer.enabled = False
    report = final_report(store, workload.model)
    figures = {
        "client": client,
        "operations": workload.stats.operations,
        "operations that raised": workload.stats.raised,
        "requests": layer.requests,
        "faults injected": sum(layer.injected.values()),
        "faults by kind": dict(layer.injected),
        "items at the end": report.items,
        "mismatches": len(report.mismatches),
        "missing vectors": len(report.missing_vectors),
        "stale vectors": len(report.stale_vectors),
        "orphan vector rows (garbage, never read)": report.orphan_vector_rows,
        "registry errors": len(report.registry),
    }
    print(f"\nfault workload figures: {figures}")
    assert report.mismatches == []
    assert (report.missing_vectors, report.stale_vectors) == ([], [])
    assert report.registry == []
    return figures


@pytest.mark.parametrize("client", list(CLIENTS))
def test_a_short_workload_under_faults_matches_the_model(
    emulated: None, clock: FakeClock, client: str
) -> None:
    figures = run(clock, client, operations=150, rate=0.2, seed=7)
    assert figures["faults injected"]


@pytest.mark.hardening
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("client", list(CLIENTS))
def test_the_full_workload_under_faults_matches_the_model(
    emulated: None, clock: FakeClock, client: str, seed: int
) -> None:
    run(clock, client, operations=2000, rate=0.2, seed=seed)
