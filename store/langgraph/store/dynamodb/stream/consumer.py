"""The stream consumer: embeds items written with `embed_on="stream"` in the background,
and forgets the namespaces DynamoDB's TTL sweep empties.

A Lambda on the table's stream (see `lambdas/embedder`) calls `StreamConsumer.handle`.
Its event source mapping uses `FILTER_PATTERNS`: writes that left a pending marker
(`FILTER_PATTERN`), and the TTL sweep's deletions of item rows (`SWEEP_PATTERN`); the
consumer's own writes, TTL refreshes and the store's own deletes never match.

Per batch it keeps the newest pending record of each item, reads the items' current state
once (skipping records a newer put or a delete made stale, and items already embedded),
embeds the rest in model-sized batches with bounded concurrency, and writes each vector
conditional on the content hash it embedded (see `vector_writes`). For each namespace the
sweep deleted an item from, it marks the registry row `emptied_at` if the namespace holds
no item any more (one Limit-1 Query; see `Registry.forget_if_empty`), as the store does
after a delete. It answers with partial batch failures (`handlers.batch.BatchHandler`:
Powertools' `BatchProcessor`): a record that fails fails alone, and Lambda retries it and
finally sends it to the failure destination.

With an extraction queue (`extraction_queue_url`, and `EXTRACTION_PATTERNS` on the
mapping), it also routes each thread's new checkpoints to that queue (`router`): the
extraction Lambda reads the queue, so the stream keeps one reader for both.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import boto3
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import EventType
from langchain_core.embeddings import Embeddings
from langgraph.store.dynamodb.embedders.batch import DEFAULT_CONCURRENCY, BatchEmbedder, EmbedJob
from langgraph.store.dynamodb.embedders.build import bedrock_embeddings
from langgraph.store.dynamodb.handlers.batch import BatchHandler, Environment, flag
from langgraph.store.dynamodb.items.embedding import batch_size_for, content_hash, texts_to_embed
from langgraph.store.dynamodb.items.model_pin import (
    BEDROCK,
    ModelIdentity,
    ModelMismatchError,
    check_pin,
    identify,
    identity_of,
    read_pin,
)
from langgraph.store.dynamodb.items.registry import Registry
from langgraph.store.dynamodb.items.vector_rows import carried
from langgraph.store.dynamodb.items.vector_writes import VectorWriter
from langgraph.store.dynamodb.stream.event_filter import matches_any
from langgraph.store.dynamodb.stream.router import (
    CHECKPOINT_PATTERN,
    ExtractionRouter,
    Routed,
    routed,
)
from langgraph.store.dynamodb.table import dynamo
from langgraph.store.dynamodb.table.keys import Namespace, decode_namespace
from langgraph.store.dynamodb.table.schema import (
    CONTENT_HASH,
    EXPIRES_AT,
    INDEX_PATHS,
    ITEM_PREFIX,
    PENDING,
    PIN_FIELDS,
    PK,
    SK,
    VALUE,
)
from langgraph.store.dynamodb.table.table_spec import DEFAULT_INDEX_NAME
from langgraph.store.dynamodb.table.ttl import SWEEPER
from langgraph.store.dynamodb.table.usage import UsageHook, UsageLogSink, UsageMeter
from langgraph.store.dynamodb.table.values import decode_value

# Lambda event filtering: only inserts and modifications whose new image carries the
# pending marker, i.e. puts that need embedding. The CDK stack uses this very pattern.
FILTER_PATTERN: dict[str, Any] = {
    "eventName": ["INSERT", "MODIFY"],
    "dynamodb": {"NewImage": {PENDING: {"S": [{"exists": True}]}}},
}


# The TTL sweep's deletions of item rows (DynamoDB marks them with its own `userIdentity`),
# whose namespaces may now be empty. A user's delete never matches: the store marks those.
SWEEP_PATTERN: dict[str, Any] = {
    "eventName": ["REMOVE"],
    "userIdentity": {key: [value] for key, value in SWEEPER.items()},
    "dynamodb": {"Keys": {SK: {"S": [{"prefix": ITEM_PREFIX}]}}},
}
FILTER_PATTERNS = (FILTER_PATTERN, SWEEP_PATTERN)
# With extraction: also the inserts of threads' root checkpoints (`router`).
EXTRACTION_PATTERNS = (*FILTER_PATTERNS, CHECKPOINT_PATTERN)


def filter_criteria(*, extraction: bool = False) -> dict[str, Any]:
    """The mapping's `FilterCriteria` (any pattern matches): `FILTER_PATTERNS`, or
    `EXTRACTION_PATTERNS` when the consumer routes checkpoints to extraction."""
    patterns = EXTRACTION_PATTERNS if extraction else FILTER_PATTERNS
    return {"Filters": [{"Pattern": json.dumps(pattern)} for pattern in patterns]}


class Outcome(StrEnum):
    """What the consumer did with a record that did not fail."""

    EMBEDDED = "embedded"
    UNCHANGED = "unchanged"  # already embedded with this content (a duplicate or replay)
    STALE = "stale"  # a newer put or a delete came after this record
    SUPERSEDED = "superseded"  # a newer record of the same item is in the batch
    SWEPT = "swept"  # a TTL deletion: its namespace's registry row is marked if it emptied
    ROUTED = "routed"  # a new checkpoint: its thread's extraction request is on the queue
    IGNORED = "ignored"  # not a write that needs embedding


SKIPPED = (Outcome.UNCHANGED, Outcome.STALE, Outcome.SUPERSEDED, Outcome.IGNORED)


@dataclass(frozen=True)
class _Pending:
    sequence: str
    pk: str
    sk: str
    texts: tuple[str, ...]
    digest: str
    filters: dict[str, str]


class StreamConsumer(BatchHandler, service="memory-embedder", event_type=EventType.DynamoDBStreams):
    """Embeds the pending items of one table's stream records.

    The model is the table's pinned one: give `embeddings` (checked against the pin),
    or nothing to use the pinned Bedrock model. `dims` defaults to the pinned dims.
    With `tracing`, X-Ray traces each batch and its embedding and write phases.
    `on_usage` receives its usage per tenant group, as `DynamoDBStore`'s does; a buffering
    hook (`usage.UsageLogSink`) is flushed after each batch. With `extraction_queue_url`
    it routes new checkpoints there (through `sqs`, default a client of its own), each
    delayed `extraction_delay` seconds; without, checkpoint records are ignored.
    """

    def __init__(
        self,
        table_name: str,
        *,
        client: Any = None,
        embeddings: Embeddings | None = None,
        dims: int | None = None,
        index_name: str = DEFAULT_INDEX_NAME,
        concurrency: int = DEFAULT_CONCURRENCY,
        region_name: str | None = None,
        endpoint_url: str | None = None,
        tracing: bool = False,
        on_usage: UsageHook | None = None,
        extraction_queue_url: str | None = None,
        extraction_delay: float = 0,
        sqs: Any = None,
    ) -> None:
        super().__init__(tracing=tracing)
        self.table_name = table_name
        self.index_name = index_name
        self.concurrency = concurrency
        self._client = client or dynamo.make_client(
            region_name=region_name,
            endpoint_url=endpoint_url,
            boto3_session=None,
            boto_config=None,
        )
        self._embeddings = embeddings
        self._dims = dims
        self._region = region_name
        self._endpoint = endpoint_url
        self._model: ModelIdentity | None = None
        self._fields: tuple[str, ...] = ("$",)
        self._usage = UsageMeter(on_usage, table_name)
        self._usage.attach(self._client)
        self._writer = VectorWriter(self._client, table_name)
        self._registry = Registry(self._client, table_name, consistent=True)
        self._router: ExtractionRouter | None = None
        if extraction_queue_url:
            sqs = sqs or boto3.Session().client(
                "sqs",
                region_name=region_name or self._client.meta.region_name,
                endpoint_url=endpoint_url,
            )
            self._router = ExtractionRouter(sqs, extraction_queue_url, delay=extraction_delay)

    def ready(self) -> tuple[Embeddings, ModelIdentity]:
        """The embedder and model this consumer uses, checked against the table's pin
        (read once); raises `ModelMismatchError` when they differ."""
        if self._model is None:
            self._model = self._load()
        assert self._embeddings is not None
        return self._embeddings, self._model

    @property
    def model(self) -> ModelIdentity:
        """The model this consumer embeds with."""
        return self.ready()[1]

    def _load(self) -> ModelIdentity:
        pin = read_pin(self._client, self.table_name, self.index_name)
        if pin is None:
            raise RuntimeError(
                f"Table {self.table_name} has no embedding model pinned for index "
                f"{self.index_name!r}: run DynamoDBStore.setup() with the index config first."
            )
        pinned = identity_of(pin)
        dims = self._dims or pinned.dims
        if self._embeddings is None:
            if pinned.provider != BEDROCK:
                raise ValueError(
                    f"Table {self.table_name} pins {pinned}, which is not a Bedrock model: "
                    "pass embeddings= to StreamConsumer."
                )
            self._embeddings = bedrock_embeddings(
                pinned.model,
                dims,
                pinned.normalize,
                region_name=self._region or self._client.meta.region_name,
                endpoint_url=self._endpoint,
            )
        mine = identify(self._embeddings, dims)
        check_pin(self.table_name, self.index_name, pin, mine)
        self._fields = tuple(pin.get(PIN_FIELDS) or ("$",))
        return mine

    @property
    def client(self) -> Any:
        """The boto3 DynamoDB client it reads and writes the table through."""
        return self._client

    # The Lambda's batch step (`handle`, from `BatchHandler`, runs it)

    def process_batch(self, records: list[Mapping[str, Any]]) -> dict[str, Outcome | Exception]:
        """Each record of a DynamoDB Streams batch's outcome, by sequence number.

        A consumer whose model is not the table's pinned one embeds nothing: it logs the
        refusal at ERROR, emits `ModelMismatch` = 1 and raises `ModelMismatchError`, so the
        whole batch fails (Lambda retries it, then sends it to the DLQ)."""
        items: list[Mapping[str, Any]] = []
        checkpoints: list[Routed] = []
        for record in records:
            found = routed(record)
            if found is None:
                items.append(record)
            else:
                checkpoints.append(found)
        outcomes = self._route(checkpoints)
        if items:
            try:
                embeddings, model = self.ready()
            except ModelMismatchError as error:
                self.metrics.add_metric(name="ModelMismatch", unit=MetricUnit.Count, value=1)
                self.emit_metrics()
                self.logger.error(
                    f"Stream batch refused, nothing embedded: {error}",
                    extra={"table": self.table_name, "records": len(items)},
                )
                raise
            embedder = BatchEmbedder(
                embeddings,
                dims=model.dims,
                batch_size=batch_size_for(model),
                concurrency=self.concurrency,
                usage=self._usage,
            )
            try:
                outcomes.update(self.process(items, embedder))
            finally:
                self._usage.flush()
            self._report(outcomes, embedder)
        elif checkpoints and self._router is not None:
            self.emit_metrics()
        return outcomes

    def process(
        self, records: Sequence[Mapping[str, Any]], embedder: BatchEmbedder
    ) -> dict[str, Outcome | Exception]:
        """Each record's outcome, by sequence number."""
        outcomes: dict[str, Outcome | Exception] = {}
        newest: dict[tuple[str, str], _Pending] = {}
        swept: dict[str, Namespace] = {}
        for record in records:
            sequence = self.record_id(record)
            namespace = _swept_namespace(record)
            if namespace is not None:
                swept[sequence] = namespace
                continue
            try:
                pending = self._parse(sequence, record)
            except Exception as error:
                outcomes[sequence] = error
                continue
            if pending is None:
                outcomes[sequence] = Outcome.IGNORED
                continue
            key = (pending.pk, pending.sk)
            older = newest.get(key)
            if older is not None and int(older.sequence) > int(sequence):
                outcomes[sequence] = Outcome.SUPERSEDED
                continue
            if older is not None:
                outcomes[older.sequence] = Outcome.SUPERSEDED
            newest[key] = pending
        outcomes.update(self._forget(swept))
        jobs = self._jobs(list(newest.values()), outcomes)
        with self.span("embed"):
            vectors = embedder.embed([job for _, job in jobs])

        def write(entry: tuple[tuple[str, EmbedJob], Any]) -> None:
            (sequence, job), result = entry
            if isinstance(result, Exception):
                outcomes[sequence] = result
                return
            try:
                written = self._writer.write(job, result)
                outcomes[sequence] = Outcome.EMBEDDED if written else Outcome.STALE
            except Exception as error:
                outcomes[sequence] = error

        pairs = list(zip(jobs, vectors, strict=True))
        workers = max(1, min(self.concurrency, len(pairs)))
        with self.span("write"), ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(write, pairs))
        return outcomes

    def _route(self, checkpoints: Sequence[Routed]) -> dict[str, Outcome | Exception]:
        """Send the threads' extraction requests (ignored without a queue)."""
        if not checkpoints:
            return {}
        if self._router is None:
            return {c.sequence: Outcome.IGNORED for c in checkpoints}
        with self.span("route"):
            sent = self._router.send(checkpoints)
        threads = {(c.request.tenant, c.request.thread_id) for c in checkpoints}
        self.metrics.add_metric(name="ThreadsRouted", unit=MetricUnit.Count, value=len(threads))
        return {sequence: error or Outcome.ROUTED for sequence, error in sent.items()}

    def _forget(self, swept: dict[str, Namespace]) -> dict[str, Outcome | Exception]:
        """Mark the registry rows of the namespaces the TTL sweep emptied; a namespace whose
        check fails fails its records alone (Lambda retries them)."""

        def forget(namespace: Namespace) -> Outcome | Exception:
            try:
                self._registry.forget_if_empty([namespace])
            except Exception as error:
                return error
            return Outcome.SWEPT

        namespaces = sorted(set(swept.values()))
        verdicts = dict(zip(namespaces, dynamo.parallel_map(forget, namespaces), strict=True))
        return {sequence: verdicts[namespace] for sequence, namespace in swept.items()}

    def _parse(self, sequence: str, record: Mapping[str, Any]) -> _Pending | None:
        if record.get("eventName") not in ("INSERT", "MODIFY"):
            return None
        image = record["dynamodb"].get("NewImage") or {}
        if PENDING not in image:
            return None
        row = dynamo.deserialize(image)
        if not str(row[SK]).startswith(ITEM_PREFIX):
            return None
        paths = tuple(row.get(INDEX_PATHS) or self._fields)
        texts = tuple(texts_to_embed(decode_value(row[VALUE]), paths))
        digest = content_hash(texts, self.model)
        if digest != row[PENDING]:
            raise ValueError(
                f"Item {row[SK]!r} of {row[PK]!r} was written for another embedding model "
                f"than this consumer's ({self.model}): its content hash does not match. "
                "Give the store and the consumer the table's pinned model, then run reindex."
            )
        filters = {name: v for name, v in carried(row).items() if name != EXPIRES_AT}
        return _Pending(sequence, row[PK], row[SK], texts, digest, filters)

    def _jobs(
        self, pending: list[_Pending], outcomes: dict[str, Outcome | Exception]
    ) -> list[tuple[str, EmbedJob]]:
        """The records still worth embedding, after one consistent read of their items."""
        if not pending:
            return []
        names = {"#h": CONTENT_HASH, "#p": PENDING, "#e": EXPIRES_AT}
        try:
            found = dynamo.batch_get(
                self._client,
                self.table_name,
                [{PK: p.pk, SK: p.sk} for p in pending],
                consistent=True,
                projection=", ".join((PK, SK, *names)),
                names=names,
            )
        except Exception as error:
            for p in pending:
                outcomes[p.sequence] = error
            return []
        current = {(row[PK], row[SK]): row for row in found}
        jobs: list[tuple[str, EmbedJob]] = []
        for p in pending:
            row = current.get((p.pk, p.sk))
            if row is None or row.get(CONTENT_HASH) != p.digest:
                outcomes[p.sequence] = Outcome.STALE
            elif row.get(PENDING) != p.digest:
                outcomes[p.sequence] = Outcome.UNCHANGED
            else:
                job = EmbedJob(
                    pk=p.pk,
                    sk=p.sk,
                    texts=p.texts,
                    digest=p.digest,
                    carried={**p.filters, **carried(row)},
                )
                jobs.append((p.sequence, job))
        return jobs

    def _report(self, outcomes: dict[str, Outcome | Exception], embedder: BatchEmbedder) -> None:
        failed = [error for error in outcomes.values() if isinstance(error, Exception)]
        embedded = sum(1 for outcome in outcomes.values() if outcome is Outcome.EMBEDDED)
        swept = sum(1 for outcome in outcomes.values() if outcome is Outcome.SWEPT)
        skipped = sum(1 for outcome in outcomes.values() if outcome in SKIPPED)
        latencies = embedder.stats.latencies
        if latencies:
            mean_ms = 1000 * sum(latencies) / len(latencies)
            self.metrics.add_metric(
                name="ModelLatency", unit=MetricUnit.Milliseconds, value=mean_ms
            )
        counts = {
            "BatchSize": len(outcomes),
            "RecordsEmbedded": embedded,
            "RecordsSkipped": skipped,
            "RecordsSwept": swept,
            "RecordsFailed": len(failed),
            "EmbeddingCalls": embedder.stats.calls,
        }
        self.report(counts, failed, "Record failed")
        self.logger.info(
            "Stream batch done",
            extra={
                "table": self.table_name,
                "records": len(outcomes),
                "embedded": embedded,
                "skipped": skipped,
                "swept": swept,
                "failed": len(failed),
                "embedding_calls": embedder.stats.calls,
            },
        )


