"""The extraction, end to end on the deployed stack with its own roles (issue 32): the
template is deployed into the emulation with IAM enforced; the app's role writes threads
and the extraction config; the stream consumer's Lambda (its role, its deployed filter)
routes the new checkpoints to the extraction queue; Lambda's SQS poller (the extractor's
role) hands them to the extraction Lambda's handler (its role, its environment), which
forms the memories with the emulated Converse; the consumer embeds them as any write; the
app recalls them by semantic search in another thread's namespace scope."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest
from langchain_aws import BedrockEmbeddings
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.extraction import (
    ExtractionConfig,
    Extractor,
    SemanticFacts,
    TenantOverride,
)
from langgraph.store.dynamodb.extraction.worker.queue_worker import ExtractionWorker
from langgraph.store.dynamodb.testing import drain_stream, mock_aws
from langgraph.store.dynamodb.testing.queues import QueueReport, drain_queue
from moto.core.authorization import disable_iam_authentication, enable_iam_authentication

from infra.stack import MemoryStack
from lambdas.embedder import handler as consumer_handler
from lambdas.extractor import handler as extractor_handler
from tests.checkpoint.graphs import chat_graph

from .conftest import synthesize
from .emulated_stack import ACCOUNT, EmulatedStack, deploy
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


@dataclass
class Deployed:
    """The stack deployed into the emulation with IAM enforced: the app's store, saver
    and extractor (its role), and the two Lambdas run under their own roles."""

    stack: EmulatedStack
    table: str
    store: DynamoDBStore
    saver: DynamoDBSaver
    extractor: Extractor
    graph: Any
    queue_url: str
    dead_letter_url: str
    deliver_stream: Callable[[], None]
    deliver_queue: Callable[[], QueueReport]
    in_extractor: Callable[[Callable[[], Any]], Any]

    def turn(self, thread: str, text: str, tenant: str = "acme") -> str:
        """One turn of the app's chat graph; the checkpoint it ended with."""
        config = {"configurable": {"thread_id": thread, "tenant": tenant}}
        self.graph.invoke({"messages": [HumanMessage(text)]}, config)
        return str(self.graph.get_state(config).config["configurable"]["checkpoint_id"])

    def dead_letters(self) -> list[dict[str, Any]]:
        """The requests on the extraction dead-letter queue (read with the admin's keys)."""
        sqs = boto3.client("sqs", region_name="us-east-1")
        with disable_iam_authentication():
            messages = sqs.receive_message(
                QueueUrl=self.dead_letter_url, MaxNumberOfMessages=10, VisibilityTimeout=0
            ).get("Messages", [])
        return [json.loads(m["Body"]) for m in messages]


@contextlib.contextmanager
def deployed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Deployed]:
    """`Deployed`, with the semantic facts strategy into `NAMESPACE` configured."""
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
        sqs = boto3.client("sqs", region_name="us-east-1")
        queue_url = sqs.get_queue_url(QueueName=queue_arn.rsplit(":", 1)[1])["QueueUrl"]
        dead_letter_url = stack.resolve(
            stack.resolve(extractor_fn["Environment"]["Variables"])["EXTRACTION_DLQ_URL"]
        )
        embed = BedrockEmbeddings(
            client=app.client("bedrock-runtime"),
            model_id=backend.settings.embedding_model_id,
            normalize=backend.settings.normalize,
        )
        index = {**config["index"], "embed": embed}

        def run_lambda(function: dict[str, Any], role: boto3.Session, deliver: Any) -> Any:
            with monkeypatch.context() as env:
                for name, value in lambda_environment(stack, function, role).items():
                    env.setenv(name, value)
                return deliver()

        def stream() -> None:
            report = drain_stream(
                table,
                consumer_handler.handler,
                filter_patterns=stack.resolve(mapping["FilterCriteria"]),
                batch_size=mapping["BatchSize"],
            )
            assert report.ok, report.errors

        def queue() -> QueueReport:
            return drain_queue(
                queue_url,
                extractor_handler.handler,
                client=extractor_role.client("sqs"),
                batch_size=queue_mapping["BatchSize"],
            )

        with (
            enable_iam_authentication(),
            DynamoDBStore(table, boto3_session=app, index=index) as store,
            DynamoDBSaver(table, boto3_session=app, tenant_key="tenant") as saver,
        ):
            store.setup()
            extractor = Extractor(store, saver)
            facts = SemanticFacts(name="facts", namespace=("memories", "{tenant}", "facts"))
            extractor.set_config(ExtractionConfig(strategies=[facts]))
            yield Deployed(
                stack,
                table,
                store,
                saver,
                extractor,
                chat_graph(saver),
                queue_url,
                dead_letter_url,
                lambda: run_lambda(consumer_fn, consumer_role, stream),
                lambda: run_lambda(extractor_fn, extractor_role, queue),
                lambda call: run_lambda(extractor_fn, extractor_role, call),
            )


