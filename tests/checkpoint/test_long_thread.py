"""A `DeltaChannel` thread costs per turn what the turn adds: the requests and the bytes
of request bodies of a turn late in a long thread are those of turn 10 (the turns that
write a snapshot of the whole list aside: one in fifty at LangGraph's default frequency).

Before `get_delta_channel_history`, LangGraph's default read one checkpoint per ancestor
back to the snapshot: 31 requests at turn 5, 301 at turn 50."""

from __future__ import annotations

import statistics
from typing import Any

import pytest
from langgraph.checkpoint.dynamodb import DynamoDBSaver

from bench.long_thread import DELTA, chat_graph, say
from tests.support import RequestCounter


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
    early, late = slice(5, 15), slice(turns - 10, turns)
    # Once a snapshot exists (turn 50), the history reads it: one Query more than the turns
    # before it (whose checkpoints hold no stored value of the channel), then flat.
    early_median = statistics.median(requests[early])
    assert statistics.median(requests[late]) in (early_median, early_median + 1), requests
    assert statistics.median(requests[late]) <= 9, requests
    assert statistics.median(kilobytes[late]) <= 1.1 * statistics.median(kilobytes[early])
    assert max(requests[4:]) <= 11, requests  # a snapshot past 350 KB adds its chunk rows
    assert len(graph.get_state(config).values["messages"]) == 2 * turns
