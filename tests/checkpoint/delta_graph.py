"""A chat graph whose `messages` live in LangGraph's `DeltaChannel`: each checkpoint
stores only the turn's writes, and every `snapshot_frequency` updates the whole list."""

from collections.abc import Sequence
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, AnyMessage
from langgraph.channels.delta import DeltaChannel
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages


def append_messages(state: list[AnyMessage], writes: Sequence[Any]) -> list[AnyMessage]:
    """`add_messages` over a batch of writes (DeltaChannel's reducer shape)."""
    merged: list[AnyMessage] = list(state or [])
    for write in writes:
        merged = add_messages(merged, write)
    return merged


def delta_chat_graph(checkpointer: Any, snapshot_frequency: int = 100) -> Any:
    """START -> reply -> END, the reply echoing the last message."""

    class State(TypedDict):
        messages: Annotated[
            list[AnyMessage], DeltaChannel(append_messages, snapshot_frequency=snapshot_frequency)
        ]

    def reply(state: State) -> dict[str, Any]:
        return {"messages": [AIMessage(f"echo {state['messages'][-1].content}")]}

    graph = StateGraph(State)
    graph.add_node("reply", reply)
    graph.add_edge(START, "reply")
    graph.add_edge("reply", END)
    return graph.compile(checkpointer=checkpointer)
