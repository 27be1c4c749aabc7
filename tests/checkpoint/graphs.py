"""A small real LangGraph graph for the saver's tests: a chat turn through two nodes."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    turns: int


def _think(state: State) -> dict[str, Any]:
    return {"turns": state.get("turns", 0) + 1}


def _reply(state: State) -> dict[str, Any]:
    last = state["messages"][-1].content
    return {"messages": [AIMessage(f"echo {last}")]}


def chat_graph(checkpointer: Any) -> Any:
    """START -> think -> reply -> END, compiled with `checkpointer`."""
    graph = StateGraph(State)
    graph.add_node("think", _think)
    graph.add_node("reply", _reply)
    graph.add_edge(START, "think")
    graph.add_edge("think", "reply")
    graph.add_edge("reply", END)
    return graph.compile(checkpointer=checkpointer)


def say(text: str) -> dict[str, Any]:
    return {"messages": [HumanMessage(text)]}
