"""The deployed table is one the store accepts: a table created in the emulation from the
synthesized template's properties passes `setup()` untouched, and a put is embedded by the
consumer configured exactly as the template configures the Lambda."""

from __future__ import annotations

from langchain_aws import BedrockEmbeddings
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.stream.consumer import consumer_from_env
from langgraph.store.dynamodb.testing import drain_stream, mock_aws

from .conftest import Synthesized
from .emulated_stack import create_table

TABLE = "deployed-memory"
NS = ("memories", "acme-corp", "user-8812")


def test_store_accepts_the_deployed_table_and_the_consumer_embeds(
    synthesized: Synthesized,
) -> None:
    backend = synthesized.stack.backend
    table = synthesized.one("AWS::DynamoDB::Table")["Properties"]
    function = synthesized.one("AWS::Lambda::Function", "Embedder")["Properties"]
    mapping = synthesized.one("AWS::Lambda::EventSourceMapping", "EmbedPending")["Properties"]
    config = backend.store_config()
    settings = backend.settings
    with mock_aws():
        embed = BedrockEmbeddings(
            model_id=settings.embedding_model_id,
            normalize=settings.normalize,
            region_name="us-east-1",
        )
        store = DynamoDBStore(
            TABLE, region_name="us-east-1", index={**config["index"], "embed": embed}
        )
        create_table(store.client, TABLE, table)
        changes: list[str] = []
        for operation in ("CreateTable", "UpdateTable", "UpdateTimeToLive"):
            store.client.meta.events.register(
                f"before-call.dynamodb.{operation}",
                lambda model, **_: changes.append(model.name),
            )
        store.setup()
        assert changes == []  # found the table, its index and TTL as they are: no retrofit

        store.put(NS, "mem-1", {"text": "Account runs a proxy that closes idle sockets"})
        store.put(NS, "mem-2", {"text": "Customer prefers email over phone calls"})
        env = {**function["Environment"]["Variables"], "TABLE_NAME": TABLE}
        consumer = consumer_from_env(env)
        report = drain_stream(
            TABLE,
            consumer.handle,
            filter_patterns=mapping["FilterCriteria"],
            batch_size=mapping["BatchSize"],
        )
        assert report.ok
        found = store.search(NS, query="proxy closes idle sockets", limit=2)
        assert found[0].key == "mem-1"
        assert found[0].score is not None
