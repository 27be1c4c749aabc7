"""langmem's memory tools on the store, in `create_agent`, with the README's recommended
index config (`fields: ["content"]`, langmem stores `{"content": ...}`): one namespace
per user, `("memories", "{langgraph_user_id}")`, filled in from the run's config.

Run it offline: `python examples/langmem_tools.py` (or `python -m examples.langmem_tools`).
"""

from __future__ import annotations

import json

from langchain.agents import create_agent
from langchain_aws import BedrockEmbeddings
from langchain_core.messages import AIMessage
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.testing import ScriptedChatModel, tool_call
from langmem import create_manage_memory_tool, create_search_memory_tool

NAMESPACE = ("memories", "{langgraph_user_id}")


def run(store: DynamoDBStore) -> list[str]:
    """Alice stores two memories, Bob one; Alice's search sees only hers, best first."""
    tools = [create_manage_memory_tool(NAMESPACE), create_search_memory_tool(NAMESPACE)]
    script = [
        tool_call("manage_memory", "a1", content="Account runs a proxy that closes idle sockets"),
        AIMessage("Noted."),
        tool_call("manage_memory", "a2", content="Prefers email, never phone calls"),
        AIMessage("Noted."),
        tool_call("manage_memory", "b1", content="Runs everything behind a proxy too"),
        AIMessage("Noted."),
        tool_call("search_memory", "a3", query="idle sockets closed by the proxy"),
        AIMessage("Found it."),
    ]
    agent = create_agent(ScriptedChatModel(responses=script), tools=tools, store=store)
    for user, text in [("alice", "note 1"), ("alice", "note 2"), ("bob", "note"), ("alice", "?")]:
        state = agent.invoke(
            {"messages": [{"role": "user", "content": text}]},
            {"configurable": {"langgraph_user_id": user}},
        )
    found = json.loads(str(state["messages"][-2].content))
    return [hit["value"]["content"] for hit in found]


def main() -> None:
    """Run against the DynamoDB and Bedrock the environment points at."""
    embed = BedrockEmbeddings(model_id="amazon.titan-embed-text-v2:0", region_name="us-east-1")
    index = {"dims": 1024, "fields": ["content"], "embed": embed}
    with DynamoDBStore.from_table(
        "agent-memory", region_name="us-east-1", index=index, setup=True
    ) as store:
        print(run(store))


if __name__ == "__main__":
    from langgraph.store.dynamodb.testing import mock_aws

    with mock_aws():
        main()
