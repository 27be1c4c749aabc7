"""Embed items in the background and write their vectors under the content-hash rule.

Shared by the stream consumer and reindex. Texts are embedded in model-sized batches
(Cohere v3 takes 96 texts per call, Titan one) with bounded concurrency; throttling is
retried with backoff; a failing batch is split so that one bad item fails alone.

Each item's vector write is conditional: on the content hash that was embedded (the
consumer) or on the value being unchanged since it was read (reindex). A newer put
always wins, a deleted item is never resurrected, and the same write clears the pending
marker. Extra vector rows (items with several texts) follow the store's rule
(`memory.writes`): keyed by the write that made them, written before the item points at
them, and the rows the item pointed at before deleted by the writer that replaced them.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import ClientError
from langchain_core.embeddings import Embeddings
from langgraph.store.dynamodb.embedders.bedrock_models import foundation_model
from langgraph.store.dynamodb.items import vector_rows
from langgraph.store.dynamodb.items.embedding import check_vectors, new_vector_version, to_attribute
from langgraph.store.dynamodb.items.model_pin import BEDROCK, ModelIdentity
from langgraph.store.dynamodb.table import clock, dynamo
from langgraph.store.dynamodb.table.errors import raise_if_collection_full
from langgraph.store.dynamodb.table.keys import decode_namespace
from langgraph.store.dynamodb.table.schema import (
    CONTENT_HASH,
    PENDING,
    PK,
    SK,
    UPDATED_AT,
    VECTOR,
    VECTOR_COUNT,
    VECTOR_VERSION,
)
from langgraph.store.dynamodb.table.usage import UsageMeter, group_of_partition

DEFAULT_CONCURRENCY = 8
GENERIC_BATCH = 96
COHERE_V3_BATCH = 96
THROTTLED = frozenset(
    {
        "ThrottlingException",
        "TooManyRequestsException",
        "ServiceUnavailableException",
        "ModelNotReadyException",
    }
)
MAX_ATTEMPTS = 6


def batch_size_for(model: ModelIdentity) -> int:
    """Texts per embedding call: Bedrock's Cohere v3 embeds up to 96 per call, other
    Bedrock models (Titan) one; other embedders get lists and batch as they see fit."""
    if model.provider != BEDROCK:
        return GENERIC_BATCH
    return COHERE_V3_BATCH if foundation_model(model.model).startswith("cohere.embed-") else 1


@dataclass(frozen=True)
class EmbedJob:
    """One item to embed: its key, the texts its value selects, their content hash, what
    its extra rows carry (filter attributes and expiry, as read). With `updated_at` the write is
    conditional on the value being unchanged since it was read (reindex), otherwise on
    the stored content hash (consumer)."""

    pk: str
    sk: str
    texts: tuple[str, ...]
    digest: str
    carried: Mapping[str, Any] = field(default_factory=dict)  # `vector_rows.carried`
    updated_at: str | None = None


@dataclass
class EmbedStats:
    """Embedding calls made and their latencies (seconds), for metrics and benchmarks."""

    calls: int = 0
    latencies: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, seconds: float) -> None:
        with self.lock:
            self.calls += 1
            self.latencies.append(seconds)


class BatchEmbedder:
    """Embeds the texts of many jobs with batching, bounded concurrency and retries;
    reports each successful call's texts to `usage`, by group."""

    def __init__(
        self,
        embeddings: Embeddings,
        model: ModelIdentity,
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        batch_size: int | None = None,
        usage: UsageMeter | None = None,
    ) -> None:
        self._embeddings = embeddings
        self._usage = usage
        self._model = model
        self._concurrency = max(1, concurrency)
        self._batch_size = batch_size or batch_size_for(model)
        self.stats = EmbedStats()

    def embed(self, jobs: Sequence[EmbedJob]) -> list[list[list[float]] | Exception]:
        """Each job's vectors (one per text), or the exception that stopped it."""
        groups = _group(jobs, self._batch_size)
        with ThreadPoolExecutor(max_workers=min(self._concurrency, max(1, len(groups)))) as pool:
            done = list(pool.map(lambda group: self._embed_group(jobs, group), groups))
        results: list[list[list[float]] | Exception] = [ValueError("not embedded")] * len(jobs)
        for group, outcome in zip(groups, done, strict=True):
            for index, result in zip(group, outcome, strict=True):
                results[index] = result
        return results

    def _embed_group(
        self, jobs: Sequence[EmbedJob], group: list[int]
    ) -> list[list[list[float]] | Exception]:
        texts = [text for index in group for text in jobs[index].texts]
        try:
            vectors = self._call(texts)
            check_vectors(vectors, self._model.dims, len(texts))
            if self._usage is not None:
                self._usage.embedded((group_of_partition(jobs[i].pk), jobs[i].texts) for i in group)
        except Exception as error:
            if len(group) == 1:
                return [error]
            # Embed each job alone, so one bad item fails alone.
            return [self._embed_group(jobs, [index])[0] for index in group]
        out: list[list[list[float]] | Exception] = []
        start = 0
        for index in group:
            count = len(jobs[index].texts)
            out.append(vectors[start : start + count])
            start += count
        return out

    def _call(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            chunk = texts[start : start + self._batch_size]
            vectors.extend(with_backoff(lambda chunk=chunk: self._timed(chunk)))  # type: ignore[misc]
        return vectors

    def _timed(self, texts: list[str]) -> list[list[float]]:
        started = time.perf_counter()
        try:
            return self._embeddings.embed_documents(texts)
        finally:
            self.stats.record(time.perf_counter() - started)


def _group(jobs: Sequence[EmbedJob], batch_size: int) -> list[list[int]]:
    """Job positions packed into calls of at most `batch_size` texts (a job with more
    texts than that is a group of its own, embedded in several calls)."""
    groups: list[list[int]] = []
    size = 0
    for index, job in enumerate(jobs):
        if not groups or size + len(job.texts) > batch_size:
            groups.append([])
            size = 0
        groups[-1].append(index)
        size += len(job.texts)
    return groups


def with_backoff(call: Callable[[], list[list[float]]]) -> list[list[float]]:
    """Run an embedding call, retrying throttling with exponential backoff and jitter."""
    for attempt in range(MAX_ATTEMPTS):
        try:
            return call()
        except ClientError as error:
            if error.response["Error"]["Code"] not in THROTTLED or attempt == MAX_ATTEMPTS - 1:
                raise
        time.sleep(min(5.0, 0.1 * 2**attempt) * random.uniform(0.5, 1.0))
    raise AssertionError("unreachable")


class VectorWriter:
    """Writes embedded vectors to one table under the content-hash rule."""

    def __init__(self, client: Any, table: str) -> None:
        self._client = client
        self._table = table

    def write(self, job: EmbedJob, vectors: Sequence[Sequence[float]]) -> bool:
        """Write the extra rows, then the item's vector 0 (clearing its pending marker) and
        delete the extra rows it replaced; False when the item changed or vanished since
        (the rows just written are deleted again). A namespace the vectors would grow past
        DynamoDB's item-collection limit raises `NamespaceFullError`."""
        try:
            return self._write(job, vectors)
        except ClientError as error:
            raise_if_collection_full(error, [decode_namespace(job.pk)])
            raise

    def _write(self, job: EmbedJob, vectors: Sequence[Sequence[float]]) -> bool:
        version = new_vector_version() if len(vectors) > 1 else None
        mine = (
            vector_rows.extra_rows(
                job.pk,
                job.sk,
                version,
                [to_attribute(vector) for vector in vectors[1:]],
                job.carried,
                clock.now(),
            )
            if version
            else []
        )
        dynamo.batch_write(self._client, self._table, [{"PutRequest": {"Item": r}} for r in mine])
        old = self._update_item(job, vectors, version)
        if old is None:
            dynamo.batch_write(
                self._client,
                self._table,
                vector_rows.deletes({PK: r[PK], SK: r[SK]} for r in mine),
            )
            return False
        if vector_rows.carried(old) != dict(job.carried):
            # The item changed filters or expiry (a TTL refresh) since the job was read.
            current = {**old, VECTOR_VERSION: version, VECTOR_COUNT: len(vectors)}
            vector_rows.follow(self._client, self._table, current, job.carried)
        replaced = vector_rows.current_rows(old)
        if replaced and old.get(VECTOR_VERSION) != version:
            dynamo.batch_write(self._client, self._table, vector_rows.deletes(replaced))
        return True

    def _update_item(
        self, job: EmbedJob, vectors: Sequence[Sequence[float]], version: str | None
    ) -> dict[str, Any] | None:
        """Point the item at the new vectors; the item as it was before (the extra rows it
        pointed at, its current filters and expiry), or None when the condition failed."""
        names = {
            "#v": VECTOR,
            "#n": VECTOR_COUNT,
            "#p": PENDING,
            "#h": CONTENT_HASH,
            "#ver": VECTOR_VERSION,
        }
        values: dict[str, Any] = {
            ":v": to_attribute(vectors[0]),
            ":n": len(vectors),
            ":h": job.digest,
        }
        sets = "#v = :v, #n = :n"
        removes = "#p"
        if version is None:
            removes += ", #ver"
        else:
            sets += ", #ver = :ver"
            values[":ver"] = version
        if job.updated_at is None:
            condition = "#h = :h"
        else:
            sets += ", #h = :h"
            condition = "#u = :u"
            names["#u"] = UPDATED_AT
            values[":u"] = job.updated_at
        try:
            response = self._client.update_item(
                TableName=self._table,
                Key=dynamo.serialize({PK: job.pk, SK: job.sk}),
                UpdateExpression=f"SET {sets} REMOVE {removes}",
                ConditionExpression=condition,
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=dynamo.serialize(values),
                ReturnValues="ALL_OLD",
            )
        except ClientError as error:
            if error.response["Error"]["Code"] == "ConditionalCheckFailedException":
                return None
            raise
        return dynamo.deserialize(response.get("Attributes", {}))
