"""The vector-index model: definitions, validation, lifecycle, and exact k-NN search.

The table's items are the source of truth. Each index's contents are derived from them at
search time and cached as float32 numpy matrices per (table, index, partition); every write
path that moto has (PutItem, UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems,
PartiQL, TTL sweep) ends in ``Table.put_item``/``Table.delete_item`` or the backend's
``update_item``, which ``_patch`` hooks to validate and to invalidate the cache.
"""

from __future__ import annotations

import copy
import re
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
from langgraph.store.dynamodb.table.schema import META_PK
from langgraph.store.dynamodb.testing._errors import (
    LimitExceeded,
    ResourceNotFound,
    ValidationError,
)
from langgraph.store.dynamodb.testing._settings import current_settings
from moto.dynamodb.models.dynamo_type import DynamoType, Item

INVALID = "One or more parameter values were invalid: "
MAX_VECTOR_INDEXES = 5
MAX_INLINE_FILTERS = 18
MAX_DIMENSIONS = 4096
MAX_TOP_K = 100
MIN_SEARCH_BYTES = 1024.0
_NAME_RE = re.compile(r"^[a-zA-Z0-9_.-]{3,255}$")
DISTANCE_FUNCTIONS = ("COSINE", "EUCLIDEAN", "DOT_PRODUCT")
PROJECTION_TYPES = ("ALL", "KEYS_ONLY", "INCLUDE")

LOCK = threading.RLock()
"""Serialises the emulation's own bookkeeping (the HTTP endpoint serves from threads)."""

F32Matrix = npt.NDArray[np.float32]


def now() -> float:
    return time.monotonic()


@dataclass
class VectorIndex:
    """One vector index of one table, with its time-driven lifecycle."""

    name: str
    vector_attr: str
    dims: int
    distance: str
    projection: dict[str, Any]
    search_schema: list[dict[str, str]] | None
    arn: str
    inline: bool
    backfill: bool
    started: float
    creation_delay: float
    backfill_delay: float
    search_lag: float
    deleting_since: float | None = None
    deletion_delay: float = 0.0
    attr_types: dict[str, str] = field(default_factory=dict)

    @property
    def hash_attr(self) -> str | None:
        for el in self.search_schema or []:
            if el["SearchSchemaElementType"] == "HASH":
                return el["AttributeName"]
        return None

    @property
    def filter_attrs(self) -> list[str]:
        return [
            el["AttributeName"]
            for el in self.search_schema or []
            if el["SearchSchemaElementType"] == "INLINE_FILTER"
        ]

    @property
    def active_at(self) -> float:
        return self.started + self.creation_delay

    def status(self, t: float) -> str:
        if self.deleting_since is not None:
            return "DELETING"
        return "CREATING" if t < self.active_at else "ACTIVE"

    def gone(self, t: float) -> bool:
        return self.deleting_since is not None and t >= self.deleting_since + self.deletion_delay

    def backfilling(self, t: float) -> bool:
        return self.backfill and self.active_at <= t < self.active_at + self.backfill_delay

    def busy(self, t: float) -> bool:
        """An online index operation is still running on this index."""
        return self.status(t) != "ACTIVE" or self.backfilling(t)

    def describe(self, table: Any) -> dict[str, Any]:
        t = now()
        count, size = index_stats(table, self)
        out: dict[str, Any] = {
            "IndexName": self.name,
            "VectorAttribute": {"AttributeName": self.vector_attr},
            "Dimensions": self.dims,
            "DistanceFunction": self.distance,
            "Projection": copy.deepcopy(self.projection),
            "IndexStatus": self.status(t),
            "IndexSizeBytes": size,
            "ItemCount": count,
            "IndexArn": self.arn,
        }
        if self.search_schema:
            out["SearchSchema"] = copy.deepcopy(self.search_schema)
        if not self.inline:
            out["Backfilling"] = self.backfilling(t)
        return out

    def key_attrs(self, table: Any) -> list[str]:
        keys = [table.hash_key_attr]
        if table.range_key_attr:
            keys.append(table.range_key_attr)
        for el in self.search_schema or []:
            if el["AttributeName"] not in keys:
                keys.append(el["AttributeName"])
        return keys


# --------------------------------------------------------------------------- table state


class _CacheBox:
    """Per-table matrix cache; dropped (not copied) when moto deep-copies a table."""

    def __init__(self) -> None:
        self.indexes: dict[str, dict[Any, _Partition]] = {}
        # (index name, item key) -> (the Item the row was read from, its f32 row or None)
        self.rows: dict[tuple[str, tuple[Any, Any]], tuple[Item, Any]] = {}

    def __deepcopy__(self, memo: dict[int, Any]) -> _CacheBox:
        return _CacheBox()


