"""Purge: erase everything at or below a namespace prefix (a tenant), and prove it.

What goes: the rows of every namespace at or below the prefix (items, with their recency
index and vector index entries, and extra vector rows), the namespaces' registry rows, the
group's row in `._groups` once the group is empty and at or below the prefix, the resume
markers of reindexes of scopes at or below the prefix or stopped inside it, and the rows of every
`RowSource` given (a checkpointer's threads, say). The model pin is the table's, not a
tenant's: it stays.

By default it never scans: the registry names the namespaces (`Registry.rows`), each
partition is Queried for its keys, and rows go in BatchWriteItems of 25, pooled across
namespaces (`dynamo.batch_write`: concurrent, `UnprocessedItems` retried), so the cost is
O(rows). That trusts the registries: a row in a partition no registry lists (a thread whose
registry row expired, or was never written) is neither deleted nor counted.

`scan=True` trusts nothing: after the registry-driven deletes, one Scan of the whole table
(`SCAN_SEGMENTS` parallel segments, keys only, strongly consistent) finds every row in
scope (the prefix's namespace partitions, and the partitions each source `owns`), deletes
it, and the verification reads every partition it found again. Its cost is the table's
size, whatever the tenant's: one read unit per 4 KB of the table, on top of the default
purge. A purge of every tenant (`all_tenants`) always sweeps: it erases every row of the
table but the model pins and its own marker, the rows no registry or source knows
included, and a wipe reads the whole table anyway.

Order, which makes it resumable: partitions first (the purge's resume marker records the
prefix, the last namespace emptied and the counts), row sources, then a verification read
of every partition, then the registry rows of the namespaces found empty, group rows and
reindex resume markers, and a count of those; after a wait (below), the last count. A
namespace's registry row goes only once its partition was read empty, so a rerun after a
kill finds every namespace still holding rows, and its deletes are by key from reads of
the prefix's own partitions: nothing outside the prefix is touched.

Concurrent writers (docs/architecture.md, "Writers during a purge"): every row that
existed under the prefix when the purge started is deleted. A row written meanwhile may
survive; if it is there when the verification reads its partition it is reported in
`rows_left` and its namespace stays registered, so a rerun deletes it. Writers trust a
listing row (`row_kinds.TRUST_SECONDS`) without writing it again, so a purge that deleted
one waits that long after the last such delete (the time is on its resume marker) and
then counts once more, deleting nothing, listing again every partition a trusting writer
wrote into (`settle`): once it returns, every later write registers first.

Items a source names outside the prefix (memories extraction formed from the tenant's
threads) go after their extra vector rows; the registry and group rows of those
namespaces go once their partitions are read empty.
"""

from __future__ import annotations

import logging
import math
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langgraph.store.dynamodb.items import vector_rows
from langgraph.store.dynamodb.items.registry import Registry
from langgraph.store.dynamodb.jobs import resume_markers
from langgraph.store.dynamodb.jobs.resume_markers import ResumeMarker, scope_of
from langgraph.store.dynamodb.table import clock, dynamo
from langgraph.store.dynamodb.table.keys import (
    GROUP_LABELS,
    SEPARATOR,
    Namespace,
    check_prefix,
    decode_namespace,
    encode_namespace,
    group_of,
    namespace_of_registry_key,
    registry_partition,
    registry_prefix,
    registry_sort_key,
)
from langgraph.store.dynamodb.table.row_kinds import (
    GROUP_ROWS,
    ITEMS,
    REGISTRY_ROWS,
    REINDEX_MARKERS,
    TRUST_SECONDS,
    VECTOR_ROWS,
    Scope,
    erased_kinds,
    trusted_kinds,
)
from langgraph.store.dynamodb.table.row_sources import RowSource
from langgraph.store.dynamodb.table.schema import (
    GROUPS_PK,
    ITEM_PREFIX,
    MARKER_AFTER,
    META_PK,
    PK,
    PURGE_DELETED,
    PURGE_LISTINGS_AT,
    PURGE_PREFIX,
    PURGE_SAVED_AT,
    PURGE_SCOPE,
    REGISTRY_PREFIX,
    REINDEX_NAMESPACE,
    REINDEX_PREFIX,
    SK,
    VECTOR_ROW_PREFIX,
)

