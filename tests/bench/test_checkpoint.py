"""The checkpointer benchmark runs end to end at a tiny size, and ours keeps issue 22's
request budget on the graph workload.

No timing is asserted: counts of the DynamoDB requests each call of ours sent (counted at
botocore's boundary by `bench.instrument.Meter`), on a real graph through boto3 and the
emulation.
"""

from __future__ import annotations

import pytest

from bench.checkpoint import (
    BUDGETS,
    EXTENDED,
    KINDS,
    LIST,
    MB,
    NOT_SUPPORTED,
    ROUND_TRIP,
    Plan,
    Results,
    markdown,
    run,
)
from bench.instrument import Latency
from bench.stores import CHECKPOINT_AWS, OURS

# 3 turns make 15 checkpoints a thread: more than list(limit=10) returns
TINY = Plan(threads=2, turns=3, sizes=(MB,), latency=Latency(dynamodb_ms=0.0))


@pytest.fixture(scope="module")
def results() -> Results:
    return run(TINY)


def _requests(results: Results, kind: str) -> list[int]:
    return [s.usage.requests for s in results.calls[OURS][kind].samples]


def test_put_and_put_writes_are_one_request_each(results: Results) -> None:
    for kind in ("put", "put_writes"):
        sent = _requests(results, kind)
        assert len(sent) >= TINY.threads * TINY.turns, kind
        assert set(sent) == {BUDGETS[kind]} == {1}, (kind, results.calls[OURS][kind].apis)


def test_get_tuple_and_list_keep_their_budget(results: Results) -> None:
    assert max(_requests(results, "get_tuple")) <= BUDGETS["get_tuple"] == 2
    listed = results.calls[OURS][LIST]
    assert all(len(s.result) == 10 for s in listed.samples)  # a full page was read
    assert max(_requests(results, LIST)) <= BUDGETS[LIST] == 3, listed.apis


def test_every_call_is_reported_for_both_savers(results: Results) -> None:
    for kind in KINDS:
        assert results.calls[OURS][kind].status == "ok", kind
        assert results.calls[OURS][kind].samples, kind
        peer = results.calls[CHECKPOINT_AWS][kind]
        assert peer.status == "ok" or (peer.status == NOT_SUPPORTED and kind in EXTENDED), kind
    assert results.calls[OURS]["delete_for_runs"].most("write_units") > 0  # it deleted rows


def test_large_values_round_trip_on_ours_and_the_peer_is_reported(results: Results) -> None:
    (ours,) = results.large[OURS]
    assert ours.status == ROUND_TRIP and ours.get is not None
    assert ours.get.requests <= 3 and ours.rows_after > ours.rows_before
    (peer,) = results.large[CHECKPOINT_AWS]
    assert peer.put.requests >= 1 and peer.status
    assert peer.status == ROUND_TRIP or peer.status.startswith("fails: ")


def test_markdown_has_the_table_and_the_budgets(results: Results) -> None:
    text = markdown(results)
    assert all(f"| {kind} |" in text for kind in KINDS)
    assert "## Request budgets of ours" in text and "**no**" not in text
