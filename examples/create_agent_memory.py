"""`create_agent(..., store=store)` with tools that read and write long-term memory
through `runtime.store`: what one thread saves, another thread recalls.

Run it offline: `python examples/create_agent_memory.py` (or `python -m
examples.create_agent_memory`): DynamoDB and Bedrock are emulated, the chat model plays
a script."""

from __future__ import annotations

from dataclasses import dataclass

from langchain.agents import create_agent
from langchain.tools import ToolRuntime, tool
from langchain_aws import BedrockEmbeddings
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.testing import ScriptedChatModel, tool_call


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


def run(store: DynamoDBStore) -> list[str]:
    """Two threads of one user; returns what the agent recalled in the second."""
    model = ScriptedChatModel(
        responses=[
            tool_call("save_memory", "c1", text="Prefers email, never phone calls"),
            AIMessage("Saved."),
            tool_call("recall", "c2", query="how should I contact this user?"),
            AIMessage("I'll email you."),
        ]
    )
    agent = create_agent(
        model,
        tools=[save_memory, recall],
        context_schema=Context,
        checkpointer=InMemorySaver(),
        store=store,
    )
    user = Context(user_id="user-8812")
    agent.invoke(
        {"messages": [{"role": "user", "content": "I prefer email."}]},
        {"configurable": {"thread_id": "monday"}},
        context=user,
    )
    state = agent.invoke(
        {"messages": [{"role": "user", "content": "How will you reach me?"}]},
        {"configurable": {"thread_id": "tuesday"}},
        context=user,
    )
    return [str(m.content) for m in state["messages"] if m.type == "tool"]


def main() -> None:
    """Run against the DynamoDB and Bedrock the environment points at."""
    embed = BedrockEmbeddings(model_id="amazon.titan-embed-text-v2:0", region_name="us-east-1")
    index = {"dims": 1024, "fields": ["text"], "embed": embed}
    with DynamoDBStore.from_table(
        "agent-memory", region_name="us-east-1", index=index, setup=True
    ) as store:
        print(run(store))


if __name__ == "__main__":
    from langgraph.store.dynamodb.testing import mock_aws

    with mock_aws():
        main()
