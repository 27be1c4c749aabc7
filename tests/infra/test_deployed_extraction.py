"""The extraction, end to end on the deployed stack with its own roles (issue 32): the
template is deployed into the emulation with IAM enforced; the app's role writes threads
and the extraction config; the stream consumer's Lambda (its role, its deployed filter)
routes the new checkpoints to the extraction queue; Lambda's SQS poller (the extractor's
role) hands them to the extraction Lambda's handler (its role, its environment), which
forms the memories with the emulated Converse; the consumer embeds them as any write; the
app recalls them by semantic search in another thread's namespace scope."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from langchain_aws import BedrockEmbeddings
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.extraction import ExtractionConfig, Extractor, SemanticFacts
from langgraph.store.dynamodb.testing import drain_stream, mock_aws
from langgraph.store.dynamodb.testing.queues import drain_queue
from moto.core.authorization import enable_iam_authentication

from infra.stack import MemoryStack
from lambdas.embedder import handler as consumer_handler
from lambdas.extractor import handler as extractor_handler
from tests.checkpoint.graphs import chat_graph

from .conftest import synthesize
from .emulated_stack import ACCOUNT, deploy
from .test_deployed_permissions import APP, add_principals, lambda_environment

NAMESPACE = ("memories", "acme", "facts")


@pytest.fixture
def handlers() -> Iterator[None]:
    """The Lambdas' cached consumer and worker, cleared before and after."""
    consumer_handler._consumer.cache_clear()
    extractor_handler._worker.cache_clear()
    yield
    consumer_handler._consumer.cache_clear()
    extractor_handler._worker.cache_clear()


def test_the_extractor_forms_memories_under_its_own_role(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, handlers: None
) -> None:
    synthesized = synthesize(tmp_path, add_principals)
    backend = synthesized.stack.backend
    config = backend.store_config()
    assert isinstance(synthesized.stack, MemoryStack)
    with mock_aws():
        stack = deploy(synthesized.template.to_json())
        table = stack.resolve(synthesized.stack.resolve(config["table_name"]))
        _, consumer_fn = stack.one("AWS::Lambda::Function", "Embedder")
        _, extractor_fn = stack.one("AWS::Lambda::Function", "Extractor")
        _, mapping = stack.one("AWS::Lambda::EventSourceMapping", "EmbedPending")
        _, queue_mapping = stack.one("AWS::Lambda::EventSourceMapping", "ExtractThreads")
        queue_arn = stack.resolve(queue_mapping["EventSourceArn"])
        app = stack.session(f"arn:aws:iam::{ACCOUNT}:role/{APP}")
        consumer_role = stack.session(stack.resolve(consumer_fn["Role"]))
        extractor_role = stack.session(stack.resolve(extractor_fn["Role"]))
        queue_url = boto3.client("sqs", region_name="us-east-1").get_queue_url(
            QueueName=queue_arn.rsplit(":", 1)[1]
        )["QueueUrl"]
        embed = BedrockEmbeddings(
            client=app.client("bedrock-runtime"),
            model_id=backend.settings.embedding_model_id,
            normalize=backend.settings.normalize,
        )
        index = {**config["index"], "embed": embed}

        def run_lambda(function: dict[str, Any], role: boto3.Session, deliver: Any) -> None:
            with monkeypatch.context() as env:
                for name, value in lambda_environment(stack, function, role).items():
                    env.setenv(name, value)
                deliver()

        def stream() -> None:
            report = drain_stream(
                table,
                consumer_handler.handler,
                filter_patterns=stack.resolve(mapping["FilterCriteria"]),
                batch_size=mapping["BatchSize"],
            )
            assert report.ok, report.errors

        def queue() -> None:
            report = drain_queue(
                queue_url,
                extractor_handler.handler,
                client=extractor_role.client("sqs"),
                batch_size=queue_mapping["BatchSize"],
            )
            assert report.delivered >= 1 and not report.errors, report

        with (
            enable_iam_authentication(),
            DynamoDBStore(table, boto3_session=app, index=index) as store,
            DynamoDBSaver(table, boto3_session=app, tenant_key="tenant") as saver,
        ):
            store.setup()
            extractor = Extractor(store, saver)
            facts = SemanticFacts(name="facts", namespace=("memories", "{tenant}", "facts"))
            extractor.set_config(ExtractionConfig(strategies=[facts]))
            graph = chat_graph(saver)
            thread = {"configurable": {"thread_id": "t1", "tenant": "acme"}}
            graph.invoke({"messages": [HumanMessage("I prefer green tea. My dog is Rex.")]}, thread)
            checkpoint = graph.get_state(thread).config["configurable"]["checkpoint_id"]
            run_lambda(consumer_fn, consumer_role, stream)  # routes the checkpoint
            run_lambda(extractor_fn, extractor_role, queue)  # forms the memories
            run_lambda(consumer_fn, consumer_role, stream)  # embeds them
            [status] = extractor.wait_until_processed("acme", "t1", checkpoint, timeout=0)
            assert status.memories == 2 and status.last_error is None
            found = store.search(NAMESPACE, query="which tea does the user like", limit=1)
            assert found[0].value["text"] == "User prefers green tea"
            assert found[0].value["provenance"]["thread_id"] == "t1"
