"""Purge: erase everything at or below a namespace prefix (a tenant), and prove it.

What goes: the rows of every namespace at or below the prefix (items, with their recency
index and vector index entries, and extra vector rows), the namespaces' registry rows, the
group's row in `._groups` once the group is empty and at or below the prefix, the resume
markers of reindexes of scopes at or below the prefix or stopped inside it, and the rows of every
`RowSource` given (a checkpointer's threads, say). The model pin is the table's, not a
tenant's: it stays.

It never scans: the registry names the namespaces (`Registry.rows`), each partition is
Queried for its keys, and rows go in BatchWriteItems of 25, pooled across namespaces
(`dynamo.batch_write`: concurrent, `UnprocessedItems` retried), so the cost is O(rows).

Order, which makes it resumable: partitions first (the purge's resume marker records the
prefix, the last namespace emptied and the counts), row sources, then a verification read
of every partition, then the registry rows of the namespaces found empty, group rows and
reindex resume markers, and a last count of those. A namespace's registry row goes only
once its partition was read empty, so a rerun after a kill finds every namespace still
holding rows, and its deletes are by key from reads of the prefix's own partitions:
nothing outside the prefix is touched.

Concurrent writers (docs/architecture.md, "Purge"): every row that existed under the prefix
when the purge started is deleted. A row written meanwhile may survive; if it is there
when the verification reads its partition it is reported in `rows_left` and its
namespace stays registered, so a rerun deletes it.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langgraph.store.dynamodb.items import vector_rows
from langgraph.store.dynamodb.items.registry import Registry
from langgraph.store.dynamodb.table import clock, dynamo, resume_markers
from langgraph.store.dynamodb.table.keys import (
    GROUP_LABELS,
    Namespace,
    check_prefix,
    encode_namespace,
    namespace_of_registry_key,
    registry_prefix,
    registry_sort_key,
)
from langgraph.store.dynamodb.table.resume_markers import ResumeMarker, scope_of
from langgraph.store.dynamodb.table.row_sources import RowSource
from langgraph.store.dynamodb.table.schema import (
    GROUPS_PK,
    ITEM_PREFIX,
    MARKER_AFTER,
    PK,
    PURGE_DELETED,
    PURGE_PREFIX,
    PURGE_SAVED_AT,
    PURGE_SCOPE,
    REINDEX_NAMESPACE,
    REINDEX_PREFIX,
    SK,
    VECTOR_ROW_PREFIX,
)

logger = logging.getLogger(__name__)

# Rows read before a round of deletes: a full BatchWriteItem for each concurrent writer.
FLUSH_ROWS = dynamo.BATCH_WRITE_LIMIT * dynamo.MAX_WORKERS

ITEMS = "items"
VECTOR_ROWS = "vector_rows"
OTHER_ROWS = "other_rows"
REGISTRY_ROWS = "registry_rows"
GROUP_ROWS = "group_rows"
# Reindex resume markers: the kind keeps the name results and the CLI have reported.
REINDEX_MARKERS = "reindex_checkpoints"

Key = dict[str, str]


@dataclass(frozen=True)
class Census:
    """The rows under a prefix, by kind, as one read of every partition found them: what a
    purge would delete (dry run), or what is left after it (its verification)."""

    table: str
    prefix: Namespace
    rows: Mapping[str, int]
    namespaces: int
    seconds: float

    @property
    def total(self) -> int:
        """Rows of every kind."""
        return sum(self.rows.values())


@dataclass(frozen=True)
class PurgeResult:
    """What a purge deleted (by kind, over every run of it when resumed) and its
    verification: the rows found under the prefix at the end (0 when complete)."""

    table: str
    prefix: Namespace
    deleted: Mapping[str, int]
    verification: Census
    seconds: float
    resumed: bool

    @property
    def rows_left(self) -> int:
        """Rows the verification found under the prefix."""
        return self.verification.total


class PurgeConflictError(RuntimeError):
    """Another purge of an overlapping prefix holds its resume marker."""


def check_scope(prefix: Iterable[str], *, all_tenants: bool) -> Namespace:
    """The prefix as a namespace, or `ValueError` when purging it would erase many tenants
    by accident: an empty prefix, or one shorter than a group, unless `all_tenants` (then
    with no prefix at all)."""
    namespace = check_prefix(prefix)
    if all_tenants:
        if namespace:
            raise ValueError(
                f"all_tenants wipes the whole table: give it no prefix, got {namespace!r}."
            )
        return namespace
    if len(namespace) < GROUP_LABELS:
        raise ValueError(
            f"Refusing to purge {'.'.join(namespace) or 'an empty prefix'!s}: a prefix of "
            f"fewer than {GROUP_LABELS} labels (a tenant, e.g. memories.acme) would erase "
            "many tenants. Name one tenant, or wipe the whole table deliberately with "
            "all_tenants=True (dynamodb-memory purge --all-tenants)."
        )
    return namespace


def purge(
    client: Any,
    table: str,
    prefix: Iterable[str],
    *,
    all_tenants: bool = False,
    force: bool = False,
    sources: Sequence[RowSource] = (),
    on_progress: Callable[[int], None] | None = None,
) -> PurgeResult:
    """Delete everything at or below `prefix` (see the module docstring), resuming where
    a run of the same prefix stopped (its resume marker), and verify. Refused
    (`PurgeConflictError`, naming it) while another purge of an overlapping prefix holds
    its resume marker, unless `force`. `on_progress` gets the rows deleted so far."""
    started = time.perf_counter()
    scope = _Scope(client, table, check_scope(prefix, all_tenants=all_tenants), sources)
    marker = ResumeMarker.of_purge(client, table, scope.prefix)
    saved = _acquire(marker, scope.prefix, force=force)
    deleted = Counter({kind: int(n) for kind, n in (saved or {}).get(PURGE_DELETED, {}).items()})
    position = [str(saved.get(MARKER_AFTER, "")) if saved else ""]
    at_start = scope.namespaces()

    def progress(kinds: Counter[str], after: str | None) -> None:
        deleted.update(kinds)
        position[0] = position[0] if after is None else after
        _save(marker, scope.prefix, position[0], deleted)
        if on_progress is not None:
            on_progress(deleted.total())

    scope.delete_partitions(
        [ns for ns in at_start if registry_sort_key(ns) > position[0]], progress
    )
    for source in sources:
        progress(scope.delete(source.keys(scope.prefix), source.kind), None)
    verification = scope.verify(at_start, progress)
    if verification.total:
        _save(marker, scope.prefix, "", deleted)  # a rerun must read every partition again
        logger.warning(
            "Purge of %s left %d rows: %s", scope.prefix, verification.total, verification
        )
    else:
        marker.clear()
    return PurgeResult(
        table=table,
        prefix=scope.prefix,
        deleted=dict(deleted),
        verification=verification,
        seconds=time.perf_counter() - started,
        resumed=saved is not None,
    )


def census(
    client: Any,
    table: str,
    prefix: Iterable[str],
    *,
    all_tenants: bool = False,
    sources: Sequence[RowSource] = (),
) -> Census:
    """What `purge` would delete, by kind, read the way purge reads it (no write)."""
    started = time.perf_counter()
    scope = _Scope(client, table, check_scope(prefix, all_tenants=all_tenants), sources)
    namespaces = scope.namespaces()
    rows, _ = scope.count_partitions(namespaces)
    rows.update(scope.count_metadata())
    return scope.census(rows, len(namespaces), started)


@dataclass
class _Scope:
    """The rows at or below one prefix, and how to read and delete them."""

    client: Any
    table: str
    prefix: Namespace
    sources: Sequence[RowSource]
    registry: Registry = field(init=False)

    def __post_init__(self) -> None:
        self.registry = Registry(self.client, self.table, consistent=True)

    def namespaces(self) -> list[Namespace]:
        """The registered namespaces at or below the prefix, in registry-key order."""
        return [_namespace(key) for key in self._registered()]

    def _registered(self) -> list[Key]:
        """The keys of the registry rows at or below the prefix, in registry-key order."""
        rows = self.registry.rows(self.prefix)
        return sorted(({PK: row[PK], SK: row[SK]} for row in rows), key=lambda key: key[SK])

    def delete_partitions(
        self, namespaces: Sequence[Namespace], progress: Callable[[Counter[str], str | None], None]
    ) -> None:
        """Delete every row of each namespace's partition, in full batches pooled across
        namespaces; after each round, `progress` gets the rows deleted by kind and the
        registry key of the last namespace now wholly deleted."""
        pending: list[tuple[int, Key]] = []

        def flush(rows: list[tuple[int, Key]], reading: int) -> None:
            kinds = self.delete([key for _, key in rows])
            done = pending[0][0] if pending else reading  # namespaces before it are empty
            progress(kinds, registry_sort_key(namespaces[done - 1]) if done else None)

        for index, namespace in enumerate(namespaces):
            for key in self._partition_keys(namespace):
                pending.append((index, key))
                if len(pending) >= FLUSH_ROWS:
                    rows = pending[:FLUSH_ROWS]
                    del pending[:FLUSH_ROWS]
                    flush(rows, index)
        if namespaces:
            rows = list(pending)
            pending.clear()
            flush(rows, len(namespaces))

    def delete(self, keys: Iterable[Mapping[str, str]], kind: str | None = None) -> Counter[str]:
        """Delete rows by key; their count by kind (`kind`, else told by their sort key)."""
        found = [dict(key) for key in keys]
        dynamo.batch_write(self.client, self.table, vector_rows.deletes(found))
        return Counter(kind or _kind(key[SK]) for key in found)

    def verify(
        self, at_start: Sequence[Namespace], progress: Callable[[Counter[str], str | None], None]
    ) -> Census:
        """Read every partition under the prefix again (those of the start, and any
        registered since), delete the registry rows of the empty ones, then the group
        rows and reindex resume markers, and count what is left."""
        started = time.perf_counter()
        registered = self._registered()
        namespaces = sorted(
            set(at_start) | {_namespace(key) for key in registered}, key=registry_sort_key
        )
        rows, occupied = self.count_partitions(namespaces)
        emptied = [key for key in registered if _namespace(key) not in occupied]
        progress(self.delete(emptied, REGISTRY_ROWS), None)
        groups = [key for key in self._group_rows() if not self.registry.rows(_namespace(key))]
        progress(self.delete(groups, GROUP_ROWS), None)
        progress(self.delete(self._reindex_markers(), REINDEX_MARKERS), None)
        rows.update(self.count_metadata())
        return self.census(rows, len(namespaces), started)

    def count_partitions(
        self, namespaces: Sequence[Namespace]
    ) -> tuple[Counter[str], set[Namespace]]:
        """Rows by kind in the namespaces' partitions, and the namespaces holding any."""
        counts = dynamo.parallel_map(
            lambda ns: Counter(_kind(key[SK]) for key in self._partition_keys(ns)), namespaces
        )
        total: Counter[str] = Counter()
        for count in counts:
            total.update(count)
        occupied = {ns for ns, count in zip(namespaces, counts, strict=True) if count}
        return total, occupied

    def count_metadata(self) -> Counter[str]:
        """Registry rows, group rows, reindex resume markers (and row sources) in scope."""
        rows: Counter[str] = Counter(
            {
                REGISTRY_ROWS: len(self.registry.rows(self.prefix)),
                GROUP_ROWS: len(self._group_rows()),
                REINDEX_MARKERS: len(self._reindex_markers()),
            }
        )
        for source in self.sources:
            rows[source.kind] += sum(1 for _ in source.keys(self.prefix))
        return rows

    def census(self, rows: Counter[str], namespaces: int, started: float) -> Census:
        return Census(
            table=self.table,
            prefix=self.prefix,
            rows=dict(sorted({**dict.fromkeys(self._kinds(), 0), **rows}.items())),
            namespaces=namespaces,
            seconds=time.perf_counter() - started,
        )

    def _kinds(self) -> list[str]:
        """The kinds every census reports, found or not."""
        fixed = [ITEMS, VECTOR_ROWS, REGISTRY_ROWS, GROUP_ROWS, REINDEX_MARKERS]
        return fixed + [source.kind for source in self.sources]

    def _partition_keys(self, namespace: Namespace) -> Iterator[Key]:
        return self._query(encode_namespace(namespace), "")

    def _group_rows(self) -> list[Key]:
        """The `._groups` rows of groups at or below the prefix (none for a prefix deeper
        than a group: the group holds other namespaces too)."""
        return list(self._query(GROUPS_PK, registry_prefix(self.prefix)))

    def _reindex_markers(self) -> list[Key]:
        """Reindex resume markers of a scope at or below the prefix, or stopped inside it."""
        inside = registry_prefix(self.prefix)
        return [
            {PK: row[PK], SK: row[SK]}
            for row in resume_markers.saved(self.client, self.table, REINDEX_PREFIX)
            if scope_of(str(row[SK])).startswith(inside)
            or str(row.get(REINDEX_NAMESPACE, "")).startswith(inside)
        ]

    def _query(self, partition: str, start: str) -> Iterator[Key]:
        """The keys of one partition's rows (those whose sort key begins with `start`)."""
        condition = f"{PK} = :pk"
        values = {":pk": {"S": partition}}
        if start:
            condition += f" AND begins_with({SK}, :start)"
            values[":start"] = {"S": start}
        for row in dynamo.query(
            self.client,
            TableName=self.table,
            KeyConditionExpression=condition,
            ExpressionAttributeValues=values,
            ProjectionExpression=f"{PK}, {SK}",
            ConsistentRead=True,
        ):
            yield {PK: str(row[PK]), SK: str(row[SK])}


