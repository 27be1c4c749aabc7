"""`DynamoDBStore`: LangGraph's `BaseStore` on one DynamoDB table."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, TypeVar

import boto3
from botocore.config import Config
from langgraph.store.base import (
    BaseStore,
    IndexConfig,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchOp,
    TTLConfig,
)
from langgraph.store.dynamodb.basestore.reads import Reader
from langgraph.store.dynamodb.basestore.semantic_search import SemanticSearch, check_page
from langgraph.store.dynamodb.basestore.vector_index import ensure_index
from langgraph.store.dynamodb.basestore.writes import ChangedSinceReadError, Expected, Writer
from langgraph.store.dynamodb.embedders.batch import check_vectors
from langgraph.store.dynamodb.items.embedding import (
    EmbeddingPlan,
    attach_vectors,
    plan_embeddings,
)
from langgraph.store.dynamodb.items.filters import validate_filter
from langgraph.store.dynamodb.items.index_config import (
    DEFAULT_MAX_FANOUT,
    DynamoIndexConfig,
    IndexSettings,
    parse_index_config,
)
from langgraph.store.dynamodb.items.model_pin import (
    PIN_CHECK_SECONDS,
    check_pin,
    ensure_pin,
    read_pin,
)
from langgraph.store.dynamodb.items.registry import Registry
from langgraph.store.dynamodb.items.rows import build_row, stamp_of
from langgraph.store.dynamodb.jobs.purge import PurgeResult, purge
from langgraph.store.dynamodb.table import clock, creation, dynamo
from langgraph.store.dynamodb.table.errors import access_must_be_granted, table_must_exist
from langgraph.store.dynamodb.table.keys import (
    Namespace,
    encode_namespace,
    item_sort_key,
    normalize_op,
    validate_op,
)
from langgraph.store.dynamodb.table.lifecycle import Owner
from langgraph.store.dynamodb.table.row_sources import RowSource
from langgraph.store.dynamodb.table.schema import PK, SK
from langgraph.store.dynamodb.table.table_spec import table_spec
from langgraph.store.dynamodb.table.ttl import check_ttl
from langgraph.store.dynamodb.table.usage import UsageHook, UsageMeter

logger = logging.getLogger(__name__)

R = TypeVar("R")

DEFAULT_MAX_CONCURRENCY = 64


async def _no_vectors() -> list[list[float]]:
    return []


class DynamoDBStore(Owner, BaseStore):
    """A LangGraph `BaseStore` on one DynamoDB table (data model: docs/architecture.md).

    Values round-trip exactly as JSON; namespaces map injectively to partitions; search
    without a query returns the most recently updated items first (a local secondary
    index); prefix search and `list_namespaces` read a namespace registry instead of
    scanning; TTL is DynamoDB's, refreshed on read by each item's own TTL.

    `max_fanout` bounds how many namespaces one search without a query under a prefix
    may cover (semantic search has `index["max_fanout"]`); past it, search raises.

    Concurrency: every operation, sync or async, runs its DynamoDB requests on the
    store's own pool of `max_concurrency` threads (default 64), so that many concurrent
    callers each get a thread instead of queueing behind asyncio's default pool; a
    batch's internal fan-out shares that pool. `max_connections` sizes botocore's HTTP
    connection pool (default: `max_concurrency`, or `boto_config.max_pool_connections`
    when you set it); it may not be smaller than `max_concurrency`.

    `on_usage` receives a `usage.UsageRecord` per DynamoDB request (its consumed capacity,
    asked for on the request itself) and per embedding, by tenant group (the namespace's
    first two labels); `usage.UsageLogSink()` writes them as JSON logs (docs/usage.md).
    """

    supports_ttl = True

    def __init__(
        self,
        table_name: str,
        *,
        region_name: str | None = None,
        endpoint_url: str | None = None,
        boto3_session: boto3.Session | None = None,
        boto_config: Config | None = None,
        ttl: TTLConfig | None = None,
        index: DynamoIndexConfig | IndexConfig | None = None,
        consistent_read: bool = True,
        max_fanout: int = DEFAULT_MAX_FANOUT,
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
        max_connections: int | None = None,
        on_usage: UsageHook | None = None,
    ) -> None:
        if not table_name or not isinstance(table_name, str):
            raise ValueError("table_name must be a non-empty string")
        if not isinstance(max_fanout, int) or isinstance(max_fanout, bool) or max_fanout < 1:
            raise ValueError(f"max_fanout must be a positive integer, got {max_fanout!r}")
        self.max_fanout = max_fanout
        if ttl and ttl.get("default_ttl") is not None:
            check_ttl(ttl["default_ttl"], "ttl['default_ttl']")
        self.ttl_config = ttl
        if ttl and ttl.get("sweep_interval_minutes") is not None:
            _log_sweep_not_applicable(ttl["sweep_interval_minutes"])
        self.index_config = index
        self.consistent_read = consistent_read
        self._model_checked_at: float | None = None
        self._open(
            table_name,
            region_name=region_name,
            endpoint_url=endpoint_url,
            boto3_session=boto3_session,
            boto_config=boto_config,
            max_concurrency=max_concurrency,
            max_connections=max_connections,
            on_usage=on_usage,
            threads="dynamodb-store",
        )
        self._registry = Registry(self._client, table_name, consistent=consistent_read)
        self._index: IndexSettings | None = parse_index_config(index) if index else None
        self._writer = Writer(self._client, table_name, self._registry, self._index)
        self._semantic = (
            SemanticSearch(self._client, table_name, self._registry, self._index)
            if self._index
            else None
        )
        self._reader = Reader(
            self._client,
            table_name,
            self._registry,
            self._semantic,
            consistent=consistent_read,
            max_fanout=max_fanout,
        )

    @property
    def index_settings(self) -> IndexSettings | None:
        """The validated index configuration (None for a key-value store)."""
        return self._index

    @property
    def usage(self) -> UsageMeter:
        """The meter reporting this store's usage to `on_usage` (reindex reports through it)."""
        return self._usage

    # Lifecycle (`lifecycle.Owner`: from_table, close, with-blocks)

    def setup(self, *, timeout: float = 1800.0) -> None:
        """Create what is missing and nothing else: the table (on-demand, stream, TTL on
        `expires_at`, the recency index; an existing table without that index is refused
        with the way to migrate) and, with `index`, the vector index (inline at creation,
        retrofitted with UpdateTable on an existing table). With an index, returns only once
        it is ACTIVE, done backfilling and answering searches; refuses an existing index
        whose immutable settings disagree. Pins the embedding model in the table on first
        use and refuses another one (`ModelMismatchError`). Idempotent and safe to run from
        several processes. A permission the store's credentials lack raises
        `AccessDeniedError` naming it, as every operation does."""
        with access_must_be_granted(self.table_name):
            creation.ensure_table(self._client, self.table_name, table_spec(self._index))
            if self._index:
                ensure_index(self._client, self.table_name, self._index, timeout=timeout)
                index = self._index
                pinned = ensure_pin(
                    self._client, self.table_name, index.index_name, index.model, index.fields
                )
                self._model_checked_at = clock.monotonic()
                if pinned and self._registry.has_namespaces():
                    logger.warning(
                        "Table %s already holds items written before vector index %s existed: "
                        "they are not searchable until embedded. Run "
                        "langgraph.store.dynamodb.jobs.reindex(store) once to embed them.",
                        self.table_name,
                        index.index_name,
                    )

    async def asetup(self, *, timeout: float = 1800.0) -> None:
        """Async `setup`."""
        await asyncio.to_thread(self.setup, timeout=timeout)

    # Tenant lifecycle

    def purge(
        self,
        prefix: Iterable[str] | None,
        *,
        all_tenants: bool = False,
        force: bool = False,
        sources: Sequence[RowSource] = (),
        on_progress: Callable[[int], None] | None = None,
        scan: bool = False,
    ) -> PurgeResult:
        """Erase everything at or below `prefix` (a tenant: at least two labels; the whole
        table only with `all_tenants=True` and no prefix; None: only the rows of
        `sources`) and verify it: items, vectors, registry rows, the tenant's reindex
        resume markers and the rows of `sources`. Never scans unless `scan` (one Scan of
        the whole table finds the rows no registry lists) or `all_tenants`; resumable;
        refused while a purge of an overlapping prefix is unfinished unless `force`. The
        result's `rows_left` is 0 unless writers added rows meanwhile (`jobs.purge`,
        docs/architecture.md)."""
        self._check_open()
        with (
            table_must_exist(self._client, self.table_name),
            access_must_be_granted(self.table_name),
        ):
            run = functools.partial(
                purge,
                self._client,
                self.table_name,
                prefix,
                all_tenants=all_tenants,
                force=force,
                sources=sources,
                on_progress=on_progress,
                scan=scan,
            )
            return self._pool.run(run)

    async def apurge(
        self,
        prefix: Iterable[str] | None,
        *,
        all_tenants: bool = False,
        force: bool = False,
        sources: Sequence[RowSource] = (),
        on_progress: Callable[[int], None] | None = None,
        scan: bool = False,
    ) -> PurgeResult:
        """Async `purge`, on the store's threads."""
        run = functools.partial(
            self.purge,
            prefix,
            all_tenants=all_tenants,
            force=force,
            sources=sources,
            on_progress=on_progress,
            scan=scan,
        )
        return await self._pool.arun(run)

    # BaseStore

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ops with LangGraph's batch semantics: results in op order, reads see the
        state before the batch's writes, the last write to a key wins. Every op is
        validated before any I/O."""
        self._check_open()
        with (
            table_must_exist(self._client, self.table_name),
            access_must_be_granted(self.table_name),
        ):
            return self._pool.run(self._batch, list(ops))

    def put_if_unchanged(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        *,
        read: Item | None,
        index: Literal[False] | list[str] | None = None,
    ) -> bool:
        """`put`, only if the item is still the version `read` returned (None: only if it
        does not exist): False, with nothing written, when another write came first. How
        read-modify-write callers never lose a concurrent update."""
        self._check_open()
        op = PutOp(tuple(namespace), key, value, index)
        stamp = stamp_of(read.updated_at) if read is not None else None
        expected = {(encode_namespace(op.namespace), item_sort_key(key)): stamp}
        with (
            table_must_exist(self._client, self.table_name),
            access_must_be_granted(self.table_name),
        ):
            try:
                self._pool.run(self._batch, [op], expected)
            except ChangedSinceReadError:
                return False
        return True

    def _batch(self, ops: Iterable[Op], expected: Expected | None = None) -> list[Result]:
        ops, rows, plan = self._prepare(ops)
        documents: list[list[float]] = []
        queries: list[list[float]] = []
        scope: dict[Namespace, list[Namespace]] = {}
        if self._index and plan.documents:
            documents = self._index.embeddings.embed_documents(plan.documents)
        if self._index and plan.queries:
            # Find the namespaces to search while the queries are being embedded.
            embed_query = self._index.embeddings.embed_query
            queries, scope = dynamo.both(
                lambda: dynamo.parallel_map(embed_query, plan.queries),
                lambda: self._semantic_namespaces(ops),
            )
        return self._execute(ops, rows, plan, documents, queries, scope, expected)

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """`batch` with the embedder's async methods (so async-only embedders work) and
        all validation, encoding and DynamoDB I/O on the store's threads: the event loop
        never blocks. Cancelled once its requests have started, a batch still runs to the
        end (no half-applied write), and the cancellation is raised when it is done."""
        self._check_open()
        with (
            table_must_exist(self._client, self.table_name),
            access_must_be_granted(self.table_name),
        ):
            return await self._abatch(list(ops))

    async def _abatch(self, ops: list[Op]) -> list[Result]:
        if self._index is None:
            return await self._pool.arun(self._batch, ops)
        ops, rows, plan = await self._pool.arun(self._prepare, ops)
        documents: list[list[float]] = []
        queries: list[list[float]] = []
        scope: dict[Namespace, list[Namespace]] = {}
        if plan.documents or plan.queries:
            embeddings = self._index.embeddings
            documents, queries, scope = await asyncio.gather(
                embeddings.aembed_documents(plan.documents) if plan.documents else _no_vectors(),
                asyncio.gather(*(embeddings.aembed_query(query) for query in plan.queries)),
                self._pool.arun(self._semantic_namespaces, ops),
            )
        return await self._pool.arun(self._execute, ops, rows, plan, documents, queries, scope)

    def _prepare(
        self, ops: Iterable[Op]
    ) -> tuple[list[Op], dict[int, dict[str, Any]], EmbeddingPlan]:
        """Validate every op (building the rows puts will write) and plan the embedding."""
        ops = [normalize_op(op) for op in ops]
        rows = self._validate(ops)
        plan = plan_embeddings(self._index, ops, rows) if self._index else EmbeddingPlan()
        return ops, rows, plan

    def _check_model(self, *, writes: bool) -> None:
        """Before this store writes or searches vectors: refuse with `ModelMismatchError`
        when the index holds another model's vectors (also when `setup()` was never called
        here); a first writer pins its model. The pin is read again once the last check is
        `PIN_CHECK_SECONDS` old, so a store left on the old model after
        `reindex(..., adopt_model=True)` stops writing within that time."""
        checked = self._model_checked_at
        if self._index is None or (
            checked is not None and clock.monotonic() - checked < PIN_CHECK_SECONDS
        ):
            return
        index = self._index
        if writes:
            ensure_pin(self._client, self.table_name, index.index_name, index.model, index.fields)
        else:
            pin = read_pin(self._client, self.table_name, index.index_name)
            if pin is not None:
                check_pin(self.table_name, index.index_name, pin, index.model)
        self._model_checked_at = clock.monotonic()

    def _semantic_namespaces(self, ops: list[Op]) -> dict[Namespace, list[Namespace]]:
        """The namespaces each semantic search of the batch covers, by prefix."""
        if self._semantic is None:
            return {}
        prefixes = {op.namespace_prefix for op in ops if isinstance(op, SearchOp) and op.query}
        omit_at = clock.now() if self._omit_expired else None
        return self._semantic.namespaces(sorted(prefixes), omit_expired_at=omit_at)

    def _execute(
        self,
        ops: list[Op],
        rows: dict[int, dict[str, Any]],
        plan: EmbeddingPlan,
        documents: list[list[float]],
        queries: list[list[float]],
        scope: dict[Namespace, list[Namespace]],
        expected: Expected | None = None,
    ) -> list[Result]:
        extras: dict[int, list[Any]] = {}
        if self._index:
            self._usage.embedded(plan.groups(ops))
            extras = attach_vectors(self._index, plan, rows, documents)
            check_vectors(queries, self._index.dims, len(plan.queries))
            if plan.writes_vectors or plan.queries:
                self._check_model(writes=plan.writes_vectors)
        at = clock.now()
        results: list[Result] = [None] * len(ops)
        vectors = dict(zip(plan.queries, queries, strict=True))
        omit_at = at if self._omit_expired else None
        read_rows = self._reader.read(ops, results, omit_at, vectors, scope)
        self._writer.refresh(read_rows, at)
        self._write(ops, rows, extras, at, expected)
        return results

    # Validation

    def _validate(self, ops: list[Op]) -> dict[int, dict[str, Any]]:
        at = clock.now()
        rows: dict[int, dict[str, Any]] = {}
        for index, op in enumerate(ops):
            validate_op(op)
            if isinstance(op, SearchOp):
                validate_filter(op.filter)
                _check_page(op.limit, op.offset)
                if op.query and self._index:
                    check_page(op.limit, op.offset)
            elif isinstance(op, ListNamespacesOp):
                _check_page(op.limit, op.offset)
                if op.max_depth is not None and not _is_count(op.max_depth, minimum=1):
                    raise ValueError(f"max_depth must be None or an int >= 1, got {op.max_depth!r}")
            elif isinstance(op, PutOp) and op.value is not None:
                if not isinstance(op.value, Mapping):
                    raise ValueError(
                        f"A stored value must be a dict, got {type(op.value).__name__}."
                    )
                rows[index] = build_row(op, at)
        return rows

    # Reads

    @property
    def _omit_expired(self) -> bool:
        """On unless `ttl={"omit_expired": False}`: unlike LangGraph's default, because
        DynamoDB's TTL sweep can lag a day or more behind an item's expiry."""
        return bool((self.ttl_config or {}).get("omit_expired", True))

    # Writes

    def _write(
        self,
        ops: list[Op],
        rows: dict[int, dict[str, Any]],
        extras: dict[int, list[Any]],
        at: float,
        expected: Expected | None = None,
    ) -> None:
        """Apply the last put or delete of each key."""
        last: dict[tuple[Namespace, str], int] = {}
        for i, op in enumerate(ops):
            if isinstance(op, PutOp):
                last[(op.namespace, op.key)] = i
        if not last:
            return
        self._writer.write(
            puts=[rows[i] for i in last.values() if i in rows],
            deletes=[key for key, i in last.items() if i not in rows],
            extras={(rows[i][PK], rows[i][SK]): extras[i] for i in last.values() if i in extras},
            at=at,
            expected=expected,
        )


@functools.cache
def _log_sweep_not_applicable(minutes: int) -> None:
    logger.info(
        "ttl['sweep_interval_minutes']=%s does not apply to DynamoDBStore: DynamoDB's own TTL "
        "sweep deletes expired items (expired ones are hidden until then, see omit_expired).",
        minutes,
    )


def _check_page(limit: int, offset: int) -> None:
    if not _is_count(limit, minimum=0):
        raise ValueError(f"limit must be a non-negative int, got {limit!r}")
    if not _is_count(offset, minimum=0):
        raise ValueError(f"offset must be a non-negative int, got {offset!r}")


def _is_count(value: object, *, minimum: int) -> bool:
    """An int (never a bool) of at least `minimum`."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum
