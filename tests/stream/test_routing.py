"""The stream consumer routes threads' new checkpoints to the extraction queue: one
request per thread and batch, its newest root checkpoint, grouped by tenant; nothing else
of a thread reaches the queue, and the embedding goes on as before beside it."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.handlers.extraction_queue import ExtractionRequest
from langgraph.store.dynamodb.stream.consumer import (
    EXTRACTION_PATTERNS,
    FILTER_PATTERNS,
    StreamConsumer,
    filter_criteria,
)
from langgraph.store.dynamodb.testing import drain_stream, mock_aws
from langgraph.store.dynamodb.testing.queues import advance_queue

from tests.checkpoint.graphs import chat_graph, say
from tests.checkpoint.steps import config, step
from tests.stream.conftest import NS, TABLE, CountingEmbeddings, make_stream_store
from tests.support import FakeClock

REGION = "us-east-1"


def queued(sqs: Any, url: str) -> list[tuple[ExtractionRequest, dict[str, str]]]:
    """Every message on the queue (received and deleted): its request and attributes."""
    found = []
    while messages := sqs.receive_message(
        QueueUrl=url, MaxNumberOfMessages=10, MessageSystemAttributeNames=["All"]
    ).get("Messages", []):
        for message in messages:
            found.append((ExtractionRequest.parse(message["Body"]), message["Attributes"]))
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    return found


@pytest.fixture
def sqs() -> Any:
    with mock_aws():
        yield boto3.client("sqs", region_name=REGION)


def newest_checkpoint(saver: DynamoDBSaver, thread_id: str, tenant: str) -> str:
    config = {"configurable": {"thread_id": thread_id, "tenant": tenant}}
    found = saver.get_tuple(config)
    assert found is not None
    return str(found.config["configurable"]["checkpoint_id"])


def test_each_thread_is_routed_once_per_batch_with_its_newest_checkpoint(
    sqs: Any, clock: FakeClock
) -> None:
    url = sqs.create_queue(QueueName="extraction")["QueueUrl"]
    embeddings = CountingEmbeddings()
    store = make_stream_store(embeddings)
    consumer = StreamConsumer(
        TABLE, client=store.client, embeddings=embeddings, extraction_queue_url=url
    )
    ttl = {"default_ttl": 60.0, "refresh_on_read": True}
    with DynamoDBSaver(TABLE, region_name=REGION, tenant_key="tenant", ttl=ttl) as saver:
        graph = chat_graph(saver)
        for tenant, thread in (("acme", "t1"), ("acme", "t2"), ("globex/eu", "t1")):
            config = {"configurable": {"thread_id": thread, "tenant": tenant}}
            for turn in range(2):
                graph.invoke(say(f"turn {turn}"), config)
        store.put(NS, "m1", {"text": "remember the proxy"})
        report = drain_stream(TABLE, consumer.handle, filter_patterns=EXTRACTION_PATTERNS)
        assert report.ok and report.invocations == 1
        assert embeddings.calls == 1  # the store's write is embedded beside the routing
        found = queued(sqs, url)
        requests = sorted((r.tenant, r.thread_id, r.checkpoint_id) for r, _ in found)
        assert requests == sorted(
            (tenant, thread, newest_checkpoint(saver, thread, tenant))
            for tenant, thread in (("acme", "t1"), ("acme", "t2"), ("globex/eu", "t1"))
        )
        groups = {r.tenant: attributes["MessageGroupId"] for r, attributes in found}
        assert groups["acme"] == "acme"
        assert groups["globex/eu"] == "globex/eu"
        assert all(r.written_at for r, _ in found)

        # a read that slides the thread's expiry, and pending writes, modify rows: no request
        clock.advance(10 * 60)
        config = {"configurable": {"thread_id": "t1", "tenant": "acme"}}
        latest = saver.get_tuple(config)
        assert latest is not None
        saver.put_writes(latest.config, [("messages", "late")], "task-1")
        report = drain_stream(TABLE, consumer.handle, filter_patterns=EXTRACTION_PATTERNS)
        assert report.ok and report.filtered_out >= 2
        assert queued(sqs, url) == []


def test_an_unusual_tenant_gets_a_group_sqs_accepts(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="extraction")["QueueUrl"]
    for tenant in ("", "é" * 10, "x" * 200, "a b"):
        request = ExtractionRequest(tenant, "t", "c1")
        sqs.send_message(QueueUrl=url, MessageBody=request.body(), MessageGroupId=request.group)
        assert 1 <= len(request.group) <= 128
    assert [r.tenant for r, _ in queued(sqs, url)] == ["", "é" * 10, "x" * 200, "a b"]


def test_without_extraction_thread_rows_are_filtered_out_or_ignored(sqs: Any) -> None:
    embeddings = CountingEmbeddings()
    store = make_stream_store(embeddings)
    consumer = StreamConsumer(TABLE, client=store.client, embeddings=embeddings)
    with DynamoDBSaver(TABLE, region_name=REGION) as saver:
        chat_graph(saver).invoke(say("hi"), {"configurable": {"thread_id": "t"}})
    assert drain_stream(TABLE, consumer.handle, filter_patterns=FILTER_PATTERNS).delivered == 0
    # a mapping that lets them through to a consumer without a queue: ignored, not failed
    report = drain_stream(
        TABLE, consumer.handle, filter_patterns=EXTRACTION_PATTERNS, consumer_id="again"
    )
    assert report.ok and report.delivered > 0
    patterns = [json.loads(f["Pattern"]) for f in filter_criteria(extraction=True)["Filters"]]
    assert patterns == list(EXTRACTION_PATTERNS)


def test_routing_needs_no_embedding_model_and_a_refused_send_is_retried(sqs: Any) -> None:
    """A table whose model is not pinned yet still routes; a request SQS refuses fails
    its records alone, and Lambda's retry sends it."""
    url = sqs.create_queue(QueueName="extraction")["QueueUrl"]
    with DynamoDBSaver(TABLE, region_name=REGION, tenant_key="tenant") as saver:
        saver.setup()
        consumer = StreamConsumer(TABLE, region_name=REGION, extraction_queue_url=url + "-gone")
        chat_graph(saver).invoke(say("hi"), {"configurable": {"thread_id": "t", "tenant": "a"}})
        report = drain_stream(
            TABLE, consumer.handle, filter_patterns=EXTRACTION_PATTERNS, max_retries=1
        )
        assert report.failed and report.retries == 1 and report.delivered == 0
        consumer = StreamConsumer(TABLE, region_name=REGION, extraction_queue_url=url)
        chat_graph(saver).invoke(say("again"), {"configurable": {"thread_id": "t", "tenant": "a"}})
        report = drain_stream(TABLE, consumer.handle, filter_patterns=EXTRACTION_PATTERNS)
        assert report.ok and report.delivered > 0
        [(request, _)] = queued(sqs, url)
        assert request.checkpoint_id == newest_checkpoint(saver, "t", "a")


