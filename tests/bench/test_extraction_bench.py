"""`bench.extraction` on a few threads: each turn forms exactly one searchable memory with
one model call, the pipeline's requests per memory are counted (never timed), and the
timed paths end with every memory searchable."""

from __future__ import annotations

from langgraph.store.dynamodb.testing import mock_aws

from bench.extraction import costs, latencies, throughput
from bench.instrument import Meter


def test_each_trigger_forms_one_memory_with_one_model_call() -> None:
    with mock_aws(), Meter() as meter:
        measured = costs(meter, 3)
    assert (measured.memories, measured.triggers, measured.model_calls) == (3, 3, 3)
    assert measured.input_tokens > 0 and measured.output_tokens > 0
    assert measured.calls["Converse"] == 3 and measured.calls["TransactWriteItems"] >= 3
    assert measured.dynamodb_requests > 0 and measured.write_units > 0
    assert "Scan" not in measured.calls


def test_the_timed_paths_wait_for_every_memory() -> None:
    with mock_aws():
        waits = latencies(2, batching=0.05)
    with mock_aws():
        processed, searchable = throughput(3, batching=0.05)
    assert len(waits) == 2 and all(w > 0 for w in waits)
    assert 0 < processed <= searchable