def test_the_extractor_forms_memories_under_its_own_role(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, handlers: None
) -> None:
    with deployed(tmp_path, monkeypatch) as d:
        checkpoint = d.turn("t1", "I prefer green tea. My dog is Rex.")
        d.deliver_stream()  # routes the checkpoint
        report = d.deliver_queue()  # forms the memories, each written with its vector
        assert report.delivered >= 1 and not report.errors, report
        [status] = d.extractor.wait_until_processed("acme", "t1", checkpoint, timeout=0)
        assert status.memories == 2 and status.last_error is None
        found = d.store.search(NAMESPACE, query="which tea does the user like", limit=1)
        assert found[0].value["text"] == "User prefers green tea"
        assert found[0].value["provenance"]["thread_id"] == "t1"


class PurgeBeforeAdvance:
    """Purges the tenant (with the app's role: items, threads, extraction rows) just
    before the run's first cursor write after its ledger's transaction: the memories are
    written, and the cursor the run would advance is gone."""

    def __init__(self, worker: ExtractionWorker, purge: Callable[[], Any]) -> None:
        self.purge = purge
        self.recorded = self.done = False
        for client in (worker.extractor.store.client, worker.extractor.saver.client):
            client.meta.events.register("before-call.dynamodb", self._before)

    def _before(self, model: Any, params: dict[str, Any], **_: Any) -> None:
        if model.name == "TransactWriteItems":
            self.recorded = True
        elif model.name == "UpdateItem" and self.recorded and not self.done:
            self.done = True
            self.purge()


def test_every_path_of_the_extraction_lambda_is_allowed_by_its_role(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, handlers: None
) -> None:
    """Under the extractor's role, with IAM enforced: a purge landing mid-run (the run
    undoes what it wrote), a thread gone before its run (its cursor is deleted), a tenant
    over its daily budget (skipped, sent back delayed), a model the role may not call (the
    request dead-lettered, naming the thread). None is refused by IAM, and only the last
    reaches the dead-letter queue."""
    with deployed(tmp_path, monkeypatch) as d:
        # A purge landing between the run's ledger write and its cursor's advance.
        d.turn("t1", "I prefer green tea.")
        d.deliver_stream()
        worker = d.in_extractor(extractor_handler._worker)

        def purge() -> None:
            sources = d.saver.for_tenant("acme").erasure_sources()
            assert d.store.purge(("memories", "acme"), sources=sources).rows_left == 0

        hook = PurgeBeforeAdvance(worker, purge)
        report = d.deliver_queue()
        assert hook.done and report.delivered == 1 and not report.errors, report
        assert d.store.search(NAMESPACE) == [] and d.extractor.status("acme") == []
        # A thread deleted after its checkpoint was routed: the run deletes its cursor.
        d.turn("t2", "My dog is Rex.")
        d.deliver_stream()
        d.saver.for_tenant("acme").delete_thread("t2")
        report = d.deliver_queue()
        assert report.delivered == 1 and not report.errors, report
        assert d.extractor.status("acme") == []
        # A tenant over its daily budget: the second run is skipped and sent back delayed.
        d.extractor.set_tenant_override("initech", TenantOverride(limits={"daily_tokens": 1}))
        d.turn("t3", "I prefer tea.", tenant="initech")
        d.deliver_stream()
        assert not d.deliver_queue().errors
        checkpoint = d.turn("t3", "My city is Oslo.", tenant="initech")
        d.deliver_stream()
        report = d.deliver_queue()
        assert report.delivered == 1 and not report.errors, report
        (status,) = d.extractor.status("initech", "t3")
        assert status.memories == 1 and "budget" in (status.last_error or "")
        assert status.checkpoint_id != checkpoint
        # A model the role may not call: dead-lettered at once, naming the thread.
        other = TenantOverride(model_id="us.anthropic.claude-3-5-haiku-20241022-v1:0")
        d.extractor.set_tenant_override("globex", other)
        checkpoint = d.turn("t4", "I prefer coffee.", tenant="globex")
        d.deliver_stream()
        report = d.deliver_queue()
        assert report.delivered == 1 and not report.errors, report
        (dead,) = d.dead_letters()
        assert (dead["tenant"], dead["thread_id"], dead["checkpoint_id"]) == (
            "globex",
            "t4",
            checkpoint,
        )
        assert "AccessDenied" in dead["reason"] and "bedrock:InvokeModel" in dead["reason"]
