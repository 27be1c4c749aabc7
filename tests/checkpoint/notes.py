"""A graph whose state keeps a large value that later turns leave alone (`notes`), so a
thread holds rows written at different times: the value's row and chunks from the first
turn, shared by every later checkpoint, beside the checkpoints of later turns. Used by
the TTL and erasure tests."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

# Large enough for two chunk rows (payloads.CHUNK_BYTES is 350 KB).
BIG_NOTES = "n" * 600_000
# Large enough for a pending write's chunk rows (rows.WRITE_INLINE is 16 KB).
BIG_WRITE = "w" * 40_000


class Notes(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    notes: str
    turns: int


def _reply(state: Notes) -> dict[str, Any]:
    last = state["messages"][-1].content
    return {"messages": [AIMessage(f"echo {last}")], "turns": state.get("turns", 0) + 1}


def notes_graph(checkpointer: Any) -> Any:
    """START -> reply -> END: three checkpoints per turn."""
    graph = StateGraph(Notes)
    graph.add_node("reply", _reply)
    graph.add_edge(START, "reply")
    graph.add_edge("reply", END)
    return graph.compile(checkpointer=checkpointer)


def config(thread: str, tenant: str | None = None) -> dict[str, Any]:
    configurable = {"thread_id": thread} | ({"tenant": tenant} if tenant else {})
    return {"configurable": configurable}


def turn(graph: Any, cfg: dict[str, Any], text: str, run: str, notes: str | None = None) -> None:
    """One turn of the conversation, as run `run` (LangGraph puts it in the metadata)."""
    state: dict[str, Any] = {"messages": [HumanMessage(text)]}
    if notes is not None:
        state["notes"] = notes
    graph.invoke(state, {**cfg, "metadata": {"run_id": run}})


def texts(graph: Any, cfg: dict[str, Any]) -> list[str]:
    return [m.content for m in graph.get_state(cfg).values.get("messages", [])]
