"""The support agent `make demo` runs: a LangGraph graph whose nodes reach long-term
memory through the store LangGraph hands them (`runtime.store`, `get_store()`).

Turn by turn: `recall` searches the user's memories for the new message, `respond` asks
the chat model with them, `remember` stores what the user asked to be remembered. A turn
that starts with "Remember:" is stored (optionally "Remember for N minutes:" with a TTL).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.config import get_store
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore

# The `configurable` key naming the tenant whose thread a config is (DynamoDBSaver's
# tenant_key): the tenant leads every key of its threads, as it leads its namespaces. The
# deployed extraction worker reads threads by the same key (the stack's threadTenantKey).
TENANT_KEY = "tenant"
REMEMBER = re.compile(r"^remember(?: for (?P<minutes>[\d.]+) minutes?)?:\s*(?P<text>.+)$", re.I)


@dataclass(frozen=True)
class Tenant:
    """Who the conversation is with: the graph's runtime context."""

    tenant: str
    user_id: str

    @property
    def namespace(self) -> tuple[str, str, str]:
        """The user's memories: `("memories", tenant, user)`, the multi-tenant layout of
        docs/design.md, so one semantic search covers exactly this user of this tenant."""
        return ("memories", self.tenant, self.user_id)


class State(MessagesState):
    """Messages plus what `recall` found for the latest one (key, text, score)."""

    recalled: list[tuple[str, str, float]]


def recall(state: State, runtime: Runtime[Tenant]) -> dict[str, Any]:
    """Search the user's memories for the latest message (through `runtime.store`)."""
    assert runtime.store is not None
    message = str(state["messages"][-1].content)
    if REMEMBER.match(message):
        return {"recalled": []}
    hits = runtime.store.search(runtime.context.namespace, query=message, limit=3)
    return {"recalled": [(hit.key, hit.value["text"], hit.score or 0.0) for hit in hits]}


def make_respond(model: BaseChatModel) -> Any:
    def respond(state: State) -> dict[str, Any]:
        """Answer with the recalled memories in the system prompt."""
        notes = "\n".join(f"- {text}" for _, text, _ in state.get("recalled", []))
        system = SystemMessage(f"You are a support agent. What you remember:\n{notes or '-'}")
        return {"messages": [model.invoke([system, *state["messages"]])]}

    return respond


def remember(state: State, runtime: Runtime[Tenant]) -> dict[str, Any]:
    """Store the latest message when it asks to be remembered (through `get_store()`)."""
    human = [m for m in state["messages"] if isinstance(m, HumanMessage)]
    found = REMEMBER.match(str(human[-1].content)) if human else None
    if found:
        store, namespace, minutes = get_store(), runtime.context.namespace, found["minutes"]
        count = len(store.search(namespace, limit=1000))
        store.put(
            namespace,
            f"mem-{count + 1}",
            {"text": found["text"], "source": "chat"},
            ttl=float(minutes) if minutes else None,
        )
    return {}


def build_agent(
    model: BaseChatModel, store: BaseStore, checkpointer: BaseCheckpointSaver[Any]
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """recall -> respond -> remember, compiled with a checkpointer and the store."""
    graph = StateGraph(State, context_schema=Tenant)
    graph.add_node("recall", recall)
    graph.add_node("respond", make_respond(model))
    graph.add_node("remember", remember)
    graph.add_edge(START, "recall")
    graph.add_edge("recall", "respond")
    graph.add_edge("respond", "remember")
    graph.add_edge("remember", END)
    return graph.compile(checkpointer=checkpointer, store=store)


def say(
    agent: CompiledStateGraph[Any, Any, Any, Any], who: Tenant, thread: str, text: str
) -> dict[str, Any]:
    """One user turn in `thread`; returns the final state."""
    state: dict[str, Any] = agent.invoke(
        {"messages": [HumanMessage(text)]},
        config=thread_config(who, thread),
        context=who,
    )
    return state


def thread_config(who: Tenant, thread: str) -> RunnableConfig:
    """The config of one of `who`'s threads: the thread id, the tenant that leads the
    thread's keys in a checkpointer created with `tenant_key=TENANT_KEY`, and the user
    (kept in the checkpoints' metadata, where extraction's namespace templates read it)."""
    return {"configurable": {"thread_id": thread, TENANT_KEY: who.tenant, "user_id": who.user_id}}


def last_reply(messages: Sequence[BaseMessage]) -> str:
    """The text of the agent's latest message."""
    return next(str(m.content) for m in reversed(messages) if isinstance(m, AIMessage))
