"""The read path of one batch: gets, searches with and without a query, and namespace
listings, answered concurrently; the rows read are handed back for TTL refresh."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.store.base import GetOp, ListNamespacesOp, Op, Result, SearchOp
from langgraph.store.dynamodb.basestore.kv_search import search_rows
from langgraph.store.dynamodb.basestore.semantic_search import SemanticSearch
from langgraph.store.dynamodb.items.registry import Registry
from langgraph.store.dynamodb.items.rows import (
    READ_NAMES,
    READ_PROJECTION,
    key_of,
    to_item,
    to_search_item,
)
from langgraph.store.dynamodb.table import dynamo
from langgraph.store.dynamodb.table.keys import Namespace
from langgraph.store.dynamodb.table.schema import PK, SK
from langgraph.store.dynamodb.table.ttl import is_expired


class Reader:
    """Answers the read ops of a batch on one table."""

    def __init__(
        self,
        client: Any,
        table: str,
        registry: Registry,
        semantic: SemanticSearch | None,
        *,
        consistent: bool,
        max_fanout: int,
    ) -> None:
        self._client = client
        self._table = table
        self._registry = registry
        self._semantic = semantic
        self._consistent = consistent
        self._max_fanout = max_fanout

    def read(
        self,
        ops: list[Op],
        results: list[Result],
        omit_at: float | None,
        query_vectors: dict[str, list[float]],
        scope: dict[Namespace, list[Namespace]],
    ) -> list[dict[str, Any]]:
        """Answer every read op into `results` (concurrently), hiding items expired at
        `omit_at` when given; returns the rows read whose op asked for a TTL refresh."""
        gets = [i for i, op in enumerate(ops) if isinstance(op, GetOp)]
        tasks: list[Callable[[], None]] = []
        read_rows: list[dict[str, Any]] = []

        def answer_gets() -> None:
            keys = [key_of(ops[i].namespace, ops[i].key) for i in gets]  # type: ignore[union-attr]
            found = dynamo.batch_get(
                self._client,
                self._table,
                keys,
                consistent=self._consistent,
                projection=READ_PROJECTION,
                names=READ_NAMES,
            )
            by_key = {(row[PK], row[SK]): row for row in found}
            for i, key in zip(gets, keys, strict=True):
                row = by_key.get((key[PK], key[SK]))
                if row is None or (omit_at is not None and is_expired(row, omit_at)):
                    continue
                results[i] = to_item(row)
                if ops[i].refresh_ttl:  # type: ignore[union-attr]
                    read_rows.append(row)

        semantic = self._semantic

        def answer_search(i: int, op: SearchOp) -> None:
            if semantic is not None and op.query:
                hits = semantic.search(
                    op,
                    query_vectors[op.query],
                    scope[op.namespace_prefix],
                    omit_expired_at=omit_at,
                )
                results[i] = [to_search_item(row, score) for row, score in hits]
                if op.refresh_ttl:
                    read_rows.extend(row for row, _ in hits)
                return
            found = search_rows(
                self._client,
                self._table,
                self._registry,
                op,
                consistent=self._consistent,
                omit_expired_at=omit_at,
                max_fanout=self._max_fanout,
            )
            results[i] = [to_search_item(row) for row in found]
            if op.refresh_ttl:
                read_rows.extend(found)

        def answer_list(i: int, op: ListNamespacesOp) -> None:
            results[i] = self._registry.list_namespaces(
                op.match_conditions or (),
                op.max_depth,
                op.limit,
                op.offset,
                omit_expired_at=omit_at,
            )

        if gets:
            tasks.append(answer_gets)
        for i, op in enumerate(ops):
            if isinstance(op, SearchOp):
                tasks.append(lambda i=i, op=op: answer_search(i, op))  # type: ignore[misc]
            elif isinstance(op, ListNamespacesOp):
                tasks.append(lambda i=i, op=op: answer_list(i, op))  # type: ignore[misc]
        dynamo.parallel_map(lambda task: task(), tasks)
        return read_rows
