"""Embedders are built in one place (`store/langgraph/store/dynamodb/embedders/build.py`): the store configured by name
(CLI, config file, environment) and the stream consumer get the same model, with the
same dimensions."""

from __future__ import annotations

from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.basestore.config import StoreSettings
from langgraph.store.dynamodb.stream.consumer import consumer_from_env
from langgraph.store.dynamodb.testing import mock_aws

NS = ("memories", "u1")
TITAN = "amazon.titan-embed-text-v2:0"


def test_titan_v2_at_512_dims_is_512_dims_for_the_store_and_the_consumer() -> None:
    with mock_aws():
        settings = StoreSettings(
            table="memory", region="us-east-1", embed=f"bedrock:{TITAN}", dims=512
        )
        store = DynamoDBStore("memory", **settings.store_kwargs())
        store.setup()
        store.put(NS, "k", {"text": "a proxy closes idle sockets"})
        [hit] = store.search(NS, query="idle sockets", limit=1)
        assert hit.key == "k"
        consumer = consumer_from_env(
            {"TABLE_NAME": "memory", "EMBEDDING_MODEL_ID": TITAN, "EMBEDDING_DIMS": "512"}
        )
        assert consumer.model == store.index_settings.model  # type: ignore[union-attr]
        assert consumer.model.dims == 512
