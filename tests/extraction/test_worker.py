"""The trigger topology, end to end on the emulation: a turn's checkpoint on the stream,
routed by the stream consumer to the extraction queue, delivered (as Lambda's SQS event
source does) to the extraction worker, which forms the memories off the hot path; the
idle trigger's debounce through a delayed message; a throttled run delivered again until
its memories form; a permanent failure, a malformed message and a retried one on the
dead-letter queue, each naming its thread and checkpoint."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from botocore.config import Config
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.embedders.build import embedder
from langgraph.store.dynamodb.extraction import Extractor, SemanticFacts, TenantOverride, Trigger
from langgraph.store.dynamodb.extraction.worker.queue_worker import ExtractionWorker
from langgraph.store.dynamodb.handlers.extraction_queue import ExtractionRequest
from langgraph.store.dynamodb.stream.consumer import EXTRACTION_PATTERNS, StreamConsumer
from langgraph.store.dynamodb.table.schema import CURSOR, SK
from langgraph.store.dynamodb.testing import drain_stream, mock_aws
from langgraph.store.dynamodb.testing.queues import advance_queue, drain_queue

from tests.fault.layer import FaultLayer
from tests.support import FakeClock

from .conftest import TABLE, TENANT, Tables, facts_config, open_tables

REGION = "us-east-1"
MAX_RECEIVES = 3


class BrokenModel(BaseChatModel):
    """A chat model whose every call fails (a model the account may not call)."""

    @property
    def _llm_type(self) -> str:
        return "broken"

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        raise PermissionError("AccessDeniedException: not authorized to invoke the model")

    def bind_tools(self, *args: Any, **kwargs: Any) -> Any:
        return self


@dataclass
class Pipeline:
    tables: Tables
    sqs: Any
    queue_url: str
    dead_letter_url: str
    consumer: StreamConsumer
    worker: ExtractionWorker

    def deliver(self) -> None:
        """The stream to the consumer, then the queue to the worker, as Lambda would."""
        assert drain_stream(TABLE, self.consumer.handle, filter_patterns=EXTRACTION_PATTERNS).ok
        drain_queue(self.queue_url, self.worker.handle, client=self.sqs)

    def dead_letters(self) -> list[dict[str, Any]]:
        found = self.sqs.receive_message(
            QueueUrl=self.dead_letter_url,
            MaxNumberOfMessages=10,
            MessageAttributeNames=["All"],
        ).get("Messages", [])
        return list(found)


def pipeline(tables: Tables, extractor: Extractor | None = None) -> Pipeline:
    sqs = boto3.client("sqs", region_name=REGION)
    dead = sqs.create_queue(QueueName="extraction-dlq")["QueueUrl"]
    dead_arn = sqs.get_queue_attributes(QueueUrl=dead, AttributeNames=["QueueArn"])
    redrive = {"deadLetterTargetArn": dead_arn["Attributes"]["QueueArn"]}
    queue = sqs.create_queue(
        QueueName="extraction",
        Attributes={"RedrivePolicy": json.dumps({**redrive, "maxReceiveCount": MAX_RECEIVES})},
    )["QueueUrl"]
    store = tables.store
    consumer = StreamConsumer(
        TABLE, client=store.client, embeddings=embedder("lexical", 16), extraction_queue_url=queue
    )
    worker = ExtractionWorker(
        extractor or tables.extractor, queue_url=queue, dead_letter_url=dead, sqs=sqs
    )
    return Pipeline(tables, sqs, queue, dead, consumer, worker)


@pytest.fixture
def flow() -> Iterator[Pipeline]:
    with mock_aws(), open_tables() as tables:
        yield pipeline(tables)


def test_a_turn_becomes_memories_through_the_stream_and_the_queue(flow: Pipeline) -> None:
    checkpoint = flow.tables.say("t1", "I prefer green tea. My dog is Rex.")
    assert flow.tables.facts() == []  # the turn did not wait for extraction
    flow.deliver()
    assert flow.tables.facts() == ["User prefers green tea", "User's dog is Rex"]
    statuses = flow.tables.extractor.wait_until_processed(TENANT, "t1", checkpoint, timeout=0)
    assert [s.checkpoint_id for s in statuses] == [checkpoint]
    flow.tables.say("t1", "My city is Oslo.")
    flow.tables.say("t2", "I drive a red car.")
    flow.deliver()
    assert flow.tables.facts() == [
        "User drives a red car",
        "User prefers green tea",
        "User's city is Oslo",
        "User's dog is Rex",
    ]
    assert flow.dead_letters() == []


def test_every_request_delivered_three_times_forms_each_memory_once(flow: Pipeline) -> None:
    flow.tables.say("t1", "I prefer green tea.")
    checkpoint = flow.tables.say("t1", "My dog is Rex.")
    request = ExtractionRequest(TENANT, "t1", checkpoint).body()
    for _ in range(3):
        flow.sqs.send_message(QueueUrl=flow.queue_url, MessageBody=request)
    report = drain_queue(flow.queue_url, flow.worker.handle, client=flow.sqs)
    assert report.delivered == 3 and report.invocations == 1  # one run folded three
    flow.deliver()
    assert flow.tables.facts() == ["User prefers green tea", "User's dog is Rex"]


def test_the_idle_trigger_defers_the_run_on_the_queue(flow: Pipeline, clock: FakeClock) -> None:
    strategy = SemanticFacts(
        name="facts",
        namespace=("memories", "{tenant}", "{user_id}", "facts"),
        trigger=Trigger(idle_seconds=30),
    )
    flow.tables.extractor.set_config(facts_config(strategies=[strategy]))
    flow.tables.say("t1", "I prefer green tea.")
    flow.deliver()
    assert flow.tables.facts() == []  # not idle for 30 s yet: back on the queue, delayed
    assert advance_queue(flow.queue_url, 10) == 1
    clock.advance(10)
    flow.tables.say("t1", "My dog is Rex.")  # the thread goes on: the idle time restarts
    flow.deliver()
    assert flow.tables.facts() == []
    clock.advance(31)
    assert advance_queue(flow.queue_url, 31) == 0
    drain_queue(flow.queue_url, flow.worker.handle, client=flow.sqs)
    assert flow.tables.facts() == ["User prefers green tea", "User's dog is Rex"]


def test_a_permanent_failure_goes_to_the_dead_letter_queue_naming_thread_and_checkpoint(
    flow: Pipeline,
) -> None:
    tables = flow.tables
    broken = pipeline(tables, Extractor(tables.store, tables.saver, model=BrokenModel()))
    checkpoint = tables.say("t1", "I prefer green tea.")
    broken.deliver()
    [letter] = broken.dead_letters()
    request = ExtractionRequest.parse(letter["Body"])
    assert (request.tenant, request.thread_id, request.checkpoint_id) == (TENANT, "t1", checkpoint)
    assert request.reason is not None and "not authorized" in request.reason
    assert tables.facts() == []


def saver_failing(code: str, queries: int) -> tuple[DynamoDBSaver, FaultLayer]:
    """A saver (botocore retrying once) whose first `queries` Query requests DynamoDB
    answers with error `code`."""
    saver = DynamoDBSaver(
        TABLE,
        region_name=REGION,
        tenant_key="tenant",
        boto_config=Config(retries={"mode": "standard", "total_max_attempts": 2}),
    )
    left = iter(range(queries))
    layer = FaultLayer(
        saver.client,
        rate=1.0,
        kinds=(code,),
        when=lambda operation, _: operation == "Query" and next(left, None) is not None,
    )
    return saver, layer


def test_a_throttled_run_is_delivered_again_and_its_memories_form(flow: Pipeline) -> None:
    """DynamoDB throttles the run's reads past botocore's retries: the record fails alone,
    SQS delivers it again, and that run forms the turn's memories; nothing is
    dead-lettered."""
    tables = flow.tables
    saver, layer = saver_failing("ProvisionedThroughputExceededException", queries=2)
    throttled = pipeline(tables, Extractor(tables.store, saver))
    tables.say("t1", "I prefer green tea.")
    assert drain_stream(TABLE, throttled.consumer.handle, filter_patterns=EXTRACTION_PATTERNS).ok
    report = drain_queue(throttled.queue_url, throttled.worker.handle, client=throttled.sqs)
    assert layer.injected["ProvisionedThroughputExceededException"] == 2
    assert (report.retries, report.delivered) == (1, 1)
    assert tables.facts() == ["User prefers green tea"]
    assert throttled.dead_letters() == []


@pytest.mark.parametrize(
    "code", ["ThrottlingException", "ModelTimeoutException", "ServiceUnavailableException"]
)
def test_a_busy_model_is_delivered_again_and_its_memories_form(flow: Pipeline, code: str) -> None:
    """Bedrock answers the run's first Converse with `code`, past botocore's retries: the
    record fails alone and the next delivery forms the memories."""
    from langchain_aws import ChatBedrockConverse

    left = iter(range(1))
    layers: list[FaultLayer] = []

    def busy_model(model_id: str) -> BaseChatModel:
        retries = Config(retries={"mode": "standard", "total_max_attempts": 1})
        client = boto3.client("bedrock-runtime", region_name=REGION, config=retries)
        layers.append(
            FaultLayer(client, rate=1.0, kinds=(code,), when=lambda *_: next(left, None) == 0)
        )
        return ChatBedrockConverse(model=model_id, client=client, region_name=REGION)

    tables = flow.tables
    busy = pipeline(tables, Extractor(tables.store, tables.saver, model=busy_model))
    tables.say("t1", "I prefer green tea.")
    assert drain_stream(TABLE, busy.consumer.handle, filter_patterns=EXTRACTION_PATTERNS).ok
    report = drain_queue(busy.queue_url, busy.worker.handle, client=busy.sqs)
    assert [layer.injected[code] for layer in layers] == [1]
    assert (report.retries, report.delivered) == (1, 1)
    assert tables.facts() == ["User prefers green tea"]
    assert busy.dead_letters() == []


def test_a_permanent_table_error_is_dead_lettered_with_its_reason(flow: Pipeline) -> None:
    tables = flow.tables
    saver, _ = saver_failing("AccessDeniedException", queries=1)
    refused = pipeline(tables, Extractor(tables.store, saver))
    checkpoint = tables.say("t1", "I prefer green tea.")
    refused.deliver()
    [letter] = refused.dead_letters()
    request = ExtractionRequest.parse(letter["Body"])
    assert (request.thread_id, request.checkpoint_id) == ("t1", checkpoint)
    assert request.reason is not None and "AccessDenied" in request.reason
    assert tables.facts() == []


def test_a_message_that_is_no_request_is_dead_lettered_with_why(flow: Pipeline) -> None:
    flow.sqs.send_message(QueueUrl=flow.queue_url, MessageBody="not json")
    drain_queue(flow.queue_url, flow.worker.handle, client=flow.sqs)
    [letter] = flow.dead_letters()
    assert letter["Body"] == "not json"
    assert "Not an extraction request" in letter["MessageAttributes"]["reason"]["StringValue"]


def test_a_failure_to_dead_letter_is_retried_then_redriven_by_sqs(flow: Pipeline) -> None:
    """When the worker cannot send a failed request to the dead-letter queue itself, the
    record fails: SQS delivers it again, then its redrive policy moves it there."""
    checkpoint = flow.tables.say("t1", "I prefer green tea.")
    assert drain_stream(TABLE, flow.consumer.handle, filter_patterns=EXTRACTION_PATTERNS).ok
    flow.tables.store.client.delete_table(TableName=TABLE)  # every run fails for good
    flow.worker.dead_letter_url = flow.queue_url + "-gone"
    report = drain_queue(flow.queue_url, flow.worker.handle, client=flow.sqs)
    assert report.retries == MAX_RECEIVES and report.delivered == 0
    [letter] = flow.dead_letters()
    request = ExtractionRequest.parse(letter["Body"])
    assert (request.thread_id, request.checkpoint_id) == ("t1", checkpoint)


def test_a_tenant_that_spent_exactly_its_budget_waits_on_the_queue_in_hops_sqs_takes(
    flow: Pipeline, clock: FakeClock
) -> None:
    """Spent exactly: no further model call. The next day is hours away, past SQS's
    900 s delay: the request goes back on the queue for 900 s (a longer delay SQS
    refuses, and the request would end on the dead-letter queue)."""
    noon = datetime.fromtimestamp(clock.now(), UTC).replace(hour=12, minute=0, second=0)
    clock.wall = noon.timestamp()
    tables = flow.tables
    tables.say("t1", "I prefer green tea.")
    (run,) = tables.extractor.run(TENANT, "t1").runs
    spent = run.input_tokens + run.output_tokens
    tables.extractor.set_tenant_override(TENANT, TenantOverride(limits={"daily_tokens": spent}))
    tables.say("t1", "My dog is Rex.")
    flow.deliver()
    assert tables.facts() == ["User prefers green tea"]
    (status,) = tables.extractor.status(TENANT, "t1")
    assert status.last_error and f"daily token budget ({spent})" in status.last_error
    assert flow.dead_letters() == []
    assert advance_queue(flow.queue_url, 899) == 1
    assert advance_queue(flow.queue_url, 1) == 0


def test_a_stream_batch_of_12_threads_goes_out_in_sqs_batches_and_a_refused_entry_is_retried(
    flow: Pipeline,
) -> None:
    """At most 10 entries a SendMessageBatch; an entry SQS answers in `Failed` (here: a
    delay it refuses, on the first send only) fails its stream records, so Lambda's
    retry routes that thread again and its turn still becomes memories."""
    sizes: list[int] = []

    def refuse_one_entry_once(params: dict[str, Any], **_: Any) -> None:
        sizes.append(len(params["Entries"]))
        if len(sizes) == 1:
            params["Entries"][0]["DelaySeconds"] = 901

    sqs = boto3.client("sqs", region_name=REGION)
    sqs.meta.events.register("before-parameter-build.sqs.SendMessageBatch", refuse_one_entry_once)
    consumer = StreamConsumer(
        TABLE,
        client=flow.tables.store.client,
        embeddings=embedder("lexical", 16),
        extraction_queue_url=flow.queue_url,
        sqs=sqs,
    )
    users = [f"u{i}" for i in range(12)]
    for user in users:
        flow.tables.say(f"t-{user}", "I prefer green tea.", user=user)
    report = drain_stream(TABLE, consumer.handle, filter_patterns=EXTRACTION_PATTERNS)
    assert report.ok and report.retries == 1
    assert len(sizes) >= 3 and max(sizes) == 10
    drain_queue(flow.queue_url, flow.worker.handle, client=flow.sqs)
    for user in users:
        assert flow.tables.facts(("memories", TENANT, user, "facts")) == ["User prefers green tea"]


def test_a_failed_runs_folded_requests_are_delivered_again_too(flow: Pipeline) -> None:
    """Two requests for one thread in a batch fold into one run; when it fails, both are
    failures SQS delivers again, neither is acknowledged."""
    tables = flow.tables
    saver, _ = saver_failing("ProvisionedThroughputExceededException", queries=2)
    throttled = pipeline(tables, Extractor(tables.store, saver))
    checkpoint = tables.say("t1", "I prefer green tea.")
    body = ExtractionRequest(TENANT, "t1", checkpoint).body()
    records = [{"messageId": m, "body": body} for m in ("first", "again")]
    outcomes = throttled.worker.process_batch(records)
    assert sorted(outcomes) == ["again", "first"]
    assert all(isinstance(o, Exception) for o in outcomes.values()), outcomes


def dynamodb_requests(flow: Pipeline, action: Any) -> list[str]:
    """The DynamoDB operations `action` sends through the store's client."""
    sent: list[str] = []

    def count(model: Any, **_: Any) -> None:
        sent.append(model.name)

    client = flow.tables.store.client
    client.meta.events.register("before-call.dynamodb", count)
    try:
        action()
    finally:
        client.meta.events.unregister("before-call.dynamodb", count)
    return sent


