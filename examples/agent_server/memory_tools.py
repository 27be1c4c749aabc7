"""Memory tools for `create_agent`: they reach long-term memory through `runtime.store`
(the store the agent was created with, or the one Agent Server provides)."""

from __future__ import annotations

from dataclasses import dataclass

from langchain.tools import ToolRuntime, tool


@dataclass
class Context:
    user_id: str


@tool
def save_memory(text: str, runtime: ToolRuntime[Context]) -> str:
    """Remember a fact about the user."""
    assert runtime.store is not None
    namespace = ("memories", runtime.context.user_id)
    key = f"m{len(runtime.store.search(namespace, limit=100)) + 1}"
    runtime.store.put(namespace, key, {"text": text})
    return f"saved {key}"


@tool
def recall(query: str, runtime: ToolRuntime[Context]) -> str:
    """Look up what we know about the user."""
    assert runtime.store is not None
    hits = runtime.store.search(("memories", runtime.context.user_id), query=query, limit=2)
    return "\n".join(f"{hit.score:.2f} {hit.value['text']}" for hit in hits) or "nothing"