logger = logging.getLogger(__name__)

# Rows read before a round of deletes: a full BatchWriteItem for each concurrent writer.
FLUSH_ROWS = dynamo.BATCH_WRITE_LIMIT * dynamo.MAX_WORKERS
# Parallel segments of a sweeping purge's Scan (each a paginated Scan of its share).
SCAN_SEGMENTS = 4

# Rows of no declared kind, which only a wipe of every tenant meets.
OTHER_ROWS = "other_rows"

Key = dict[str, str]


@dataclass(frozen=True)
class Census:
    """The rows in a purge's scope, by kind, as one read of every partition found them:
    what a purge would delete (dry run), or what is left after it (its verification).
    `prefix` is None for a purge of its sources alone; `scanned` says whether a Scan of
    the whole table looked for rows no registry lists."""

    table: str
    prefix: Namespace | None
    rows: Mapping[str, int]
    namespaces: int
    seconds: float
    scanned: bool = False

    @property
    def total(self) -> int:
        """Rows of every kind."""
        return sum(self.rows.values())


@dataclass(frozen=True)
class PurgeResult:
    """What a purge deleted (by kind, over every run of it when resumed) and its
    verification: the rows found in its scope at the end (0 when complete)."""

    table: str
    prefix: Namespace | None
    deleted: Mapping[str, int]
    verification: Census
    seconds: float
    resumed: bool

    @property
    def rows_left(self) -> int:
        """Rows the verification found in the purge's scope."""
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


def _checked(
    prefix: Iterable[str] | None, all_tenants: bool, sources: Sequence[RowSource]
) -> Namespace | None:
    """The purge's prefix (`check_scope`), or None for a purge of `sources` alone."""
    if prefix is not None:
        return check_scope(prefix, all_tenants=all_tenants)
    if all_tenants or not sources:
        raise ValueError(
            "A purge needs a prefix (a tenant, e.g. memories.acme), all_tenants=True with "
            "the prefix (), or, with prefix None, the row sources to erase (a tenant's "
            "threads: saver.erasure_sources())."
        )
    return None


def purge(
    client: Any,
    table: str,
    prefix: Iterable[str] | None,
    *,
    all_tenants: bool = False,
    force: bool = False,
    sources: Sequence[RowSource] = (),
    on_progress: Callable[[int], None] | None = None,
    scan: bool = False,
) -> PurgeResult:
    """Delete everything at or below `prefix` (see the module docstring), resuming where
    a run of the same prefix stopped (its resume marker), and verify. `prefix=None`
    erases the rows of `sources` alone (no namespace, no resume marker: each source lists
    afresh what is left). `scan` also sweeps the table with a Scan for rows no registry
    lists (always on with `all_tenants`). Refused (`PurgeConflictError`, naming it) while
    another purge of an overlapping prefix holds its resume marker, unless `force`.
    `on_progress` gets the rows deleted so far."""
    started = time.perf_counter()
    namespace = _checked(prefix, all_tenants, sources)
    scope = _Scope(client, table, namespace, sources, scan or all_tenants)
    marker = None if namespace is None else ResumeMarker.of_purge(client, table, namespace)
    saved = None if marker is None else _acquire(marker, namespace or (), force=force)
    deleted = Counter({kind: int(n) for kind, n in (saved or {}).get(PURGE_DELETED, {}).items()})
    position = [str(saved.get(MARKER_AFTER, "")) if saved else ""]
    listed_at = [float((saved or {}).get(PURGE_LISTINGS_AT, 0))]
    at_start = scope.namespaces()

    def save(after: str) -> None:
        if marker is not None:
            _save(marker, scope.prefix or (), after, deleted, listed_at[0])

    def progress(kinds: Counter[str], after: str | None) -> None:
        deleted.update(kinds)
        if any(kinds[kind] for kind in trusted_kinds()):
            listed_at[0] = clock.now()
        position[0] = position[0] if after is None else after
        save(position[0])
        if on_progress is not None:
            on_progress(deleted.total())

    scope.delete_partitions(
        [ns for ns in at_start if registry_sort_key(ns) > position[0]], progress
    )
    for source in scope.listed_sources():
        progress(scope.delete(source.keys(scope.prefix or ()), source.kind), None)
    swept = scope.sweep(progress) if scope.scan else _Swept()
    verification = scope.verify(at_start, swept, progress)
    wait = listed_at[0] + TRUST_SECONDS - clock.now()
    if wait > 0:
        logger.info("Purge of %s waits %.0f s for writers trusting its listings", scope.label, wait)
        clock.sleep(wait)
        verification = scope.settle(at_start, swept)
    if verification.total:
        save("")  # a rerun must read every partition again
        logger.warning(
            "Purge of %s left %d rows: %s", scope.label, verification.total, verification
        )
    elif marker is not None:
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
    prefix: Iterable[str] | None,
    *,
    all_tenants: bool = False,
    sources: Sequence[RowSource] = (),
    scan: bool = False,
) -> Census:
    """What `purge` would delete, by kind, read the way purge reads it (no write)."""
    started = time.perf_counter()
    namespace = _checked(prefix, all_tenants, sources)
    scope = _Scope(client, table, namespace, sources, scan or all_tenants)
    swept = scope.find() if scope.scan else _Swept()
    namespaces = sorted(set(scope.namespaces()) | swept.namespaces, key=registry_sort_key)
    rows = scope.count(scope.read_partitions(namespaces), swept)
    return scope.census(rows, len(namespaces), started)