def indexes(table: Any) -> dict[str, VectorIndex]:
    """The table's live vector indexes (deleted ones disappear once their delay is over)."""
    found: dict[str, VectorIndex] | None = table.__dict__.get("_vector_indexes")
    if not found:
        return {}
    t = now()
    for name in [n for n, ix in found.items() if ix.gone(t)]:
        del found[name]
        _forget_index(table, name)
    return found


def set_indexes(table: Any, found: dict[str, VectorIndex]) -> None:
    table.__dict__["_vector_indexes"] = found


def _forget_index(table: Any, name: str) -> None:
    with LOCK:
        box = _cache(table)
        box.indexes.pop(name, None)
        box.rows = {k: row for k, row in box.rows.items() if k[0] != name}


def _cache(table: Any) -> _CacheBox:
    box: _CacheBox | None = table.__dict__.get("_vector_cache")
    if box is None:
        box = _CacheBox()
        table.__dict__["_vector_cache"] = box
    return box


def _pending(table: Any) -> list[tuple[float, tuple[Any, Any], Item | None]]:
    pend: list[tuple[float, tuple[Any, Any], Item | None]] | None = table.__dict__.get(
        "_vector_pending"
    )
    if pend is None:
        pend = []
        table.__dict__["_vector_pending"] = pend
    return pend


def note_write(table: Any, hash_key: Any, range_key: Any, old: Item | None) -> None:
    """A write to the item with this key happened; ``old`` is its state before the write."""
    if not table.__dict__.get("_vector_indexes"):
        return
    lag = current_settings().indexing_lag
    with LOCK:
        if lag > 0:
            _pending(table).append((now() + lag, (hash_key, range_key), copy.deepcopy(old)))
        box = _cache(table)
        for name, ix in indexes(table).items():
            box.rows.pop((name, (hash_key, range_key)), None)
            if ix.hash_attr == table.hash_key_attr:
                box.indexes.get(name, {}).pop(hash_key, None)
            else:
                box.indexes.pop(name, None)


def invalidate_all(table: Any) -> None:
    with LOCK:
        _cache(table).indexes.clear()
        _cache(table).rows.clear()


# --------------------------------------------------------------------------- validation


def _vector_shape(value: Any) -> tuple[str, int | None, bool]:
    """(type, length, all elements numbers) of a raw or DynamoType attribute value."""
    if isinstance(value, DynamoType):
        if value.type == "L":
            elems = value.value
            return "L", len(elems), all(e.type == "N" for e in elems)
        return value.type, None, False
    typ = next(iter(value))
    if typ == "L":
        elems = value[typ]
        return "L", len(elems), all(isinstance(e, Mapping) and "N" in e for e in elems)
    return typ, None, False


def _attr_type(value: Any) -> str:
    return value.type if isinstance(value, DynamoType) else next(iter(value))


def validate_item(table: Any, attrs: Mapping[str, Any]) -> None:
    """Reject an item whose vector or search-schema attributes don't fit an index."""
    for ix in indexes(table).values():
        if ix.deleting_since is not None:
            continue
        if ix.vector_attr in attrs:
            typ, length, numeric = _vector_shape(attrs[ix.vector_attr])
            if typ != "L" or not numeric:
                shown = typ if typ != "L" else "L (not all N)"
                raise ValidationError(
                    f"{INVALID}Type mismatch for Index Key {ix.vector_attr} Expected: L of N "
                    f"Actual: {shown} IndexName: {ix.name}"
                )
            if length != ix.dims:
                raise ValidationError(
                    f"{INVALID}Invalid size for parameter {ix.vector_attr}, Expected: "
                    f"{ix.dims}, Actual: {length}. IndexName: {ix.name}"
                )
        for el in ix.search_schema or []:
            name = el["AttributeName"]
            want = ix.attr_types.get(name)
            if name in attrs and want and _attr_type(attrs[name]) != want:
                raise ValidationError(
                    f"{INVALID}Type mismatch for Index Key {name} Expected: {want} "
                    f"Actual: {_attr_type(attrs[name])} IndexName: {ix.name}"
                )


def _check_name(name: Any, where: str) -> None:
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ValidationError(
            f"1 validation error detected: Value '{name}' at '{where}.indexName' failed to "
            "satisfy constraint: Member must satisfy regular expression pattern: "
            "[a-zA-Z0-9_.-]+ and have length between 3 and 255"
        )