def _swept_namespace(record: Mapping[str, Any]) -> Namespace | None:
    """The namespace of an item row the TTL sweep deleted (the record matches
    `SWEEP_PATTERN`); None for any other record."""
    if not matches_any([SWEEP_PATTERN], record):
        return None
    return decode_namespace(record["dynamodb"]["Keys"][PK]["S"])


def consumer_env(
    table_name: str,
    *,
    index_name: str,
    model_id: str,
    dims: int,
    normalize: bool,
    tracing: bool = False,
    extraction_queue_url: str | None = None,
    extraction_delay: float = 0,
) -> dict[str, str]:
    """The environment `consumer_from_env` reads, as the CDK stack sets it on the Lambda."""
    env = {
        "TABLE_NAME": table_name,
        "INDEX_NAME": index_name,
        "EMBEDDING_MODEL_ID": model_id,
        "EMBEDDING_DIMS": str(dims),
        "EMBEDDING_NORMALIZE": flag(normalize),
        "TRACING": flag(tracing),
    }
    if extraction_queue_url:
        env["EXTRACTION_QUEUE_URL"] = extraction_queue_url
        env["EXTRACTION_DELAY_SECONDS"] = str(extraction_delay)
    return env


def consumer_from_env(env: Mapping[str, str] | None = None) -> StreamConsumer:
    """A consumer configured the way the CDK stack configures the Lambda (`consumer_env`):
    `TABLE_NAME` (required), `INDEX_NAME`, `EMBEDDING_MODEL_ID`, `EMBEDDING_DIMS`,
    `EMBEDDING_NORMALIZE` ("true"/"false"), `EMBED_CONCURRENCY`, `TRACING` ("true": X-Ray),
    `EXTRACTION_QUEUE_URL` and `EXTRACTION_DELAY_SECONDS` (routing new checkpoints).
    Without a model id the table's pinned Bedrock model is used; with one, it must match
    the pin. Usage per tenant goes to the log as JSON (`usage.UsageLogSink`)."""
    settings = Environment(env)
    [table] = settings.require(["TABLE_NAME"], " to the memory table the stream consumer serves.")
    given_dims = settings.get("EMBEDDING_DIMS")
    dims = int(given_dims) if given_dims else None
    embeddings = None
    model_id = settings.get("EMBEDDING_MODEL_ID")
    if model_id:
        if dims is None:
            raise ValueError("Set EMBEDDING_DIMS along with EMBEDDING_MODEL_ID.")
        normalize = settings.flag("EMBEDDING_NORMALIZE", strict=True)
        embeddings = bedrock_embeddings(model_id, dims, normalize)
    return StreamConsumer(
        table,
        embeddings=embeddings,
        dims=dims,
        index_name=settings.get("INDEX_NAME", DEFAULT_INDEX_NAME),
        concurrency=int(settings.get("EMBED_CONCURRENCY") or DEFAULT_CONCURRENCY),
        tracing=settings.flag("TRACING"),
        on_usage=UsageLogSink(),
        extraction_queue_url=settings.get("EXTRACTION_QUEUE_URL"),
        extraction_delay=float(settings.get("EXTRACTION_DELAY_SECONDS") or 0),
    )
