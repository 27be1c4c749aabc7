"""`prune(keep_latest)` on a graph with a `DeltaChannel` (LangGraph beta): the kept
checkpoint's state must still rebuild, so the ancestors its delta channels replay back to
their last snapshot are kept with their writes."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Annotated, Any, TypedDict

from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.graph import END, START, StateGraph


def _extend(state: list[str], writes: Sequence[list[str]]) -> list[str]:
    return list(state) + [item for write in writes for item in write]


class State(TypedDict):
    log: Annotated[list[str], DeltaChannel(_extend, snapshot_frequency=3)]
    steps: Annotated[int, operator.add]


def _step(state: State) -> dict[str, Any]:
    return {"log": [f"entry {state.get('steps', 0)}"], "steps": 1}


def test_prune_keeps_what_a_delta_channel_replays(saver: DynamoDBSaver) -> None:
    graph = StateGraph(State)
    graph.add_node("step", _step)
    graph.add_edge(START, "step")
    graph.add_edge("step", END)
    app = graph.compile(checkpointer=saver)
    config: dict[str, Any] = {"configurable": {"thread_id": "delta"}}
    for _ in range(5):
        app.invoke({"log": [], "steps": 0}, config)
    before = app.get_state(config).values
    assert len(before["log"]) == 5
    saver.prune(["delta"])
    assert app.get_state(config).values == before
    assert len(list(saver.list(config))) < 10