def validate_definition(
    spec: Mapping[str, Any],
    attr_defs: Iterable[Mapping[str, str]],
    key_attrs: Iterable[str],
    where: str,
) -> dict[str, str]:
    """Validate one VectorIndex definition; returns the search-schema attribute types."""
    for required in ("IndexName", "VectorAttribute", "Dimensions", "DistanceFunction"):
        if required not in spec or spec[required] is None:
            raise ValidationError(
                f"1 validation error detected: Value null at '{where}.{required[0].lower()}"
                f"{required[1:]}' failed to satisfy constraint: Member must not be null"
            )
    name = spec["IndexName"]
    _check_name(name, where)
    dims = spec["Dimensions"]
    if not isinstance(dims, int) or not 1 <= dims <= MAX_DIMENSIONS:
        raise ValidationError(
            f"1 validation error detected: Value '{dims}' at '{where}.dimensions' failed to "
            f"satisfy constraint: Member must have value between 1 and {MAX_DIMENSIONS}"
        )
    if spec["DistanceFunction"] not in DISTANCE_FUNCTIONS:
        raise ValidationError(
            f"1 validation error detected: Value '{spec['DistanceFunction']}' at "
            f"'{where}.distanceFunction' failed to satisfy constraint: Member must satisfy "
            "enum value set: [COSINE, DOT_PRODUCT, EUCLIDEAN]"
        )
    vattr = (spec.get("VectorAttribute") or {}).get("AttributeName")
    if not vattr:
        raise ValidationError(
            f"1 validation error detected: Value null at '{where}.vectorAttribute."
            "attributeName' failed to satisfy constraint: Member must not be null"
        )
    if vattr in set(key_attrs):
        raise ValidationError(
            f"{INVALID}The vector attribute {vattr} cannot be a key attribute. IndexName: {name}"
        )
    projection = spec.get("Projection")
    if not projection or "ProjectionType" not in projection:
        raise ValidationError(
            f"1 validation error detected: Value null at '{where}.projection' failed to "
            "satisfy constraint: Member must not be null"
        )
    ptype = projection["ProjectionType"]
    if ptype not in PROJECTION_TYPES:
        raise ValidationError(
            f"1 validation error detected: Value '{ptype}' at '{where}.projection."
            "projectionType' failed to satisfy constraint: Member must satisfy enum value "
            "set: [ALL, KEYS_ONLY, INCLUDE]"
        )
    if ptype == "INCLUDE" and not projection.get("NonKeyAttributes"):
        raise ValidationError(
            f"{INVALID}ProjectionType is INCLUDE, but NonKeyAttributes is not specified"
        )
    if ptype != "INCLUDE" and projection.get("NonKeyAttributes"):
        raise ValidationError(
            f"{INVALID}ProjectionType is {ptype}, but NonKeyAttributes is specified"
        )
    defined = {a["AttributeName"]: a["AttributeType"] for a in attr_defs}
    schema = spec.get("SearchSchema")
    types: dict[str, str] = {}
    if schema is not None:
        if len(schema) == 0:
            raise ValidationError(
                f"1 validation error detected: Value '[]' at '{where}.searchSchema' failed to "
                "satisfy constraint: Member must have length greater than or equal to 1"
            )
        hashes = [e for e in schema if e.get("SearchSchemaElementType") == "HASH"]
        filters = [e for e in schema if e.get("SearchSchemaElementType") == "INLINE_FILTER"]
        if len(hashes) + len(filters) != len(schema):
            raise ValidationError(
                f"1 validation error detected: Value at '{where}.searchSchema' failed to "
                "satisfy constraint: SearchSchemaElementType must be HASH or INLINE_FILTER"
            )
        if len(hashes) > 1:
            raise ValidationError(
                f"{INVALID}Too many HASH elements in SearchSchema: at most 1 is allowed. "
                f"IndexName: {name}"
            )
        if len(filters) > MAX_INLINE_FILTERS:
            raise ValidationError(
                f"{INVALID}Too many INLINE_FILTER elements in SearchSchema: at most "
                f"{MAX_INLINE_FILTERS} are allowed. IndexName: {name}"
            )
        names = [e.get("AttributeName") for e in schema]
        if len(set(names)) != len(names):
            raise ValidationError(
                f"{INVALID}Duplicate attribute in SearchSchema. IndexName: {name}"
            )
        for attr in names:
            if attr not in defined:
                raise ValidationError(
                    f"{INVALID}One element in SearchSchema is not defined in attribute definitions"
                )
            if attr == vattr:
                raise ValidationError(
                    f"{INVALID}The vector attribute {vattr} cannot be part of the "
                    f"SearchSchema. IndexName: {name}"
                )
            types[str(attr)] = defined[str(attr)]
    return types