def test_a_delivery_of_a_processed_checkpoint_costs_one_read_of_the_batch(flow: Pipeline) -> None:
    """A duplicate or late request (its thread processed through its checkpoint by every
    strategy) takes no lease and reads no thread: the batch's one read of settings and
    cursors finds it caught up. A request of a newer checkpoint still runs."""
    old = [flow.tables.say(t, "My dog is Rex.") for t in ("t1", "t2", "t3")]
    flow.deliver()
    before = flow.tables.facts()
    for thread, checkpoint in zip(("t1", "t2", "t3"), old, strict=True):
        flow.sqs.send_message(
            QueueUrl=flow.queue_url,
            MessageBody=ExtractionRequest(TENANT, thread, checkpoint).body(),
            MessageGroupId=TENANT,
        )
    sent = dynamodb_requests(
        flow, lambda: drain_queue(flow.queue_url, flow.worker.handle, client=flow.sqs)
    )
    assert sent == ["BatchGetItem", "BatchGetItem"]  # the settings, the cursors
    assert flow.tables.facts() == before
    newer = flow.tables.say("t1", "My city is Oslo.")
    flow.sqs.send_message(
        QueueUrl=flow.queue_url,
        MessageBody=ExtractionRequest(TENANT, "t1", old[0]).body(),
        MessageGroupId=TENANT,
    )
    flow.deliver()
    assert "User's city is Oslo" in flow.tables.facts()
    statuses = flow.tables.extractor.wait_until_processed(TENANT, "t1", newer, timeout=0)
    assert [s.checkpoint_id for s in statuses] == [newer]


