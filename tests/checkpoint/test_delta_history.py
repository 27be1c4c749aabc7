"""`get_delta_channel_history`: what LangGraph's own walk returns (one `get_tuple` per
ancestor), in two requests whatever the depth.

The reference is `BaseCheckpointSaver`'s implementation run on our saver, and
`InMemorySaver`'s override, on the random histories of the differential test: forks, two
checkpoint namespaces, channels emptied (a version with no stored value, as a
`DeltaChannel` writes between snapshots) and stored (its snapshots), pending writes of
several tasks and paths, inline and chunked."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest
from hypothesis import Phase, example, given, settings
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.dynamodb import DynamoDBSaver

from tests.checkpoint.conftest import TABLE
from tests.checkpoint.delta_graph import delta_chat_graph
from tests.checkpoint.steps import config
from tests.checkpoint.test_differential import (
    CHANNELS,
    CHUNKED,
    FORKS,
    NAMESPACES,
    REPLAY,
    Emulations,
    Op,
    Pair,
    programs,
)
from tests.support import RequestCounter

SUBSETS = [list(c) for n in (1, 3) for c in itertools.combinations(CHANNELS, n)]


def _histories(pair: Pair) -> None:
    targets = [config(pair.thread, ns, cid) for ns, cid in pair.made]
    targets += [config(pair.thread, ns) for ns in NAMESPACES]
    for target, channels in itertools.product(targets, SUBSETS):
        ours = pair.ours.get_delta_channel_history(config=target, channels=channels)
        walked = BaseCheckpointSaver.get_delta_channel_history(
            pair.ours, config=target, channels=channels
        )
        theirs = pair.theirs.get_delta_channel_history(config=target, channels=channels)
        assert dict(ours) == dict(walked) == dict(theirs), (target, channels)


# DeltaChannel's counters in every checkpoint's metadata, claiming a snapshot one step
# back: the chain is then read in Query pages of three rows, page after page.
SHORT = {"counters_since_delta_snapshot": {c: [1, 1] for c in CHANNELS}}


@pytest.mark.parametrize("metadata", [{}, SHORT], ids=["no counters", "short pages"])
def test_history_is_langgraphs_walk_on_random_histories(metadata: dict[str, Any]) -> None:
    emulations = Emulations()

    @settings(
        max_examples=20, deadline=None, derandomize=True, phases=(Phase.explicit, Phase.generate)
    )
    @given(programs)
    @example(REPLAY)
    @example(CHUNKED)
    @example(FORKS)
    def check(program: list[Op]) -> None:
        pair = Pair(emulations.saver(), metadata=metadata)
        for op in program:
            pair.apply(op)
        _histories(pair)

    with emulations.stack:
        check()


def _turns(graph: Any, cfg: dict[str, Any], turns: int) -> None:
    for turn in range(turns):
        graph.invoke({"messages": [HumanMessage(f"message {turn}")]}, cfg)


def test_history_costs_two_requests_whatever_the_depth(saver: DynamoDBSaver) -> None:
    graph = delta_chat_graph(saver, snapshot_frequency=1_000)  # no snapshot: the root seeds
    cfg = {"configurable": {"thread_id": "deep"}}
    counter = RequestCounter(saver.client)
    for turns in (2, 20):
        _turns(graph, cfg, turns)
        latest = saver.get_tuple(cfg)
        assert latest is not None
        counter.reset()
        found = saver.get_delta_channel_history(config=latest.config, channels=["messages"])
        assert counter.total <= 2, counter.calls
        walked = BaseCheckpointSaver.get_delta_channel_history(
            saver, config=latest.config, channels=["messages"]
        )
        assert found == walked
    assert len(graph.get_state(cfg).values["messages"]) == 44


def test_a_cold_saver_reads_the_target_first(saver: DynamoDBSaver) -> None:
    graph = delta_chat_graph(saver, snapshot_frequency=7)
    cfg = {"configurable": {"thread_id": "cold"}}
    _turns(graph, cfg, 12)
    latest = saver.get_tuple(cfg)
    assert latest is not None
    with DynamoDBSaver(TABLE, region_name="us-east-1") as cold:
        counter = RequestCounter(cold.client)
        found = cold.get_delta_channel_history(config=latest.config, channels=["messages"])
        assert counter.total <= 3, counter.calls
        counter.reset()
        again = cold.get_delta_channel_history(config=cfg, channels=["messages"])
        assert counter.total <= 3, counter.calls
    assert found == again
    assert "seed" in found["messages"]  # a snapshot every 7 updates


def test_async_history_is_the_sync_one(saver: DynamoDBSaver) -> None:
    graph = delta_chat_graph(saver, snapshot_frequency=5)
    cfg = {"configurable": {"thread_id": "async"}}
    _turns(graph, cfg, 6)
    sync = saver.get_delta_channel_history(config=cfg, channels=["messages"])
    found = asyncio.run(saver.aget_delta_channel_history(config=cfg, channels=["messages"]))
    assert found == sync and found["messages"]["writes"]
    assert asyncio.run(saver.aget_delta_channel_history(config=cfg, channels=[])) == {}


def test_a_snapshot_in_chunk_rows_is_read_in_the_second_request(saver: DynamoDBSaver) -> None:
    """A snapshot past one row (350 KB) is a head and chunk rows: the checkpoint that
    wrote it records its chunk count, so one BatchGetItem reads them all (not a Query
    for the head, then the chunks)."""
    graph = delta_chat_graph(saver, snapshot_frequency=4)
    cfg = {"configurable": {"thread_id": "big"}}
    for turn in range(3):  # a snapshot at the 4th update: 4 messages of 120 KB
        graph.invoke({"messages": [HumanMessage(f"{turn} ".ljust(120_000, "x"))]}, cfg)
    latest = saver.get_tuple(cfg)
    assert latest is not None
    counter = RequestCounter(saver.client)
    found = saver.get_delta_channel_history(config=latest.config, channels=["messages"])
    assert counter.total <= 2, counter.calls
    walked = BaseCheckpointSaver.get_delta_channel_history(
        saver, config=latest.config, channels=["messages"]
    )
    assert found == walked and "seed" in found["messages"]
    for stored in list(saver.list(cfg)):  # those naming the snapshot read its chunks too
        counter.reset()
        assert saver.get_tuple(stored.config) == stored
        assert counter.total <= 2, (stored.metadata, counter.calls)
    assert len(graph.get_state(cfg).values["messages"]) == 6
    # The snapshot's value row gone (pruned, expired): the history is still LangGraph's.
    (snapshot,) = [r for r in saver.thread_rows("big") if r["SK"].startswith("b##messages#")]
    saver.client.delete_item(TableName=TABLE, Key={k: {"S": snapshot[k]} for k in ("PK", "SK")})
    found = saver.get_delta_channel_history(config=latest.config, channels=["messages"])
    walked = BaseCheckpointSaver.get_delta_channel_history(
        saver, config=latest.config, channels=["messages"]
    )
    assert found == walked and "seed" not in found["messages"]