def make_index(
    table: Any, spec: Mapping[str, Any], types: dict[str, str], *, inline: bool
) -> VectorIndex:
    s = current_settings()
    schema = spec.get("SearchSchema")
    return VectorIndex(
        name=spec["IndexName"],
        vector_attr=spec["VectorAttribute"]["AttributeName"],
        dims=int(spec["Dimensions"]),
        distance=spec["DistanceFunction"],
        projection=copy.deepcopy(dict(spec["Projection"])),
        search_schema=[dict(e) for e in schema] if schema else None,
        arn=f"{table.table_arn}/index/{spec['IndexName']}",
        inline=inline,
        backfill=(not inline) and len(table) > 0,
        started=now(),
        creation_delay=s.index_creation_delay,
        backfill_delay=s.backfill_delay,
        search_lag=s.search_lag,
        attr_types=types,
    )


def other_index_names(table: Any) -> set[str]:
    return {ix.name for ix in table.global_indexes} | {ix.name for ix in table.indexes}


def apply_updates(table: Any, updates: list[dict[str, Any]], attr_defs: list[Any]) -> None:
    """Validate and apply UpdateTable.VectorIndexUpdates (one Create or Delete)."""
    if len(updates) == 0:
        return
    if len(updates) > 1:
        from langgraph.store.dynamodb.testing._errors import limit_exceeded_one_online_index

        raise limit_exceeded_one_online_index()
    update = updates[0]
    create, delete = update.get("Create"), update.get("Delete")
    if bool(create) == bool(delete):
        raise ValidationError(
            "1 validation error detected: exactly one of Create or Delete must be specified "
            "in a VectorIndexUpdate"
        )
    current = indexes(table)
    t = now()
    if create:
        types = validate_definition(
            create, attr_defs, table.table_key_attrs, "vectorIndexUpdates.1.member.create"
        )
        if table.billing_mode != "PAY_PER_REQUEST":
            raise ValidationError(
                f"{INVALID}Vector indexes are only supported on tables with BillingMode "
                "PAY_PER_REQUEST"
            )
        if create["IndexName"] in current or create["IndexName"] in other_index_names(table):
            raise ValidationError("Attempting to create an index which already exists")
        if any(ix.busy(t) for ix in current.values()):
            from langgraph.store.dynamodb.testing._errors import limit_exceeded_one_online_index

            raise limit_exceeded_one_online_index()
        if len(current) >= MAX_VECTOR_INDEXES:
            raise LimitExceeded(
                f"Subscriber limit exceeded: a table can have at most {MAX_VECTOR_INDEXES} "
                "vector indexes"
            )
        ix = make_index(table, create, types, inline=False)
        current = dict(current)
        current[ix.name] = ix
        set_indexes(table, current)
    else:
        assert delete is not None
        name = delete["IndexName"]
        if name not in current or current[name].deleting_since is not None:
            raise ResourceNotFound(f"Requested resource not found: Index: {name} not found")
        if any(ix.busy(t) for ix in current.values()):
            from langgraph.store.dynamodb.testing._errors import limit_exceeded_one_online_index

            raise limit_exceeded_one_online_index()
        ix = current[name]
        ix.deleting_since = t
        ix.deletion_delay = current_settings().index_deletion_delay
        _forget_index(table, name)
        indexes(table)


# --------------------------------------------------------------------------- contents


def _item_key(item: Item) -> tuple[Any, Any]:
    return (item.hash_key, item.range_key)


def _vector_of(item: Item, ix: VectorIndex) -> list[Any] | None:
    value = item.attrs.get(ix.vector_attr)
    if value is None or value.type != "L" or len(value.value) != ix.dims:
        return None
    elems = value.value
    if not all(e.type == "N" for e in elems):
        return None
    if ix.hash_attr is not None and ix.hash_attr not in item.attrs:
        return None
    return [e.value for e in elems]


def _partition_items(table: Any, hash_key: DynamoType) -> list[Item]:
    if hash_key not in table.items:
        return []
    bucket = table.items[hash_key]
    if table.range_key_attr:
        return [bucket[k] for k in sorted(bucket)]
    return [bucket]


