"""Embed the texts of many items in the background: model-sized batches (Cohere v3 on
Bedrock takes 96 texts per call, Titan one: the caller says how many), bounded
concurrency, throttling retried with backoff, and a failing batch split so that one bad
item fails alone.

Shared by the stream consumer and reindex, which then write the vectors under the
content-hash rule (`items.vector_writes`). `check_vectors`, the check of what a model
returned, is also the one the store applies to what it embeds itself (puts and queries).
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import ClientError
from langchain_core.embeddings import Embeddings
from langgraph.store.dynamodb.table.usage import UsageMeter, group_of_partition

DEFAULT_CONCURRENCY = 8
THROTTLED = frozenset(
    {
        "ThrottlingException",
        "TooManyRequestsException",
        "ServiceUnavailableException",
        "ModelNotReadyException",
    }
)
MAX_ATTEMPTS = 6


def check_vectors(vectors: Sequence[Sequence[float]], dims: int, count: int) -> None:
    """Raise `ValueError` unless there are `count` finite vectors of `dims` numbers."""
    if len(vectors) != count:
        raise ValueError(f"The embedding model returned {len(vectors)} vectors for {count} texts")
    for vector in vectors:
        if len(vector) != dims:
            raise ValueError(
                f"The embedding model returned {len(vector)} dimensions but index['dims'] "
                f"is {dims}: set dims={len(vector)} or use a model that produces {dims}."
            )
        if not all(math.isfinite(x) for x in vector):
            raise ValueError("The embedding model returned a non-finite number (NaN or inf)")


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
    reports each successful call's texts to `usage`, by group. `dims` is the numbers each
    vector must have, `batch_size` the most texts one call takes: for a pinned model, its
    `dims` and `items.embedding.batch_size_for(model)`."""

    def __init__(
        self,
        embeddings: Embeddings,
        *,
        dims: int,
        batch_size: int,
        concurrency: int = DEFAULT_CONCURRENCY,
        usage: UsageMeter | None = None,
    ) -> None:
        self._embeddings = embeddings
        self._usage = usage
        self._dims = dims
        self._concurrency = max(1, concurrency)
        self._batch_size = batch_size
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
            check_vectors(vectors, self._dims, len(texts))
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
