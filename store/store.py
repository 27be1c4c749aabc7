"""`DynamoDBStore`: LangGraph's `BaseStore` on one DynamoDB table."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError
from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchOp,
    TTLConfig,
)

from store import dynamo, table
from store.embedding import (
    CONTENT_HASH,
    INDEX_PATHS,
    ITEM_SK,
    VECTOR,
    VECTOR_COUNT,
    check_vectors,
    content_hash,
    texts_to_embed,
    to_attribute,
    vector_sort_key,
    warn_no_text,
)
from store.filters import validate_filter
from store.index_config import DynamoIndexConfig, IndexSettings, parse_index_config
from store.keys import Namespace, validate_op
from store.kv_search import search_rows
from store.namespaces import literal_prefix, select
from store.registry import Registry
from store.rows import (
    CREATED_AT,
    UPDATED_AT,
    build_row,
    key_of,
    to_item,
    to_search_item,
    update_arguments,
)
from store.semantic_search import SemanticSearch, check_page
from store.ttl import EXPIRES_AT, TTL_MINUTES, expiry, is_expired, needs_refresh, now
from store.values import check_item_size
from store.vector_index import attribute_definitions, ensure_index, index_spec

# Attributes a put may leave out; an overwrite removes them from the old row.
OPTIONAL_ATTRIBUTES = (EXPIRES_AT, TTL_MINUTES, VECTOR, CONTENT_HASH, VECTOR_COUNT, INDEX_PATHS)

ItemKey = tuple[Namespace, str]


@dataclass
class EmbeddingPlan:
    """The texts one batch embeds: `jobs` pairs a put's op position with its texts (in
    `documents` order); `queries` are the distinct search queries."""

    jobs: list[tuple[int, list[str]]] = field(default_factory=list)
    documents: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)


async def _no_vectors() -> list[list[float]]:
    return []


class DynamoDBStore(BaseStore):
    """A LangGraph `BaseStore` on one DynamoDB table (see DESIGN.md for the data model).

    Values round-trip exactly as JSON; namespaces map injectively to partitions; prefix
    search and `list_namespaces` read a namespace registry instead of scanning; TTL is
    DynamoDB's, refreshed on read by each item's own TTL.
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
    ) -> None:
        if not table_name or not isinstance(table_name, str):
            raise ValueError("table_name must be a non-empty string")
        self.table_name = table_name
        self.ttl_config = ttl
        self.index_config = index
        self.consistent_read = consistent_read
        self._client = dynamo.make_client(
            region_name=region_name,
            endpoint_url=endpoint_url,
            boto3_session=boto3_session,
            boto_config=boto_config,
        )
        self._registry = Registry(self._client, table_name, consistent=consistent_read)
        self._index: IndexSettings | None = parse_index_config(index) if index else None
        self._optional = OPTIONAL_ATTRIBUTES + (
            self._index.filter_attributes if self._index else ()
        )
        self._semantic = (
            SemanticSearch(self._client, table_name, self._registry, self._index)
            if self._index
            else None
        )

    @property
    def client(self) -> Any:
        """The boto3 DynamoDB client the store talks through."""
        return self._client

    # Lifecycle

    def setup(self, *, timeout: float = 1800.0) -> None:
        """Create what is missing and nothing else: the table (on-demand, stream, TTL on
        `expires_at`) and, with `index`, the vector index (inline at creation, retrofitted
        with UpdateTable on an existing table). With an index, returns only once it is
        ACTIVE, done backfilling and answering searches; refuses an existing index whose
        immutable settings disagree. Idempotent and safe to run from several processes."""
        extra = (
            {
                "VectorIndexes": [index_spec(self._index)],
                "AttributeDefinitions": attribute_definitions(self._index),
            }
            if self._index
            else None
        )
        table.ensure_table(self._client, self.table_name, extra=extra)
        if self._index:
            ensure_index(self._client, self.table_name, self._index, timeout=timeout)

    async def asetup(self, *, timeout: float = 1800.0) -> None:
        """Async `setup`."""
        await asyncio.to_thread(self.setup, timeout=timeout)

    # BaseStore

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ops with LangGraph's batch semantics: results in op order, reads see the
        state before the batch's writes, the last write to a key wins. Every op is
        validated before any I/O."""
        ops = list(ops)
        rows = self._validate(ops)
        plan = self._plan_embeddings(ops, rows)
        documents, queries = [], []
        if plan.documents and self._index:
            documents = self._index.embeddings.embed_documents(plan.documents)
        if plan.queries and self._index:
            queries = dynamo.parallel_map(self._index.embeddings.embed_query, plan.queries)
        return self._execute(ops, rows, plan, documents, queries)

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """`batch` with the embedder's async methods (so async-only embedders work) and
        all DynamoDB I/O on a worker thread: the event loop never blocks."""
        ops = list(ops)
        rows = self._validate(ops)
        plan = self._plan_embeddings(ops, rows)
        documents: list[list[float]] = []
        queries: list[list[float]] = []
        if self._index and (plan.documents or plan.queries):
            embeddings = self._index.embeddings
            documents, queries = await asyncio.gather(
                embeddings.aembed_documents(plan.documents) if plan.documents else _no_vectors(),
                asyncio.gather(*(embeddings.aembed_query(query) for query in plan.queries)),
            )
        return await asyncio.to_thread(self._execute, ops, rows, plan, documents, queries)

    def _execute(
        self,
        ops: list[Op],
        rows: dict[int, dict[str, Any]],
        plan: EmbeddingPlan,
        documents: list[list[float]],
        queries: list[list[float]],
    ) -> list[Result]:
        extras = self._attach_vectors(plan, rows, documents)
        if self._index:
            check_vectors(queries, self._index.dims, len(plan.queries))
        at = now()
        results: list[Result] = [None] * len(ops)
        read_rows = self._read(ops, results, at, dict(zip(plan.queries, queries, strict=True)))
        self._refresh(read_rows, ops, at)
        self._write(ops, rows, extras)
        return results

    # Validation

    def _validate(self, ops: list[Op]) -> dict[int, dict[str, Any]]:
        at = now()
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
                if op.max_depth is not None and op.max_depth < 1:
                    raise ValueError(f"max_depth must be >= 1, got {op.max_depth}")
            elif isinstance(op, PutOp) and op.value is not None:
                if not isinstance(op.value, Mapping):
                    raise ValueError(
                        f"A stored value must be a dict, got {type(op.value).__name__}."
                    )
                rows[index] = build_row(op, at)
        return rows

    # Embedding

    def _plan_embeddings(self, ops: list[Op], rows: dict[int, dict[str, Any]]) -> EmbeddingPlan:
        """What this batch must embed: the texts of each key's final put, and the distinct
        search queries. Notes per-item path overrides on the rows."""
        plan = EmbeddingPlan()
        if self._index is None:
            return plan
        final = {(op.namespace, op.key): i for i, op in enumerate(ops) if isinstance(op, PutOp)}
        for i in final.values():
            op = ops[i]
            if i not in rows or not isinstance(op, PutOp) or op.value is None:
                continue
            for name in self._index.filter_fields:
                if isinstance(op.value.get(name), str):
                    rows[i][self._index.filter_attribute(name)] = op.value[name]
            paths = self._index.fields if op.index is None else tuple(op.index or ())
            if op.index is not None:
                rows[i][INDEX_PATHS] = list(paths)  # remembered for re-embedding
            texts = texts_to_embed(op.value, paths)
            if texts:
                plan.jobs.append((i, texts))
                plan.documents.extend(texts)
            elif paths:
                warn_no_text(op.namespace, op.key, paths)
        plan.queries = sorted({op.query for op in ops if isinstance(op, SearchOp) and op.query})
        return plan

    def _attach_vectors(
        self, plan: EmbeddingPlan, rows: dict[int, dict[str, Any]], vectors: list[list[float]]
    ) -> dict[int, list[Any]]:
        """Put each item's vector 0 on its row; return the others (one extra row each)."""
        if self._index is None or not plan.jobs:
            return {}
        check_vectors(vectors, self._index.dims, len(plan.documents))
        extras: dict[int, list[Any]] = {}
        start = 0
        for i, texts in plan.jobs:
            mine = vectors[start : start + len(texts)]
            start += len(texts)
            rows[i][VECTOR] = to_attribute(mine[0])
            rows[i][CONTENT_HASH] = content_hash(texts, self._index.dims)
            rows[i][VECTOR_COUNT] = len(mine)
            check_item_size(rows[i])
            extras[i] = [to_attribute(vector) for vector in mine[1:]]
        return extras

    # Reads

    @property
    def _omit_expired(self) -> bool:
        return bool(self.ttl_config and self.ttl_config.get("omit_expired", False))

    def _read(
        self,
        ops: list[Op],
        results: list[Result],
        at: float,
        query_vectors: dict[str, list[float]],
    ) -> list[dict[str, Any]]:
        """Answer every read op (concurrently); returns the rows read, for TTL refresh."""
        omit_at = at if self._omit_expired else None
        gets = [i for i, op in enumerate(ops) if isinstance(op, GetOp)]
        tasks: list[Callable[[], None]] = []
        read_rows: list[dict[str, Any]] = []

        def answer_gets() -> None:
            keys = [key_of(ops[i].namespace, ops[i].key) for i in gets]  # type: ignore[union-attr]
            found = dynamo.batch_get(
                self._client, self.table_name, keys, consistent=self.consistent_read
            )
            by_key = {(row["PK"], row["SK"]): row for row in found}
            for i, key in zip(gets, keys, strict=True):
                row = by_key.get((key["PK"], key["SK"]))
                if row is None or (omit_at is not None and is_expired(row, omit_at)):
                    continue
                results[i] = to_item(row)
                if ops[i].refresh_ttl:  # type: ignore[union-attr]
                    read_rows.append(row)

        semantic = self._semantic

        def answer_search(i: int, op: SearchOp) -> None:
            if semantic is not None and op.query:
                hits = semantic.search(op, query_vectors[op.query], omit_expired_at=omit_at)
                results[i] = [to_search_item(row, score) for row, score in hits]
                if op.refresh_ttl:
                    read_rows.extend(row for row, _ in hits)
                return
            found = search_rows(
                self._client,
                self.table_name,
                self._registry,
                op,
                consistent=self.consistent_read,
                omit_expired_at=omit_at,
            )
            results[i] = [to_search_item(row) for row in found]
            if op.refresh_ttl:
                read_rows.extend(found)

        def answer_list(i: int, op: ListNamespacesOp) -> None:
            conditions = list(op.match_conditions or ())
            candidates = self._registry.namespaces(
                literal_prefix(conditions), omit_expired_at=omit_at
            )
            results[i] = select(candidates, conditions, op.max_depth, op.limit, op.offset)

        if gets:
            tasks.append(answer_gets)
        for i, op in enumerate(ops):
            if isinstance(op, SearchOp):
                tasks.append(lambda i=i, op=op: answer_search(i, op))  # type: ignore[misc]
            elif isinstance(op, ListNamespacesOp):
                tasks.append(lambda i=i, op=op: answer_list(i, op))  # type: ignore[misc]
        dynamo.parallel_map(lambda task: task(), tasks)
        return read_rows

    def _refresh(self, read_rows: list[dict[str, Any]], ops: list[Op], at: float) -> None:
        """Slide the expiry of read items by their own TTL, per the rule in `store.ttl`."""
        due = {(r["PK"], r["SK"]): r for r in read_rows if needs_refresh(r, at)}
        dynamo.parallel_map(lambda row: self._refresh_one(row, at), list(due.values()))

    def _refresh_one(self, row: dict[str, Any], at: float) -> None:
        try:
            self._client.update_item(
                TableName=self.table_name,
                Key=dynamo.serialize({"PK": row["PK"], "SK": row["SK"]}),
                UpdateExpression=f"SET {EXPIRES_AT} = :new",
                # Only the version we read: a concurrent put or delete wins.
                ConditionExpression=f"{EXPIRES_AT} = :old AND {TTL_MINUTES} = :ttl",
                ExpressionAttributeValues=dynamo.serialize(
                    {
                        ":new": expiry(float(row[TTL_MINUTES]), at),
                        ":old": row[EXPIRES_AT],
                        ":ttl": row[TTL_MINUTES],
                    }
                ),
            )
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise

    # Writes

    def _write(
        self, ops: list[Op], rows: dict[int, dict[str, Any]], extras: dict[int, list[Any]]
    ) -> None:
        last: dict[ItemKey, int] = {}
        for i, op in enumerate(ops):
            if isinstance(op, PutOp):
                last[(op.namespace, op.key)] = i
        if not last:
            return
        puts = [rows[i] for i in last.values() if i in rows]
        deletes = [k for k, i in last.items() if i not in rows]
        with_ttl: dict[Namespace, bool] = {}
        for (namespace, _), i in last.items():
            if i in rows:
                with_ttl[namespace] = with_ttl.get(namespace, False) or EXPIRES_AT in rows[i]
        self._registry.ensure(with_ttl)
        try:
            old_counts = self._write_rows(puts, deletes)
        except Exception:
            # Keep the registry exact for namespaces the failed write left empty.
            self._registry.forget_if_empty(with_ttl)
            raise
        if self._index is not None:
            self._write_vector_rows(puts, deletes, extras_by_row(last, rows, extras), old_counts)
        if deletes:
            self._registry.forget_if_empty(namespace for namespace, _ in deletes)

    def _write_rows(
        self, puts: list[dict[str, Any]], deletes: list[ItemKey]
    ) -> dict[tuple[str, str], int]:
        """Write item rows; returns how many vectors each overwritten or deleted item had
        (only with an index, to clean up its extra vector rows)."""
        returns = {"ReturnValues": "UPDATED_OLD"} if self._index else {}
        if len(puts) == 1 and not deletes:
            args = update_arguments(puts[0], self._optional)
            key = args.pop("Key")
            response = self._client.update_item(
                TableName=self.table_name,
                Key=dynamo.serialize(key),
                UpdateExpression=args["UpdateExpression"],
                ExpressionAttributeNames=args["ExpressionAttributeNames"],
                ExpressionAttributeValues=dynamo.serialize(args["ExpressionAttributeValues"]),
                **returns,
            )
            return _old_counts([{**key, **dynamo.deserialize(response.get("Attributes", {}))}])
        if len(deletes) == 1 and not puts:
            key = key_of(*deletes[0])
            response = self._client.delete_item(
                TableName=self.table_name,
                Key=dynamo.serialize(key),
                **({"ReturnValues": "ALL_OLD"} if self._index else {}),
            )
            return _old_counts([{**key, **dynamo.deserialize(response.get("Attributes", {}))}])
        previous = self._previous(puts, deletes)
        requests: list[dict[str, Any]] = [
            {
                "PutRequest": {
                    "Item": {
                        **row,
                        CREATED_AT: previous.get((row["PK"], row["SK"]), {}).get(
                            CREATED_AT, row[UPDATED_AT]
                        ),
                    }
                }
            }
            for row in puts
        ]
        requests += [{"DeleteRequest": {"Key": key_of(*key)}} for key in deletes]
        dynamo.batch_write(self._client, self.table_name, requests)
        return _old_counts(list(previous.values()))

    def _previous(
        self, puts: list[dict[str, Any]], deletes: list[ItemKey]
    ) -> dict[tuple[str, str], dict[str, Any]]:
        """`created_at` (and, with an index, `vector_count`) of the items about to be
        overwritten or deleted: one BatchGetItem per 100 keys."""
        keys = [{"PK": row["PK"], "SK": row["SK"]} for row in puts]
        names = {"#c": CREATED_AT}
        if self._index is not None:
            keys += [key_of(*key) for key in deletes]
            names["#n"] = VECTOR_COUNT
        if not keys:
            return {}
        found = dynamo.batch_get(
            self._client,
            self.table_name,
            keys,
            consistent=True,
            projection="PK, SK, " + ", ".join(names),
            names=names,
        )
        return {(row["PK"], row["SK"]): row for row in found}

    def _write_vector_rows(
        self,
        puts: list[dict[str, Any]],
        deletes: list[ItemKey],
        extras: dict[tuple[str, str], list[Any]],
        old_counts: dict[tuple[str, str], int],
    ) -> None:
        """Write each item's vectors 1..n-1 as rows tagged with the item's content hash
        (readers ignore rows whose hash no longer matches) and delete surplus old ones."""
        requests: list[dict[str, Any]] = []
        filter_attributes = self._index.filter_attributes if self._index else ()
        wanted = {(row["PK"], row["SK"]): row for row in puts}
        for key in deletes:
            item_key = key_of(*key)
            wanted[(item_key["PK"], item_key["SK"])] = {}
        for (pk, sk), row in wanted.items():
            for position, vector in enumerate(extras.get((pk, sk), []), start=1):
                item = {
                    "PK": pk,
                    "SK": vector_sort_key(sk, position),
                    VECTOR: vector,
                    ITEM_SK: sk,
                    CONTENT_HASH: row[CONTENT_HASH],
                    **{name: row[name] for name in filter_attributes if name in row},
                }
                requests.append({"PutRequest": {"Item": item}})
            new_count = max(1, int(row.get(VECTOR_COUNT, 0)))
            for position in range(new_count, old_counts.get((pk, sk), 0)):
                stale = {"PK": pk, "SK": vector_sort_key(sk, position)}
                requests.append({"DeleteRequest": {"Key": stale}})
        if requests:
            dynamo.batch_write(self._client, self.table_name, requests)


def extras_by_row(
    last: dict[ItemKey, int], rows: dict[int, dict[str, Any]], extras: dict[int, list[Any]]
) -> dict[tuple[str, str], list[Any]]:
    """Extra vectors keyed by the item row's primary key."""
    by_row: dict[tuple[str, str], list[Any]] = {}
    for i in last.values():
        if i in extras:
            by_row[(rows[i]["PK"], rows[i]["SK"])] = extras[i]
    return by_row


def _old_counts(rows: list[dict[str, Any]]) -> dict[tuple[str, str], int]:
    return {(r["PK"], r["SK"]): int(r[VECTOR_COUNT]) for r in rows if VECTOR_COUNT in r}


def _check_page(limit: int, offset: int) -> None:
    if not isinstance(limit, int) or limit < 0:
        raise ValueError(f"limit must be a non-negative integer, got {limit!r}")
    if not isinstance(offset, int) or offset < 0:
        raise ValueError(f"offset must be a non-negative integer, got {offset!r}")