class _Partition:
    """The float32 matrix of one index partition, plus lazily built filter groups."""

    def __init__(
        self,
        ix: VectorIndex,
        items: list[Item],
        row_cache: dict[tuple[str, tuple[Any, Any]], tuple[Item, Any]] | None = None,
    ) -> None:
        rows: list[Item] = []
        raw: list[Any] = []
        for item in items:
            key = (ix.name, _item_key(item))
            cached = row_cache.get(key) if row_cache is not None else None
            if cached is not None and cached[0] is item:
                row = cached[1]
            else:
                vec = _vector_of(item, ix)
                row = None if vec is None else np.array(vec, dtype=np.float32)
                if row_cache is not None:
                    row_cache[key] = (item, row)
            if row is not None:
                rows.append(item)
                raw.append(row)
        self._load(
            ix,
            rows,
            np.stack(raw).astype(np.float32, copy=False)
            if raw
            else np.zeros((0, ix.dims), dtype=np.float32),
        )

    def _load(self, ix: VectorIndex, items: list[Item], matrix: F32Matrix) -> None:
        """Hold `items` (`items[i]` owns `matrix[i]`) and what the distances need."""
        self.items = list(items)
        self.matrix: F32Matrix = np.ascontiguousarray(matrix, dtype=np.float32)
        self.distance = ix.distance
        self.norms = np.linalg.norm(self.matrix, axis=1).astype(np.float32)
        safe = np.where(self.norms == 0, np.float32(1), self.norms)
        self.unit: F32Matrix | None = (
            (self.matrix / safe[:, None]).astype(np.float32) if ix.distance == "COSINE" else None
        )
        self.sq_norms = (self.norms * self.norms).astype(np.float32)
        self._groups: dict[str, dict[DynamoType, npt.NDArray[np.intp]]] = {}

    @classmethod
    def from_matrix(cls, ix: VectorIndex, items: list[Item], matrix: F32Matrix) -> _Partition:
        """A partition over ready-made rows (``items[i]`` owns ``matrix[i]``), for loading
        a large partition without building its items' vectors one by one."""
        part = cls(ix, [])
        part._load(ix, items, matrix)
        return part

    def rows_where(self, attr: str, value: DynamoType) -> npt.NDArray[np.intp]:
        groups = self._groups.get(attr)
        if groups is None:
            acc: dict[DynamoType, list[int]] = {}
            for i, item in enumerate(self.items):
                v = item.attrs.get(attr)
                if v is not None:
                    acc.setdefault(v, []).append(i)
            groups = {k: np.array(v, dtype=np.intp) for k, v in acc.items()}
            self._groups[attr] = groups
        return groups.get(value, np.zeros(0, dtype=np.intp))

    def distances(self, q: npt.NDArray[np.float32], rows: npt.NDArray[np.intp] | None) -> Any:
        """Sort keys (lower is better) for the given rows (all when None)."""
        if self.distance == "COSINE":
            assert self.unit is not None
            mat = self.unit if rows is None else self.unit[rows]
            qn = np.float32(np.linalg.norm(q))
            qu = q / qn if qn > 0 else q
            return np.float32(1) - mat @ qu
        mat = self.matrix if rows is None else self.matrix[rows]
        if self.distance == "EUCLIDEAN":
            sq = self.sq_norms if rows is None else self.sq_norms[rows]
            return sq - np.float32(2) * (mat @ q)
        return -(mat @ q)

    def nearest(
        self, q: npt.NDArray[np.float32], rows: npt.NDArray[np.intp] | None, top_k: int
    ) -> list[tuple[int, float]]:
        """The `top_k` rows (all when None, else among `rows`) closest to `q`, best first,
        as (row position, the service's score); ties by position."""
        n = self.matrix.shape[0] if rows is None else len(rows)
        if not n:
            return []
        keys = self.distances(q, rows)
        k = min(top_k, n)
        cand = np.argpartition(keys, k - 1)[:k] if k < n else np.arange(n)
        chosen = cand if rows is None else rows[cand]
        exact = self.exact_scores(q, chosen)
        sort_keys = -exact if self.distance == "DOT_PRODUCT" else exact
        order = np.lexsort((chosen, sort_keys))
        return [(int(chosen[j]), float(exact[j])) for j in order]

    def exact_scores(self, q: npt.NDArray[np.float32], rows: npt.NDArray[np.intp]) -> Any:
        """The service's scores, exactly, for the selected rows."""
        mat = self.matrix[rows]
        if self.distance == "COSINE":
            norms = self.norms[rows]
            qn = np.float32(np.linalg.norm(q))
            dots = mat @ q
            denom = norms * qn
            cos = np.where(denom > 0, dots / np.where(denom > 0, denom, 1), np.float32(0))
            return np.clip(np.float32(1) - cos, 0, 2).astype(np.float32)
        if self.distance == "EUCLIDEAN":
            return np.linalg.norm(mat - q, axis=1).astype(np.float32)
        return (mat @ q).astype(np.float32)