def test_the_deployments_debounce_delays_every_request(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="extraction")["QueueUrl"]
    with DynamoDBSaver(TABLE, region_name=REGION, tenant_key="tenant") as saver:
        saver.setup()
        consumer = StreamConsumer(
            TABLE, region_name=REGION, extraction_queue_url=url, extraction_delay=30
        )
        chat_graph(saver).invoke(say("hi"), {"configurable": {"thread_id": "t", "tenant": "a"}})
        report = drain_stream(TABLE, consumer.handle, filter_patterns=EXTRACTION_PATTERNS)
        assert report.ok and report.delivered > 0
        assert queued(sqs, url) == []
        assert advance_queue(url, 29) == 1
        assert advance_queue(url, 1) == 0
        [(request, _)] = queued(sqs, url)
        assert request.checkpoint_id == newest_checkpoint(saver, "t", "a")


def test_a_subgraphs_checkpoint_alone_is_not_routed(sqs: Any) -> None:
    """Only the root namespace's checkpoints name a turn to extract: a subgraph's
    checkpoints would send a request per subgraph step."""
    url = sqs.create_queue(QueueName="extraction")["QueueUrl"]
    with DynamoDBSaver(TABLE, region_name=REGION, tenant_key="tenant") as saver:
        saver.setup()
        consumer = StreamConsumer(TABLE, region_name=REGION, extraction_queue_url=url)
        step(saver, config("t", "inner:1", tenant="a"), {"x": 1})
        assert drain_stream(TABLE, consumer.handle, filter_patterns=EXTRACTION_PATTERNS).ok
        assert queued(sqs, url) == []