def test_a_run_that_forms_a_memory_ends_its_lease_with_its_last_advance(flow: Pipeline) -> None:
    """The run's writes to its cursor: the lease, and the advance that also ends it (no
    write of its own for the release); its tokens go in the window's record, the one
    transaction (no transaction of their own)."""
    flow.tables.say("t1", "My dog is Rex.")
    assert drain_stream(TABLE, flow.consumer.handle, filter_patterns=EXTRACTION_PATTERNS).ok
    sent: list[tuple[str, dict[str, Any]]] = []

    def record(model: Any, params: dict[str, Any], **_: Any) -> None:
        sent.append((model.name, params))

    client = flow.tables.store.client
    client.meta.events.register("provide-client-params.dynamodb", record)
    try:
        drain_queue(flow.queue_url, flow.worker.handle, client=flow.sqs)
    finally:
        client.meta.events.unregister("provide-client-params.dynamodb", record)
    assert flow.tables.facts() == ["User's dog is Rex"]
    cursor_writes = [
        p["UpdateExpression"]
        for op, p in sent
        if op == "UpdateItem" and p["Key"][SK]["S"].startswith(CURSOR)
    ]
    assert len(cursor_writes) == 2, cursor_writes  # the lease, the advance
    assert "#owner" in cursor_writes[1].split("REMOVE")[1]  # the advance ends the lease
    assert [op for op, _ in sent].count("TransactWriteItems") == 1