def _visible_items(table: Any, ix: VectorIndex, hash_value: DynamoType | None) -> list[Item]:
    """Items as the index sees them now, given the indexing lag (uncached path)."""
    t = now()
    pend = _pending(table)
    pend[:] = [p for p in pend if p[0] > t]
    if ix.hash_attr is not None and ix.hash_attr == table.hash_key_attr:
        assert hash_value is not None
        current = _partition_items(table, hash_value)
    else:
        current = table.all_items()
    by_key = {_item_key(i): i for i in current}
    overlaid: set[tuple[Any, Any]] = set()
    for _, key, old in pend:
        if key in overlaid:
            continue
        if ix.hash_attr == table.hash_key_attr and key[0] != hash_value:
            continue
        overlaid.add(key)
        if old is None:
            by_key.pop(key, None)
        else:
            by_key[key] = old
    items = [by_key[k] for k in sorted(by_key, key=_sort_key)]
    if ix.hash_attr is not None and ix.hash_attr != table.hash_key_attr:
        items = [i for i in items if _has_value(i, ix.hash_attr, hash_value)]
    return items


def _has_value(item: Item, attr: str, value: DynamoType | None) -> bool:
    found = item.attrs.get(attr)
    return found is not None and value is not None and bool(found == value)


def _sort_key(key: tuple[Any, Any]) -> tuple[Any, ...]:
    h, r = key
    return (h.type, h.cast_value, "" if r is None else r.type, "" if r is None else r.cast_value)


def partition(table: Any, ix: VectorIndex, hash_value: DynamoType | None) -> _Partition:
    """The (cached) partition of ``ix`` for this HASH value (None: the whole index)."""
    with LOCK:
        pend = _pending(table)
        t = now()
        if pend and any(p[0] > t for p in pend):
            return _Partition(ix, _visible_items(table, ix, hash_value))
        pend.clear()
        box = _cache(table)
        parts = box.indexes.setdefault(ix.name, {})
        cache_key: Any = hash_value if hash_value is not None else ("__all__",)
        part = parts.get(cache_key)
        if part is None:
            if ix.hash_attr is not None and ix.hash_attr == table.hash_key_attr:
                assert hash_value is not None
                part = _Partition(ix, _partition_items(table, hash_value), box.rows)
            elif ix.hash_attr is None:
                part = _Partition(ix, table.all_items(), box.rows)
            else:
                items = [i for i in table.all_items() if _has_value(i, ix.hash_attr, hash_value)]
                part = _Partition(ix, items)
            parts[cache_key] = part
        return part


def seed_partition(
    table: Any, ix: VectorIndex, hash_value: DynamoType | None, part: _Partition
) -> None:
    """Install a prebuilt partition in the cache (used by the benchmark)."""
    with LOCK:
        key: Any = hash_value if hash_value is not None else ("__all__",)
        _cache(table).indexes.setdefault(ix.name, {})[key] = part


def index_stats(table: Any, ix: VectorIndex) -> tuple[int, int]:
    count = 0
    size = 0
    for item in table.all_items():
        if _vector_of(item, ix) is None:
            continue
        count += 1
        size += 4 * ix.dims
        for attr in ix.key_attrs(table):
            v = item.attrs.get(attr)
            if v is not None:
                size += len(attr) + len(str(v.value))
    return count, size


def iter_tables(backends: Any) -> Iterator[tuple[str, str, Any]]:
    for account, regions in list(backends.items()):
        for region, backend in list(regions.items()):
            for table in list(backend.tables.values()):
                yield account, region, table


def streamed_meta(backends: Any) -> Iterator[tuple[str, str, Any, dict[DynamoType, Item]]]:
    """(account, region, table, its meta partition by sort key) of every emulated table
    with a stream (call under `LOCK`)."""
    for account, region, table in iter_tables(backends):
        if table.stream_shard is not None:
            yield account, region, table, table.items.get(DynamoType({"S": META_PK}), {})