def _kind(sort_key: str) -> str:
    if sort_key.startswith(ITEM_PREFIX):
        return ITEMS
    if sort_key.startswith(VECTOR_ROW_PREFIX):
        return VECTOR_ROWS
    return OTHER_ROWS


def _namespace(registry_row: Mapping[str, str]) -> Namespace:
    return namespace_of_registry_key(registry_row[SK])


def _acquire(marker: ResumeMarker, prefix: Namespace, *, force: bool) -> dict[str, Any] | None:
    """The saved marker of this purge (a resumed run) or None, after refusing when a purge
    of an overlapping prefix holds its own (unless `force`)."""
    rows = resume_markers.saved(marker.client, marker.table, PURGE_PREFIX)
    mine = next((row for row in rows if row[SK] == marker.sort_key), None)
    scope = scope_of(marker.sort_key)
    others = [row for row in rows if row is not mine and _overlaps(scope_of(row[SK]), scope)]
    if others and not force:
        raise PurgeConflictError(_conflict(prefix, others[0]))
    if mine is None:
        _save(marker, prefix, "", Counter())
    else:
        logger.info("Purge of %s resumes after %r", prefix, mine.get(MARKER_AFTER))
    return mine


def _save(marker: ResumeMarker, prefix: Namespace, after: str, deleted: Counter[str]) -> None:
    """Save a purge's progress: its prefix, the registry key of the last namespace it
    emptied, and its counts."""
    marker.save(
        {
            PURGE_SCOPE: list(prefix),
            MARKER_AFTER: after,
            PURGE_DELETED: dict(deleted),
            PURGE_SAVED_AT: int(clock.now()),
        }
    )


def _overlaps(other: str, scope: str) -> bool:
    return other.startswith(scope) or scope.startswith(other)


def _conflict(prefix: Namespace, row: Mapping[str, Any]) -> str:
    other = ".".join(row.get(PURGE_SCOPE, [])) or "every tenant (--all-tenants)"
    mine = ".".join(prefix) or "every tenant"
    done = sum(int(count) for count in row.get(PURGE_DELETED, {}).values())
    return (
        f"A purge of {other} holds its resume marker (last saved at epoch "
        f"{row.get(PURGE_SAVED_AT)}, {done} rows deleted so far), and it overlaps the purge "
        f"of {mine}. Let it finish (if it was stopped, run the purge of {other} again to "
        "resume it), or force this one (force=True, dynamodb-memory purge --force)."
    )
