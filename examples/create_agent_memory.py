"""`create_agent(..., store=store)` with tools that read and write long-term memory
through `runtime.store`: what one thread saves, another thread recalls."""

from __future__ import annotations

from langchain.agents import create_agent
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.dynamodb import DynamoDBStore

from examples.agent_server.memory_tools import Context, recall, save_memory
from examples.memory_store import bedrock_store
from examples.scripted_model import ScriptedChatModel, call


def run(store: DynamoDBStore) -> list[str]:
    """Two threads of one user; returns what the agent recalled in the second."""
    model = ScriptedChatModel(
        responses=[
            call("save_memory", "c1", text="Prefers email, never phone calls"),
            AIMessage("Saved."),
            call("recall", "c2", query="how should I contact this user?"),
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
    store = bedrock_store(["text"])
    print(run(store))


if __name__ == "__main__":
    from langgraph.store.dynamodb.testing import mock_aws

    with mock_aws():
        main()
