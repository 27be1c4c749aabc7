"""The store every example runs on: DynamoDB with Titan embeddings through Bedrock (served
by the emulation when run under `mock_aws`, by AWS otherwise)."""

from __future__ import annotations

from langchain_aws import BedrockEmbeddings
from langgraph.store.dynamodb import DynamoDBStore


def bedrock_store(fields: list[str], table: str = "agent-memory") -> DynamoDBStore:
    """A set-up store embedding the value paths `fields` with Titan Text Embeddings V2."""
    embed = BedrockEmbeddings(model_id="amazon.titan-embed-text-v2:0", region_name="us-east-1")
    store = DynamoDBStore(
        table,
        region_name="us-east-1",
        index={"dims": 1024, "fields": fields, "embed": embed},
    )
    store.setup()
    return store
