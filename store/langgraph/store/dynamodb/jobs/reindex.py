"""Reindex (backfill): embed every item whose vector is missing or stale.

An item needs embedding when its value has text at its paths and its stored content
hash is not the one the store's model gives that text: written before the index existed,
still pending for the stream consumer, or embedded by another model. Items are visited
namespace by namespace (from the registry) in key order, a page at a time; after each
page a resume marker in the table records how far it got, so an interrupted run resumes
there. Embedding is batched with bounded concurrency and an optional rate limit, and
each write is conditional on the value being unchanged since it was read: an agent's
concurrent put always wins. Works the same for `embed_on="write"` and `"stream"`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from langgraph.store.dynamodb.embedders.batch import DEFAULT_CONCURRENCY, BatchEmbedder, EmbedJob
from langgraph.store.dynamodb.items.embedding import batch_size_for, content_hash, texts_to_embed
from langgraph.store.dynamodb.items.index_config import IndexSettings
from langgraph.store.dynamodb.items.model_pin import (
    OLD_PIN_WRITE_GRACE_SECONDS,
    PIN_CHECK_SECONDS,
    ensure_pin,
    repin,
)
from langgraph.store.dynamodb.items.registry import Registry
from langgraph.store.dynamodb.items.vector_rows import carried
from langgraph.store.dynamodb.items.vector_writes import VectorWriter
from langgraph.store.dynamodb.jobs.resume_markers import ResumeMarker
from langgraph.store.dynamodb.table import clock, dynamo
from langgraph.store.dynamodb.table.keys import (
    Namespace,
    check_prefix,
    decode_namespace,
    encode_namespace,
    namespace_of_registry_key,
)
from langgraph.store.dynamodb.table.schema import (
    CONTENT_HASH,
    EXPIRES_AT,
    INDEX_PATHS,
    ITEM_PREFIX,
    MARKER_AFTER,
    PENDING,
    PK,
    REINDEX_MODEL,
    REINDEX_NAMESPACE,
    SK,
    UPDATED_AT,
    VALUE,
)
from langgraph.store.dynamodb.table.ttl import is_expired
from langgraph.store.dynamodb.table.usage import UsageMeter
from langgraph.store.dynamodb.table.values import decode_value


class IndexedStore(Protocol):
    """What reindex needs of a store (`DynamoDBStore` is one): its table, client, index
    settings and usage meter."""

    @property
    def client(self) -> Any: ...

    @property
    def table_name(self) -> str: ...

    @property
    def index_settings(self) -> IndexSettings | None: ...

    @property
    def usage(self) -> UsageMeter: ...


logger = logging.getLogger(__name__)

DEFAULT_PAGE_SIZE = 100


@dataclass
class ReindexProgress:
    """Running totals, passed to the progress callback after every page."""

    scanned: int = 0
    embedded: int = 0
    skipped: int = 0
    failed: int = 0
    namespace: Namespace = ()
    failures: list[tuple[Namespace, str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class ReindexSummary:
    """What a reindex run did: items scanned, embedded, skipped (already current, no
    text, expired, or changed by a concurrent put), failed; whether it resumed."""

    scanned: int
    embedded: int
    skipped: int
    failed: int
    seconds: float
    resumed: bool
    failures: tuple[tuple[Namespace, str, str], ...] = ()


def reindex(
    store: IndexedStore,
    *,
    prefix: Namespace = (),
    concurrency: int = DEFAULT_CONCURRENCY,
    max_items_per_second: float | None = None,
    page_size: int = DEFAULT_PAGE_SIZE,
    on_progress: Callable[[ReindexProgress], None] | None = None,
    adopt_model: bool = False,
    restart: bool = False,
) -> ReindexSummary:
    """Embed every item under `prefix` (the whole store by default) whose vector is
    missing or stale, resuming where a run of the same scope and model stopped (its resume
    marker) unless `restart`. `adopt_model=True` moves the index to the store's model
    (re-pinning it); otherwise a store whose model differs from the pinned one is refused.
    An exception from `on_progress` stops the run after its progress is saved (resume
    later)."""
    prefix = check_prefix(prefix)
    settings = store.index_settings
    if settings is None:
        raise ValueError("reindex needs a store configured with an index (index={...}).")
    client, table = store.client, store.table_name
    if adopt_model:
        repin(client, table, settings.index_name, settings.model, settings.fields)
        repinned_at = clock.monotonic()
    else:
        ensure_pin(client, table, settings.index_name, settings.model, settings.fields)
    marker = ResumeMarker.of_reindex(client, table, settings.index_name, prefix)
    start = None if restart else _resume_point(marker, settings.model.key)
    run = _Run(store, settings, concurrency, max_items_per_second)
    started = time.perf_counter()
    registry = Registry(client, table, consistent=True)

    def embed_scope(start: tuple[str, str] | None) -> None:
        for row in sorted(registry.rows(prefix), key=lambda row: str(row[SK])):
            namespace_key = row[SK]
            if start is not None and namespace_key < start[0]:
                continue
            after = start[1] if start is not None and namespace_key == start[0] else None
            for page in _pages(client, table, row, after, page_size, settings):
                run.page(page)
                if not run.progress.failed:  # a resume must retry what failed: stay before it
                    marker.save(
                        {
                            REINDEX_NAMESPACE: namespace_key,
                            MARKER_AFTER: page[-1][SK],
                            REINDEX_MODEL: settings.model.key,
                        }
                    )
                if on_progress is not None:
                    on_progress(run.progress)

    embed_scope(start)
    if adopt_model:
        # A store that read the old pin just before the re-pin writes that model's vectors
        # until its check is due again: wait until every such write has landed, then read
        # the scope again and re-embed what they left (their content hash names the old
        # model, so they are stale).
        wait = repinned_at + PIN_CHECK_SECONDS + OLD_PIN_WRITE_GRACE_SECONDS - clock.monotonic()
        if wait > 0:
            logger.info("Reindex waits %.0f s for stores still on the old model to stop", wait)
            clock.sleep(wait)
        embed_scope(None)
    marker.clear()
    progress = run.progress
    summary = ReindexSummary(
        scanned=progress.scanned,
        embedded=progress.embedded,
        skipped=progress.skipped,
        failed=progress.failed,
        seconds=time.perf_counter() - started,
        resumed=start is not None,
        failures=tuple(progress.failures),
    )
    logger.info("Reindex of %s done: %s", table, summary)
    return summary


class _Run:
    """Embeds pages of items and keeps the totals."""

    def __init__(
        self,
        store: IndexedStore,
        settings: IndexSettings,
        concurrency: int,
        max_items_per_second: float | None,
    ) -> None:
        self._settings = settings
        self._embedder = BatchEmbedder(
            settings.embeddings,
            dims=settings.model.dims,
            batch_size=batch_size_for(settings.model),
            concurrency=concurrency,
            usage=store.usage,
        )
        self._writer = VectorWriter(store.client, store.table_name)
        self._concurrency = max(1, concurrency)
        self._rate = max_items_per_second
        self._began = time.monotonic()
        self.progress = ReindexProgress()

    def page(self, rows: list[dict[str, Any]]) -> None:
        progress = self.progress
        progress.scanned += len(rows)
        progress.namespace = decode_namespace(rows[0][PK])
        jobs = [job for job in (self._job(row) for row in rows) if job is not None]
        progress.skipped += len(rows) - len(jobs)
        self._pace(len(jobs))
        vectors = self._embedder.embed(jobs)
        with ThreadPoolExecutor(max_workers=min(self._concurrency, max(1, len(jobs)))) as pool:
            outcomes = list(pool.map(self._write, jobs, vectors))
        for job, outcome in zip(jobs, outcomes, strict=True):
            if isinstance(outcome, Exception):
                progress.failed += 1
                progress.failures.append((progress.namespace, job.sk, str(outcome)))
                logger.warning("Reindex could not embed %s of %s: %s", job.sk, job.pk, outcome)
            elif outcome:
                progress.embedded += 1
            else:
                progress.skipped += 1  # a concurrent put changed it: that put wins

    def _job(self, row: dict[str, Any]) -> EmbedJob | None:
        """The embedding an item needs, or None when its vector is current."""
        if is_expired(row, clock.now()):
            return None
        settings = self._settings
        paths = tuple(row.get(INDEX_PATHS) or settings.fields)
        texts = tuple(texts_to_embed(decode_value(row[VALUE]), paths))
        if not texts:
            return None
        digest = content_hash(texts, settings.model)
        if row.get(CONTENT_HASH) == digest and PENDING not in row:
            return None
        return EmbedJob(
            pk=row[PK],
            sk=row[SK],
            texts=texts,
            digest=digest,
            carried=carried(row),
            updated_at=row[UPDATED_AT],
        )

    def _write(self, job: EmbedJob, vectors: list[list[float]] | Exception) -> bool | Exception:
        if isinstance(vectors, Exception):
            return vectors
        try:
            return self._writer.write(job, vectors)
        except Exception as error:
            return error

    def _pace(self, items: int) -> None:
        """Sleep so that embedded items stay under `max_items_per_second`."""
        if self._rate is None or items == 0:
            return
        due = self._began + (self.progress.embedded + items) / self._rate
        time.sleep(max(0.0, due - time.monotonic()))


def _pages(
    client: Any,
    table: str,
    registry_row: dict[str, Any],
    after: str | None,
    page_size: int,
    settings: IndexSettings,
) -> Iterator[list[dict[str, Any]]]:
    """The item rows of one namespace in key order, `page_size` at a time, without their
    vectors."""
    partition = encode_namespace(namespace_of_registry_key(registry_row[SK]))
    attributes = [
        PK,
        SK,
        VALUE,
        INDEX_PATHS,
        CONTENT_HASH,
        PENDING,
        UPDATED_AT,
        EXPIRES_AT,
        *settings.filter_attributes,
    ]
    names = {f"#a{i}": name for i, name in enumerate(attributes)}
    kwargs: dict[str, Any] = {
        "TableName": table,
        "KeyConditionExpression": "#a0 = :pk AND begins_with(#a1, :items)",
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": {":pk": {"S": partition}, ":items": {"S": ITEM_PREFIX}},
        "ProjectionExpression": ", ".join(names),
        "ConsistentRead": True,
        "Limit": page_size,
    }
    if after is not None:
        kwargs["ExclusiveStartKey"] = {PK: {"S": partition}, SK: {"S": after}}
    while True:
        response = client.query(**kwargs)
        rows = [dynamo.deserialize(item) for item in response.get("Items", [])]
        if rows:
            yield rows
        last = response.get("LastEvaluatedKey")
        if not last:
            return
        kwargs["ExclusiveStartKey"] = last


def _resume_point(marker: ResumeMarker, model: str) -> tuple[str, str] | None:
    """(registry key of the namespace, last item sort key done) where a run of the same
    scope and model stopped, if one did."""
    row = marker.load()
    if row is None or row.get(REINDEX_MODEL) != model:
        return None
    namespace, after = str(row[REINDEX_NAMESPACE]), str(row[MARKER_AFTER])
    logger.info("Reindex resumes after %s in %s", after, namespace)
    return namespace, after
