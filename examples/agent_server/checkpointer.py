"""The checkpointer `langgraph.json` points at: the agent's threads (short-term memory) on
the store's DynamoDB table, configured by the same `DYNAMODB_MEMORY_*` variables."""

from langgraph.store.dynamodb.agent_server import generate_checkpointer

__all__ = ["generate_checkpointer"]
