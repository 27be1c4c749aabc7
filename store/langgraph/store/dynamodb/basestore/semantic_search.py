"""Search with a query: one `SearchVectors` per namespace, merged by score.

The index's HASH element is the partition key, so each call is scoped to one namespace.
A prefix fans out over the namespaces below it (from the registry, bounded by
`max_fanout`), concurrently, and the hits are merged by score: the global top
`offset + limit` is always within the union of each namespace's top `offset + limit`.
Values come from the index projection (ALL), so a hit on an item row needs no read;
hits on an item's extra vector rows are resolved with one BatchGetItem and kept only while
they belong to the item's current write (see `writes`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from langgraph.store.base import SearchOp
from langgraph.store.dynamodb.items.embedding import ORPHAN_SECONDS, score, to_search_vector
from langgraph.store.dynamodb.items.index_config import IndexSettings
from langgraph.store.dynamodb.items.registry import Registry
from langgraph.store.dynamodb.items.rows import row_matches
from langgraph.store.dynamodb.table import clock, dynamo
from langgraph.store.dynamodb.table.keys import Namespace, encode_namespace
from langgraph.store.dynamodb.table.schema import (
    ITEM_PREFIX,
    ITEM_SK,
    PENDING,
    PK,
    SK,
    VECTOR_VERSION,
    WRITTEN_AT,
)
from langgraph.store.dynamodb.table.ttl import is_expired

logger = logging.getLogger(__name__)

TOP_K_CAP = 100

Hit = tuple[dict[str, Any], float]


def check_page(limit: int, offset: int) -> None:
    """Raise when a semantic page reaches past what the index can return."""
    if limit + offset > TOP_K_CAP:
        raise ValueError(
            f"Semantic search returns at most the top {TOP_K_CAP} matches: limit + offset "
            f"is {limit + offset}. Narrow the namespace or the page (limit + offset <= "
            f"{TOP_K_CAP})."
        )


class SemanticSearch:
    """Runs semantic searches against one table's vector index."""

    def __init__(
        self, client: Any, table: str, registry: Registry, settings: IndexSettings
    ) -> None:
        self._client = client
        self._table = table
        self._registry = registry
        self._settings = settings

    def namespaces(
        self, prefixes: Sequence[Namespace], *, omit_expired_at: float | None
    ) -> dict[Namespace, list[Namespace]]:
        """The registered namespaces under each prefix (one registry Query each, run
        concurrently); callers overlap this with embedding the query. Past `max_fanout`
        candidates, only namespaces verified to hold items count (dead ones, e.g. emptied
        by the TTL sweep, do not)."""

        def covered(prefix: Namespace) -> list[Namespace]:
            candidates = self._registry.candidates(prefix)
            if len(candidates) <= self._settings.max_fanout:
                return candidates
            return self._registry.namespaces(prefix, omit_expired_at=omit_expired_at)

        found = dynamo.parallel_map(covered, list(prefixes))
        return dict(zip(prefixes, found, strict=True))

    def search(
        self,
        op: SearchOp,
        query_vector: Sequence[float],
        namespaces: list[Namespace],
        *,
        omit_expired_at: float | None,
    ) -> list[Hit]:
        """The page `offset:offset+limit` of items in `namespaces` (those under the
        op's prefix), best score first."""
        need = op.offset + op.limit
        if op.limit <= 0:
            return []
        if len(namespaces) > self._settings.max_fanout:
            raise ValueError(
                f"Semantic search under {op.namespace_prefix!r} covers {len(namespaces)} "
                f"namespaces, more than index['max_fanout']={self._settings.max_fanout}. "
                "Search a narrower prefix or raise max_fanout."
            )
        overfetch = bool(op.filter) or omit_expired_at is not None
        vector = to_search_vector(query_vector)
        pushed = self._pushed_filters(op.filter)
        per_namespace = dynamo.parallel_map(
            lambda ns: self._namespace_hits(ns, vector, need, overfetch, pushed), namespaces
        )
        hits = [hit for hits in per_namespace for hit in hits]
        hits.sort(key=lambda hit: (-hit[1], hit[0][PK], hit[0][SK]))
        kept = [
            hit
            for hit in hits
            if not (omit_expired_at is not None and is_expired(hit[0], omit_expired_at))
            and row_matches(hit[0], op.filter)
        ]
        return kept[op.offset : need]

    def _pushed_filters(self, filter: dict[str, Any] | None) -> dict[str, str]:
        """Equality conditions the index can apply itself: string values of filter fields."""
        pushed: dict[str, str] = {}
        for field, condition in (filter or {}).items():
            if field not in self._settings.filter_fields:
                continue
            if isinstance(condition, dict) and set(condition) == {"$eq"}:
                condition = condition["$eq"]
            if isinstance(condition, str):
                pushed[self._settings.filter_attribute(field)] = condition
        return pushed

    def _namespace_hits(
        self,
        namespace: Namespace,
        vector: list[dict[str, str]],
        need: int,
        overfetch: bool,
        pushed: dict[str, str],
    ) -> list[Hit]:
        top_k = TOP_K_CAP if overfetch else need
        while True:
            results = self._search_vectors(namespace, vector, top_k, pushed)
            hits = self._resolve(results)
            if len(hits) >= need or len(results) < top_k or top_k == TOP_K_CAP:
                return hits
            top_k = TOP_K_CAP  # several vectors per item: fetch deeper to fill the page

    def _search_vectors(
        self,
        namespace: Namespace,
        vector: list[dict[str, str]],
        top_k: int,
        pushed: dict[str, str],
    ) -> list[dict[str, Any]]:
        names = {"#pk": PK}
        values = {":pk": {"S": encode_namespace(namespace)}}
        conditions = ["#pk = :pk"]
        for index, (attribute, value) in enumerate(sorted(pushed.items())):
            names[f"#f{index}"] = attribute
            values[f":f{index}"] = {"S": value}
            conditions.append(f"#f{index} = :f{index}")
        response = self._client.search_vectors(
            TableName=self._table,
            IndexName=self._settings.index_name,
            SearchVector=vector,
            TopK=top_k,
            SearchConditionExpression=" AND ".join(conditions),
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
        )
        results: list[dict[str, Any]] = response.get("SearchResults", [])
        return results

    def _resolve(self, results: list[dict[str, Any]]) -> list[Hit]:
        """Best score per item (results come best first). A hit on an extra vector row
        counts only while it belongs to the item's current write (`vector_version`); old
        rows no write will ever use again are deleted on the way."""
        hits: dict[str, list[Hit]] = {}
        for result in results:
            row = dynamo.deserialize(result["Item"])
            value = score(float(result["Score"]), self._settings.distance_function)
            item_sk = row[SK] if row[SK].startswith(ITEM_PREFIX) else row.get(ITEM_SK)
            if item_sk is not None:
                hits.setdefault(item_sk, []).append((row, value))
        best = {sk: found[0] for sk, found in hits.items() if found[0][0][SK] == sk}
        behind = {sk: found for sk, found in hits.items() if sk not in best}
        if not behind:
            return list(best.values())
        items = dynamo.batch_get(
            self._client,
            self._table,
            [{PK: found[0][0][PK], SK: sk} for sk, found in behind.items()],
            consistent=True,
        )
        by_sk = {item[SK]: item for item in items}
        garbage = []
        at = clock.now()
        for sk, found in behind.items():
            item = by_sk.get(sk)
            version = item.get(VECTOR_VERSION) if item is not None else None
            for row, value in found:
                if row[SK] == sk:
                    best[sk] = (row, value)
                    break
                if item is not None and PENDING not in item and row.get(VECTOR_VERSION) == version:
                    best[sk] = (item, value)
                    break
                if is_expired(row, at) or at - float(row.get(WRITTEN_AT, 0)) > ORPHAN_SECONDS:
                    garbage.append(row)
        dynamo.parallel_map(self._remove_garbage, garbage)
        return list(best.values())

    def _remove_garbage(self, row: dict[str, Any]) -> None:
        """Delete an extra vector row of a write that was replaced, deleted, expired or
        never completed (its cleanup failed). Its key names that write, which no later
        write reuses, so the delete can never hit a live vector. Best effort: a failure is
        logged and never fails the search (the row is met and deleted again later)."""
        try:
            self._client.delete_item(
                TableName=self._table, Key=dynamo.serialize({PK: row[PK], SK: row[SK]})
            )
        except Exception as error:
            logger.warning("Could not delete vector row %s/%s: %r", row[PK], row[SK], error)
