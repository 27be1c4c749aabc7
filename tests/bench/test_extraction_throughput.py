"""`bench.extraction_throughput` at a tiny size: two extraction Lambda instances on one
tenant's threads, each request delivered twice so copies of a thread meet on both: every
thread's memory forms, once."""

from __future__ import annotations

from langgraph.store.dynamodb.testing import mock_aws

from bench.extraction_throughput import throughput


def test_threads_spread_over_instances_form_each_memory_once() -> None:
    with mock_aws():
        measured = throughput(2, 6, batching=0.05, twice=True)
    assert len(measured.waits) == 6 and all(w > 0 for w in measured.waits)
    assert (measured.memories, measured.duplicates) == (6, 0)
    assert sum(measured.spread) >= 12  # every request and its copy (and any deferred again)
