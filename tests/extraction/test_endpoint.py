"""Behind the local endpoint (what `serve` runs), a table with an extraction config forms
memories from its threads in the background, as the deployed stack does: an app that only
talks to the endpoint gets searchable memories, with or without tenants on its threads; a
permanent failure lands on the table's dead-letter queue, naming the thread."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.embedders.build import embedder
from langgraph.store.dynamodb.extraction import ExtractionConfig, Extractor, SemanticFacts
from langgraph.store.dynamodb.table.schema import (
    EXTRACTION_CONFIG,
    EXTRACTION_SETTINGS,
    META_PK,
    PK,
    SK,
)
from langgraph.store.dynamodb.testing import local_endpoint
from langgraph.store.dynamodb.testing.auto_extract import extraction_queues

from tests.checkpoint.graphs import chat_graph, say
from tests.emulator.conftest import wait_for

from .conftest import NAMESPACE, TABLE, TENANT, USER, facts_config

REGION = "us-east-1"


@pytest.fixture
def url() -> Iterator[str]:
    with local_endpoint() as running:
        yield running


def _store(url: str) -> DynamoDBStore:
    index = {"dims": 16, "embed": embedder("lexical", 16), "fields": ["text"], "embed_on": "stream"}
    store = DynamoDBStore(TABLE, region_name=REGION, endpoint_url=url, index=index)  # type: ignore[arg-type]
    store.setup()
    return store


def _turn(graph: Any, configurable: dict[str, str], text: str) -> str:
    config = {"configurable": configurable}
    graph.invoke(say(text), config)
    return str(graph.get_state(config).config["configurable"]["checkpoint_id"])


def _searchable(store: DynamoDBStore, namespace: tuple[str, ...], query: str) -> list[str]:
    return [hit.value["text"] for hit in store.search(namespace, query=query) if hit.score]


def test_a_turn_against_the_endpoint_becomes_a_searchable_memory(url: str) -> None:
    store = _store(url)
    saver = DynamoDBSaver(TABLE, region_name=REGION, endpoint_url=url, tenant_key="tenant")
    extractor = Extractor(store, saver, bedrock_endpoint_url=url)
    extractor.set_config(facts_config())
    graph = chat_graph(saver)
    thread = {"thread_id": "t1", "tenant": TENANT, "user_id": USER}
    checkpoint = _turn(graph, thread, "Hello. I prefer green tea.")
    (status,) = extractor.wait_until_processed(TENANT, "t1", checkpoint, timeout=30)
    assert status.memories == 1 and status.last_error is None
    wait_for(lambda: _searchable(store, NAMESPACE, "green tea") == ["User prefers green tea"])
    (item,) = store.search(NAMESPACE, query="green tea")
    assert item.value["provenance"]["thread_id"] == "t1"
    assert item.value["provenance"]["checkpoint_ids"] == [checkpoint]


def test_threads_without_a_tenant_form_memories_too(url: str) -> None:
    store = _store(url)
    saver = DynamoDBSaver(TABLE, region_name=REGION, endpoint_url=url)
    extractor = Extractor(store, saver, bedrock_endpoint_url=url)
    strategy = SemanticFacts(name="facts", namespace=("memories", "{thread_id}"))
    extractor.set_config(ExtractionConfig(strategies=[strategy]))
    checkpoint = _turn(chat_graph(saver), {"thread_id": "t2"}, "My city is Oslo.")
    extractor.wait_until_processed("", "t2", checkpoint, timeout=30)
    wait_for(lambda: _searchable(store, ("memories", "t2"), "Oslo") == ["User's city is Oslo"])


def test_a_permanent_failure_goes_to_the_tables_dead_letter_queue(url: str) -> None:
    store = _store(url)
    saver = DynamoDBSaver(TABLE, region_name=REGION, endpoint_url=url, tenant_key="tenant")
    # The model the emulated Bedrock refuses (a model id the account may not call), written
    # past the config's check as an operator's hand edit would be.
    config = facts_config().model_dump(mode="json")
    config["model_id"] = "amazon.not-a-model-v1:0"
    store.client.put_item(
        TableName=TABLE,
        Item={
            PK: {"S": META_PK},
            SK: {"S": EXTRACTION_CONFIG},
            EXTRACTION_SETTINGS: {"S": json.dumps(config)},
        },
    )
    checkpoint = _turn(
        chat_graph(saver), {"thread_id": "t3", "tenant": TENANT, "user_id": USER}, "I prefer tea."
    )
    sqs = boto3.client("sqs", region_name=REGION, endpoint_url=url)
    _, dead = extraction_queues(sqs, TABLE)
    received: list[dict[str, Any]] = []

    def dead_lettered() -> bool:
        received.extend(sqs.receive_message(QueueUrl=dead).get("Messages", []))
        return bool(received)

    wait_for(dead_lettered, timeout=30)
    body = json.loads(received[0]["Body"])
    assert (body["tenant"], body["thread_id"], body["checkpoint_id"]) == (TENANT, "t3", checkpoint)
    assert "The provided model identifier is invalid" in body["reason"]
