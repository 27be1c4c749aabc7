"""The store `langgraph.json` points at: long-term memory on DynamoDB, configured by the
`DYNAMODB_MEMORY_*` variables (see langgraph.store.dynamodb.basestore.config)."""

from langgraph.store.dynamodb.agent_server import generate_store

__all__ = ["generate_store"]
