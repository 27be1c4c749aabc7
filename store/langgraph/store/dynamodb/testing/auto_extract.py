"""Extraction behind ``local_endpoint`` (and so ``serve``): memories form in the
background as in the deployed stack, stream -> router -> queue -> extraction worker.

Per emulated table with a stream and an extraction config saved on it
(`Extractor.set_config`, `dynamodb-memory extraction config set`), it creates the
extraction queue and its dead-letter queue in the emulated SQS (`extraction_queues`,
with the stack's redrive policy), routes the table's new checkpoints to the queue through
the library's `StreamConsumer` (the stack's router), and delivers the queue to the
library's `ExtractionWorker` as Lambda's SQS event source does (`queues.drain_queue`).
The memories it writes are embedded by the endpoint's embedder (`auto_embed`), with the
model the table pins. The model is the emulated Bedrock Converse behind the endpoint
(latency: `EmulatorSettings.converse_latency`).

One difference with the stack: the router reads the stream as a reader of its own
(`ROUTER_ID`), beside the embedder, where the deployed consumer Lambda does both in one
reader (a shard's two-reader limit does not apply to the emulation).
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import boto3
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.basestore.store import DynamoDBStore
from langgraph.store.dynamodb.extraction.engine.extractor import Extractor
from langgraph.store.dynamodb.extraction.worker.queue_worker import ExtractionWorker
from langgraph.store.dynamodb.handlers.extraction_queue import ExtractionRequest
from langgraph.store.dynamodb.items.model_pin import read_pin
from langgraph.store.dynamodb.stream.consumer import StreamConsumer
from langgraph.store.dynamodb.stream.router import CHECKPOINT_PATTERN
from langgraph.store.dynamodb.table.schema import EXTRACTION_CONFIG, PIN_FIELDS
from langgraph.store.dynamodb.testing import _vector as v
from langgraph.store.dynamodb.testing._poller import Poller
from langgraph.store.dynamodb.testing.auto_embed import pinned_indexes, runnable_embeddings
from langgraph.store.dynamodb.testing.queues import BackgroundQueue, drain_queue
from langgraph.store.dynamodb.testing.streams import LambdaContext, drain_stream
from moto.core.models import MockAWS
from moto.dynamodb.models import dynamodb_backends
from moto.dynamodb.models.dynamo_type import DynamoType

logger = logging.getLogger(__name__)

# The stream reader that routes checkpoints to the extraction queue.
ROUTER_ID = "extraction-router"
# Receives of a request before the redrive policy moves it to the dead-letter queue (the
# stack's `MAX_RECEIVES`).
MAX_RECEIVES = 5
# The `configurable` key the worker's saver names a thread's tenant by, for threads that
# have one (any key reads them: the tenant is part of the thread's keys).
TENANT_KEY = "tenant"


def extraction_queues(sqs: Any, table: str) -> tuple[str, str]:
    """The URLs of `table`'s extraction queue and dead-letter queue (created when missing,
    with the stack's redrive policy)."""
    dead = sqs.create_queue(QueueName=f"{table}-extraction-dlq")["QueueUrl"]
    dead_arn = sqs.get_queue_attributes(QueueUrl=dead, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    redrive = {"deadLetterTargetArn": dead_arn, "maxReceiveCount": MAX_RECEIVES}
    queue = sqs.create_queue(
        QueueName=f"{table}-extraction", Attributes={"RedrivePolicy": json.dumps(redrive)}
    )["QueueUrl"]
    return queue, dead


class TenantSplit:
    """The extraction Lambda's handler for a table whose threads may or may not be keyed
    by tenant: requests of threads without a tenant go to `plain` (a saver without
    `tenant_key`), the others to `keyed`; one partial batch response for both."""

    def __init__(self, keyed: ExtractionWorker, plain: ExtractionWorker) -> None:
        self.keyed = keyed
        self.plain = plain

    def handle(self, event: dict[str, Any], context: Any = None) -> dict[str, Any]:
        split: dict[bool, list[dict[str, Any]]] = {True: [], False: []}
        for record in event.get("Records", []):
            split[_tenanted(str(record["body"]))].append(record)
        failures: list[dict[str, str]] = []
        for tenanted, records in split.items():
            if records:
                worker = self.keyed if tenanted else self.plain
                response = worker.handle({"Records": records}, context or LambdaContext())
                failures.extend(response.get("batchItemFailures", []))
        return {"batchItemFailures": failures}


def _tenanted(body: str) -> bool:
    try:
        return ExtractionRequest.parse(body).tenant != ""
    except ValueError:
        return True  # not a request: the worker dead-letters it


@dataclass
class Pipeline:
    """One table's extraction on the endpoint: its queues, router and worker."""

    table: str
    region: str
    sqs: Any
    queue_url: str
    dead_letter_url: str
    router: StreamConsumer
    worker: TenantSplit


def pipeline(
    endpoint_url: str, region: str, table: str, *, store: DynamoDBStore | None = None
) -> Pipeline:
    """The extraction of `table` at `endpoint_url`: queues created, a router sending the
    table's new checkpoints there, and a worker forming memories into `store` (default: a
    store on the table whose index is the one the table pins, writing with
    `embed_on="stream"`)."""
    sqs = boto3.client("sqs", region_name=region, endpoint_url=endpoint_url)
    queue_url, dead_letter_url = extraction_queues(sqs, table)
    store = store or _pinned_store(endpoint_url, region, table)

    def worker(tenant_key: str | None) -> ExtractionWorker:
        saver = DynamoDBSaver(
            table, region_name=region, endpoint_url=endpoint_url, tenant_key=tenant_key
        )
        extractor = Extractor(store, saver, bedrock_endpoint_url=endpoint_url)
        return ExtractionWorker(
            extractor, queue_url=queue_url, dead_letter_url=dead_letter_url, sqs=sqs
        )

    router = StreamConsumer(
        table,
        region_name=region,
        endpoint_url=endpoint_url,
        extraction_queue_url=queue_url,
        sqs=sqs,
    )
    split = TenantSplit(worker(TENANT_KEY), worker(None))
    return Pipeline(table, region, sqs, queue_url, dead_letter_url, router, split)


def _pinned_store(endpoint_url: str, region: str, table: str) -> DynamoDBStore:
    """A store on `table` with the index the table pins (none when nothing is pinned or
    the emulation cannot run the model: memories are then stored, not embedded)."""
    for pinned_region, name, index_name, model, _ in pinned_indexes():
        if (pinned_region, name) != (region, table):
            continue
        embeddings = runnable_embeddings(model, region, endpoint_url)
        if embeddings is None:
            break
        probe = DynamoDBStore(table, region_name=region, endpoint_url=endpoint_url)
        pin = read_pin(probe.client, table, index_name) or {}
        index = {
            "dims": model.dims,
            "embed": embeddings,
            "fields": list(pin.get(PIN_FIELDS) or ["$"]),
            "index_name": index_name,
            "embed_on": "stream",
        }
        return DynamoDBStore(table, region_name=region, endpoint_url=endpoint_url, index=index)  # type: ignore[arg-type]
    return DynamoDBStore(table, region_name=region, endpoint_url=endpoint_url)


@contextlib.contextmanager
def run_extraction(
    endpoint_url: str,
    region: str,
    table: str,
    *,
    store: DynamoDBStore | None = None,
    interval: float = 0.05,
) -> Iterator[tuple[Pipeline, BackgroundQueue]]:
    """`pipeline`'s worker draining the extraction queue in the background for the life
    of the block (the caller routes the stream: `Pipeline.queue_url` is the consumer's
    `extraction_queue_url`)."""
    found = pipeline(endpoint_url, region, table, store=store)
    consumer = BackgroundQueue(found.queue_url, found.worker.handle, interval, client=found.sqs)
    consumer.start()
    try:
        yield found, consumer
    finally:
        consumer.stop()


def configured_tables() -> list[tuple[str, str, str]]:
    """(region, table, identity) of every emulated table with a stream and an extraction
    config; the identity changes when a table of that name is created anew."""
    found = []
    with v.LOCK:
        for account, region, table, partition in v.streamed_meta(dynamodb_backends):
            if DynamoType({"S": EXTRACTION_CONFIG}) in partition:
                found.append((region, table.name, f"{account}/{table.created_at.isoformat()}"))
    return found


class AutoExtractor(Poller):
    """Polls for tables with an extraction config and runs their extraction: routes their
    streams' new checkpoints to their queues, then delivers the queues to the worker."""

    def __init__(
        self, endpoint_url: str, *, interval: float = 0.05, skip: set[str] | None = None
    ) -> None:
        super().__init__(interval, "auto-extractor")
        self.endpoint_url = endpoint_url
        self.skip = skip or set()
        self.errors: list[BaseException] = []
        self._pipelines: dict[tuple[str, str, str], Pipeline] = {}

    def poll(self) -> None:
        """Route and extract every configured table once."""
        if MockAWS._nested_count > 0:
            return  # an in-process mock_aws: its tests drive the pipeline themselves
        for key in configured_tables():
            region, table, _ = key
            if table in self.skip:
                continue
            try:
                if key not in self._pipelines:
                    self._pipelines[key] = pipeline(self.endpoint_url, region, table)
                found = self._pipelines[key]
                drain_stream(
                    table,
                    found.router.handle,
                    filter_patterns=[CHECKPOINT_PATTERN],
                    region=region,
                    consumer_id=ROUTER_ID,
                )
                drain_queue(found.queue_url, found.worker.handle, client=found.sqs)
            except LookupError:
                pass  # the table went away meanwhile
            except Exception as error:  # keep extracting; surface it to tests
                self.errors.append(error)
                logger.warning("Extraction for %s failed: %s", table, error)
