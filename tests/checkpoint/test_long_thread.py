"""A `DeltaChannel` thread costs per turn what the turn adds: the requests and the bytes
of request bodies of a turn late in a long thread are those of turn 10.

Like is compared with like. At LangGraph's default frequency (a snapshot every 100
updates, 2 a turn) every 50th turn writes the snapshot, the whole list, so its bytes grow
with the thread by design: those turns are compared with the earlier snapshot turns
(requests: those of the turns around them, plus one BatchWriteItem of chunk rows once the
snapshot passes 350 KB), the others with turns 6 to 15 (requests and bytes). Once a
snapshot exists a turn's history reads it (one BatchGetItem: the value row and its chunks,
whose count the checkpoint row records), one request more than the turns before it.

Before `get_delta_channel_history`, LangGraph's default read one checkpoint per ancestor
back to the snapshot: 31 requests at turn 5, 301 at turn 50; before the chunk counts, a
snapshot past 350 KB (from about turn 350) took a Query and then a BatchGetItem: 9."""

from __future__ import annotations

import statistics
from typing import Any

import pytest
from langgraph.checkpoint.dynamodb import DynamoDBSaver

from bench.long_thread import DELTA, chat_graph, say
from tests.support import RequestCounter

# At 2 updates a turn, LangGraph's default snapshot frequency (100 updates) writes the
# whole list every 50 turns.
SNAPSHOT_TURNS = 50


class BodyBytes:
    """Bytes of the request bodies a client sends."""

    def __init__(self, client: Any) -> None:
        self.total = 0
        client.meta.events.register("before-send.dynamodb", self._sent)

    def _sent(self, request: Any, **_: Any) -> None:
        self.total += len(request.body or b"")


@pytest.mark.parametrize(
    "turns",
    [pytest.param(60, id="60"), pytest.param(1_000, id="1000", marks=pytest.mark.hardening)],
)
def test_a_delta_channel_turn_costs_the_same_late_in_a_long_thread(
    saver: DynamoDBSaver, turns: int
) -> None:
    graph = chat_graph(saver, DELTA)
    config = {"configurable": {"thread_id": "long"}}
    counter, sent = RequestCounter(saver.client), BodyBytes(saver.client)
    requests, kilobytes = [], []
    for turn in range(1, turns + 1):
        counter.reset()
        before = sent.total
        graph.invoke(say(turn), config)
        requests.append(counter.total)
        kilobytes.append((sent.total - before) / 1024)
    snapshot = {turn for turn in range(1, turns + 1) if turn % SNAPSHOT_TURNS == 0}
    early = list(range(6, 16))
    late = [t for t in range(turns - 20, turns + 1) if t not in snapshot]

    def at(values: list[Any], chosen: list[int]) -> list[Any]:
        return [values[t - 1] for t in chosen]

    early_requests = statistics.median(at(requests, early))
    assert early_requests <= 7, requests
    assert max(at(requests, late)) <= early_requests + 1, at(requests, late)
    assert statistics.median(at(kilobytes, late)) <= 1.1 * statistics.median(at(kilobytes, early))
    # A snapshot turn sends what the turns around it do (its put is one transaction with
    # the snapshot's value row), and past 350 KB the snapshot's chunk rows first (one
    # BatchWriteItem): its requests do not grow with the thread either.
    late_requests = statistics.median(at(requests, late))
    assert max(at(requests, sorted(snapshot))) <= late_requests + 1, at(requests, sorted(snapshot))
    assert len(graph.get_state(config).values["messages"]) == 2 * turns
