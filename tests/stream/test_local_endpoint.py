"""Behind local_endpoint() stream-mode writes are embedded with no consumer configuration."""

from __future__ import annotations

import time

from langchain_aws import BedrockEmbeddings
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.testing import local_endpoint

from tests.stream.conftest import NS, TABLE


def test_local_endpoint_embeds_stream_writes_with_the_pinned_bedrock_model() -> None:
    with local_endpoint() as url:
        embed = BedrockEmbeddings(
            model_id="amazon.titan-embed-text-v2:0",
            dimensions=256,
            region_name="us-east-1",
            endpoint_url=url,
        )
        store = DynamoDBStore(
            TABLE,
            region_name="us-east-1",
            endpoint_url=url,
            index={"dims": 256, "embed": embed, "fields": ["text"], "embed_on": "stream"},
        )
        store.setup()
        store.put(NS, "mem-1", {"text": "Account runs a proxy that closes idle sockets"})
        deadline = time.monotonic() + 10
        found = []
        while not found and time.monotonic() < deadline:
            found = store.search(NS, query="idle sockets", limit=1)
            time.sleep(0.05)
        assert [r.key for r in found] == ["mem-1"]


def test_an_open_endpoint_leaves_in_process_tests_to_drive_their_stream() -> None:
    from langgraph.store.dynamodb.items.rows import key_of
    from langgraph.store.dynamodb.table.schema import PENDING
    from langgraph.store.dynamodb.testing import LexicalEmbeddings, mock_aws

    with local_endpoint(), mock_aws():
        # A model the endpoint's consumer could run, were it to meddle.
        embed = LexicalEmbeddings(dims=64)
        store = DynamoDBStore(
            TABLE,
            region_name="us-east-1",
            index={"dims": 64, "embed": embed, "fields": ["text"], "embed_on": "stream"},
        )
        store.setup()
        store.put(NS, "mem-1", {"text": "waits for drain_stream"})
        time.sleep(0.3)  # several polling rounds of the endpoint's consumer
        row = store.client.get_item(
            TableName=TABLE, Key={k: {"S": v} for k, v in key_of(NS, "mem-1").items()}
        )["Item"]
        assert PENDING in row