@dataclass
class _Swept:
    """What a Scan found in a purge's scope: each row's kind by key, the namespaces whose
    partitions hold any, and the other partitions holding any."""

    rows: dict[tuple[str, str], str] = field(default_factory=dict)
    namespaces: set[Namespace] = field(default_factory=set)
    partitions: set[str] = field(default_factory=set)


@dataclass
class _Scope:
    """The rows in one purge's scope (a prefix, its sources), and how to read and delete
    them."""

    client: Any
    table: str
    prefix: Namespace | None
    sources: Sequence[RowSource]
    scan: bool
    registry: Registry = field(init=False)
    # Namespaces outside the prefix whose items a source named (memories formed from the
    # tenant's threads): the verification reads them too and drops their registry rows
    # once empty, as it does the prefix's.
    elsewhere: set[Namespace] = field(init=False, default_factory=set)

    def __post_init__(self) -> None:
        self.registry = Registry(self.client, self.table, consistent=True)

    @property
    def label(self) -> str:
        """The scope, for logs."""
        if self.prefix is None:
            return ", ".join(source.kind for source in self.sources)
        return ".".join(self.prefix) or "every tenant"

    def listed_sources(self) -> list[RowSource]:
        """The sources whose rows their `keys` list: all of them, except, when sweeping,
        those the Scan finds by the partitions they own."""
        return [s for s in self.sources if not (self.scan and s.owns is not None)]

    def namespaces(self) -> list[Namespace]:
        """The registered namespaces at or below the prefix, in registry-key order."""
        return [_namespace(key) for key in self._registered()]

    def _registered(self) -> list[Key]:
        """The keys of the registry rows at or below the prefix, in registry-key order."""
        if self.prefix is None:
            return []
        rows = self.registry.rows(self.prefix)
        return sorted(({PK: row[PK], SK: row[SK]} for row in rows), key=lambda key: key[SK])

    def delete_partitions(
        self, namespaces: Sequence[Namespace], progress: Callable[[Counter[str], str | None], None]
    ) -> None:
        """Delete every row of each namespace's partition, in full batches pooled across
        namespaces; after each round, `progress` gets the rows deleted by kind and the
        registry key of the last namespace now wholly deleted."""
        pending: list[Key] = []

        def flush(rows: list[Key], reading: int) -> None:
            # Every row read before is deleted: the namespaces before `reading` are empty.
            kinds = self.delete(rows)
            progress(kinds, registry_sort_key(namespaces[reading - 1]) if reading else None)

        for index, namespace in enumerate(namespaces):
            for key in self._partition_keys(namespace):
                pending.append(key)
                if len(pending) >= FLUSH_ROWS:
                    rows = pending[:FLUSH_ROWS]
                    del pending[:FLUSH_ROWS]
                    flush(rows, index)
        if namespaces:
            rows = list(pending)
            pending.clear()
            flush(rows, len(namespaces))

    def delete(self, keys: Iterable[Mapping[str, str]], kind: str | None = None) -> Counter[str]:
        """Delete rows by key; their count by kind (`kind`, else told by their sort key).
        Items a source names (memories outside the prefix) go after their extra vector
        rows, and their namespaces are marked emptied when they are."""
        found = [dict(key) for key in keys]
        # (A namespace's own items go with their partition, vector rows included.)
        items = [key for key in found if kind not in (None, ITEMS) and _is_item(key)]
        read = dynamo.batch_get(self.client, self.table, items, consistent=True)
        extras = [extra for item in read for extra in vector_rows.current_rows(item)]
        dynamo.batch_write(self.client, self.table, vector_rows.deletes(extras))
        dynamo.batch_write(self.client, self.table, vector_rows.deletes(found))
        touched = {decode_namespace(key[PK]) for key in items}
        self.elsewhere |= {ns for ns in touched if not self._inside(ns)}
        self.registry.forget_if_empty(touched)
        return Counter([VECTOR_ROWS] * len(extras)) + Counter(
            kind or _kind(key[SK]) for key in found
        )

    def _inside(self, namespace: Namespace) -> bool:
        """Whether `namespace` is at or below the prefix."""
        return self.prefix is not None and (encode_namespace(namespace) + SEPARATOR).startswith(
            registry_prefix(self.prefix)
        )

    def find(self) -> _Swept:
        """Every row in scope, by one Scan of the whole table (`SCAN_SEGMENTS` segments)."""
        swept = _Swept()
        for segment in dynamo.parallel_map(self._scan_segment, range(SCAN_SEGMENTS)):
            for (pk, sk), kind in segment:
                swept.rows[(pk, sk)] = kind
                if _is_namespace_partition(pk):
                    swept.namespaces.add(decode_namespace(pk))
                else:
                    swept.partitions.add(pk)
        return swept

    def sweep(self, progress: Callable[[Counter[str], str | None], None]) -> _Swept:
        """Find every row in scope by a Scan and delete what the registry-driven passes
        left: namespaces' rows, rows no source listed (in the sources' order, as their
        `keys` would), and, for every tenant, rows of no known kind. Registry and group
        rows of a prefix stay for the verification, which deletes them once their
        partitions are read empty."""
        swept = self.find()
        order = [ITEMS, VECTOR_ROWS, OTHER_ROWS] + [source.kind for source in self.sources]
        if self.prefix == ():
            order += [REINDEX_MARKERS, REGISTRY_ROWS, GROUP_ROWS]
        for kind in dict.fromkeys(order):
            keys = [{PK: pk, SK: sk} for (pk, sk), found in swept.rows.items() if found == kind]
            if keys:
                progress(self.delete(keys, kind), None)
        return swept

    def _scan_segment(self, segment: int) -> list[tuple[tuple[str, str], str]]:
        """The keys and kinds of the rows in scope in one segment of the table."""
        kwargs: dict[str, Any] = {
            "TableName": self.table,
            "ProjectionExpression": f"{PK}, {SK}",
            "ConsistentRead": True,
            "Segment": segment,
            "TotalSegments": SCAN_SEGMENTS,
        }
        found: list[tuple[tuple[str, str], str]] = []
        while True:
            response = self.client.scan(**kwargs)
            for item in response.get("Items", []):
                pk, sk = item[PK]["S"], item[SK]["S"]
                kind = self.kind_of(pk, sk)
                if kind is not None:
                    found.append(((pk, sk), kind))
            if "LastEvaluatedKey" not in response:
                return found
            kwargs["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    def kind_of(self, pk: str, sk: str) -> str | None:
        """The kind of a row in scope that a sweep deletes (None: out of scope, or left to
        the verification): a row of a namespace at or below the prefix, a row in a
        partition a source owns, and, for every tenant, every other row but the table's
        model pins and purge markers."""
        if _is_namespace_partition(pk):
            return _kind(sk) if self._inside(decode_namespace(pk)) else None
        owner = next((s for s in self.sources if s.owns is not None and s.owns(pk)), None)
        if owner is not None:
            return owner.kind
        if self.prefix != ():
            return None
        if pk == META_PK:
            return REINDEX_MARKERS if sk.startswith(REINDEX_PREFIX) else None
        if pk == GROUPS_PK:
            return GROUP_ROWS
        return REGISTRY_ROWS if pk.startswith(REGISTRY_PREFIX) else OTHER_ROWS

    def verify(
        self,
        at_start: Sequence[Namespace],
        swept: _Swept,
        progress: Callable[[Counter[str], str | None], None],
    ) -> Census:
        """Read every partition in scope again (the namespaces of the start, any
        registered since, and those the sweep found), delete the registry rows of the
        empty ones (and of the namespaces outside the prefix a source emptied), then the
        group rows and reindex resume markers, and count what is left."""
        started = time.perf_counter()
        registered = self._registered()
        namespaces = sorted(
            set(at_start) | swept.namespaces | {_namespace(key) for key in registered},
            key=registry_sort_key,
        )
        partitions = self.read_partitions(namespaces)
        emptied = [key for key in registered if not partitions[_namespace(key)]]
        progress(self.delete(emptied + self._elsewhere_registered(), REGISTRY_ROWS), None)
        groups = [key for key in self._group_rows() if not self.registry.rows(_namespace(key))]
        progress(self.delete(groups + self._elsewhere_groups(), GROUP_ROWS), None)
        progress(self.delete(self._reindex_markers(), REINDEX_MARKERS), None)
        return self.census(self.count(partitions, swept), len(namespaces), started)

    def settle(self, at_start: Sequence[Namespace], swept: _Swept) -> Census:
        """The last count, once no writer trusts a listing the purge deleted: every
        partition in scope read again, nothing deleted. A namespace holding rows that no
        registry row lists (a writer trusting the row the purge deleted wrote there) is
        registered again, so listings and search show it and the next purge finds it; its
        sources list their rows again likewise (a thread, by `erasure`)."""
        started = time.perf_counter()
        registered = {_namespace(key) for key in self._registered()}
        namespaces = sorted(set(at_start) | swept.namespaces | registered, key=registry_sort_key)
        partitions = self.read_partitions(namespaces)
        outside = self.read_partitions(sorted(self.elsewhere, key=registry_sort_key))
        holding = [ns for ns, keys in {**outside, **partitions}.items() if keys]
        keys = [{PK: registry_partition(ns), SK: registry_sort_key(ns)} for ns in holding]
        found = dynamo.batch_get(self.client, self.table, keys, consistent=True)
        listed = {namespace_of_registry_key(str(row[SK])) for row in found}
        self.registry.ensure({ns: True for ns in holding if ns not in listed})
        return self.census(self.count(partitions, swept), len(namespaces), started)

    def read_partitions(self, namespaces: Sequence[Namespace]) -> dict[Namespace, list[Key]]:
        """The keys of the rows in each namespace's partition (read concurrently)."""
        found = dynamo.parallel_map(lambda ns: list(self._partition_keys(ns)), namespaces)
        return dict(zip(namespaces, found, strict=True))

    def count(self, partitions: Mapping[Namespace, list[Key]], swept: _Swept) -> Counter[str]:
        """The rows in scope by kind, each counted once: those of the namespaces'
        `partitions`, the registry, group and reindex marker rows, the rows the sources
        list, and the rows now in the other partitions a sweep found."""
        found: dict[tuple[str, str], str] = {}
        for keys in partitions.values():
            found.update(((key[PK], key[SK]), _kind(key[SK])) for key in keys)
        metadata = {
            REGISTRY_ROWS: self._registered() + self._elsewhere_registered(),
            GROUP_ROWS: self._group_rows() + self._elsewhere_groups(),
            REINDEX_MARKERS: self._reindex_markers(),
        }
        for kind, keys in metadata.items():
            found.update(((key[PK], key[SK]), kind) for key in keys)
        for source in self.listed_sources():
            found.update(((k[PK], k[SK]), source.kind) for k in source.keys(self.prefix or ()))
        reread = dynamo.parallel_map(lambda pk: list(self._query(pk, "")), sorted(swept.partitions))
        for key in (key for keys in reread for key in keys):
            owner = self.kind_of(key[PK], key[SK])
            if owner is not None:
                found[(key[PK], key[SK])] = owner
        return Counter(found.values())

    def census(self, rows: Counter[str], namespaces: int, started: float) -> Census:
        return Census(
            table=self.table,
            prefix=self.prefix,
            rows=dict(sorted({**dict.fromkeys(self._kinds(), 0), **rows}.items())),
            namespaces=namespaces,
            seconds=time.perf_counter() - started,
            scanned=self.scan,
        )

    def _kinds(self) -> list[str]:
        """The kinds every census reports, found or not."""
        namespaces = erased_kinds(Scope.NAMESPACE) if self.prefix is not None else []
        return namespaces + [s.kind for s in self.sources]

    def _partition_keys(self, namespace: Namespace) -> Iterator[Key]:
        return self._query(encode_namespace(namespace), "")

    def _elsewhere_registered(self) -> list[Key]:
        """The registry rows of the namespaces outside the prefix a source emptied, now
        that their partitions hold no row (a namespace other tenants share keeps its)."""
        keys = [{PK: registry_partition(ns), SK: registry_sort_key(ns)} for ns in self.elsewhere]
        found = dynamo.batch_get(self.client, self.table, keys, consistent=True)
        rows = [{PK: str(row[PK]), SK: str(row[SK])} for row in found]
        held = dynamo.parallel_map(
            lambda key: next(self._partition_keys(_namespace(key)), None) is not None, rows
        )
        return [key for key, holds in zip(rows, held, strict=True) if not holds]

    def _elsewhere_groups(self) -> list[Key]:
        """The `._groups` rows of the groups of those namespaces, once no namespace of the
        group is registered."""
        groups = sorted({group_of(ns) for ns in self.elsewhere})
        keys = [{PK: GROUPS_PK, SK: registry_sort_key(group)} for group in groups]
        found = dynamo.batch_get(self.client, self.table, keys, consistent=True)
        rows = [{PK: str(row[PK]), SK: str(row[SK])} for row in found]
        return [key for key in rows if not self.registry.rows(_namespace(key))]

    def _group_rows(self) -> list[Key]:
        """The `._groups` rows of groups at or below the prefix (none for a prefix deeper
        than a group: the group holds other namespaces too)."""
        if self.prefix is None:
            return []
        return list(self._query(GROUPS_PK, registry_prefix(self.prefix)))

    def _reindex_markers(self) -> list[Key]:
        """Reindex resume markers of a scope at or below the prefix, or stopped inside it."""
        if self.prefix is None:
            return []
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


def _is_namespace_partition(pk: str) -> bool:
    """Whether `pk` is a namespace's partition: no namespace encodes to a key starting with
    the separator, and every other partition does (`schema`)."""
    return not pk.startswith(SEPARATOR)


def _is_item(key: Mapping[str, str]) -> bool:
    return _is_namespace_partition(key[PK]) and key[SK].startswith(ITEM_PREFIX)


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


def _save(
    marker: ResumeMarker,
    prefix: Namespace,
    after: str,
    deleted: Counter[str],
    listed_at: float = 0.0,
) -> None:
    """Save a purge's progress: its prefix, the registry key of the last namespace it
    emptied, its counts, and when it last deleted a listing writers trust."""
    marker.save(
        {
            PURGE_SCOPE: list(prefix),
            MARKER_AFTER: after,
            PURGE_DELETED: dict(deleted),
            PURGE_SAVED_AT: int(clock.now()),
            PURGE_LISTINGS_AT: math.ceil(listed_at),
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
