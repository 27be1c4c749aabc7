"""What gets embedded (and how many texts one embedding call takes), and how vectors are
checked and stored (shared by store and Lambda)."""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from langgraph.store.base import Op, PutOp, SearchOp, get_text_at_path
from langgraph.store.dynamodb.embedders.batch import check_vectors
from langgraph.store.dynamodb.embedders.bedrock_models import foundation_model
from langgraph.store.dynamodb.items.index_config import IndexSettings
from langgraph.store.dynamodb.items.model_pin import BEDROCK, ModelIdentity
from langgraph.store.dynamodb.items.rows import check_row_size
from langgraph.store.dynamodb.table.keys import MAX_SORT_KEY_BYTES, Namespace, group_of, item_key_of
from langgraph.store.dynamodb.table.schema import (
    CONTENT_HASH,
    INDEX_PATHS,
    PENDING,
    PK,
    SK,
    VECTOR,
    VECTOR_COUNT,
    VECTOR_ROW_PREFIX,
    VECTOR_VERSION,
)

logger = logging.getLogger(__name__)

# An extra vector row no item uses is deleted once it is this old (or expired): by then the
# write that made it has finished or failed (a write in flight has not yet written the item
# row that will use its rows).
ORPHAN_SECONDS = 900.0
# Texts per embedding call (`batch_size_for`).
GENERIC_BATCH = 96
COHERE_V3_BATCH = 96


def texts_to_embed(value: Mapping[str, Any], paths: Sequence[str]) -> list[str]:
    """Every text the paths select, in path order (`get_text_at_path` semantics): each
    becomes its own vector."""
    texts: list[str] = []
    for path in paths:
        texts.extend(text for text in get_text_at_path(value, path) if text)
    return texts


def content_hash(texts: Sequence[str], model: ModelIdentity) -> str:
    """Identifies what was embedded, and by which model: vectors are valid for an item
    while this matches."""
    payload = json.dumps([model.key, list(texts)], ensure_ascii=False).encode()
    return hashlib.sha256(payload).hexdigest()[:32]


def batch_size_for(model: ModelIdentity) -> int:
    """Texts per embedding call: Bedrock's Cohere v3 embeds up to 96 per call, other
    Bedrock models (Titan) one; other embedders get lists and batch as they see fit."""
    if model.provider != BEDROCK:
        return GENERIC_BATCH
    return COHERE_V3_BATCH if foundation_model(model.model).startswith("cohere.embed-") else 1


def to_attribute(vector: Sequence[float]) -> list[Decimal]:
    """A vector as DynamoDB numbers, at the index's f32 precision (9 significant digits)."""
    return [Decimal(f"{float(x):.9g}") for x in vector]


def to_search_vector(vector: Sequence[float]) -> list[dict[str, str]]:
    """A query vector in `SearchVectors`' wire shape."""
    return [{"N": f"{float(x):.9g}"} for x in vector]


def score(distance: float, distance_function: str) -> float:
    """LangGraph's score (higher is closer) from the index's distance."""
    if distance_function == "COSINE":
        return 1.0 - distance
    if distance_function == "EUCLIDEAN":
        return 1.0 / (1.0 + distance)
    return distance


VERSION_LENGTH = 16


def new_vector_version() -> str:
    """A fresh identifier for one write of a multi-vector item (16 hex digits)."""
    return uuid.uuid4().hex[:VERSION_LENGTH]


def vector_sort_key(item_sort_key: str, version: str, position: int) -> str:
    """The row holding vector number `position` (>= 1) of one write (`version`) of an item;
    vector 0 is on the item row. Each write has its own rows, so concurrent writers never
    overwrite each other's vectors. Injective: version and position contain no `#`."""
    return f"{VECTOR_ROW_PREFIX}{item_key_of(item_sort_key)}#{version}#{position}"


def vector_row_keys(pk: str, sk: str, version: str, count: int) -> list[dict[str, str]]:
    """The keys of the extra vector rows of one version of an item."""
    return [{PK: pk, SK: vector_sort_key(sk, version, n)} for n in range(1, count)]


def check_vector_keys(item_sort_key: str, count: int) -> None:
    """Raise `ValueError` when the extra vector rows of an item with `count` vectors would
    need a sort key longer than DynamoDB allows (checked before any write)."""
    if count < 2:
        return
    longest = vector_sort_key(item_sort_key, "0" * VERSION_LENGTH, count - 1)
    size = len(longest.encode())
    if size > MAX_SORT_KEY_BYTES:
        spare = size - MAX_SORT_KEY_BYTES
        key_bytes = len(item_key_of(item_sort_key).encode())
        raise ValueError(
            f"Item key is {key_bytes} bytes: too long for an item with {count} vectors, whose "
            f"vector rows need sort keys of {size} bytes (DynamoDB's limit is "
            f"{MAX_SORT_KEY_BYTES}). Use a shorter key (at most {key_bytes - spare} bytes) or "
            "embed fewer texts for this item."
        )


# The widest number `to_attribute` stores a vector component as (9 significant digits,
# negative): what a stream-mode put reserves per dimension for the consumer's vector.
WIDEST_COMPONENT = Decimal("-0.123456789")


def check_vector_room(row: dict[str, Any], dims: int, count: int) -> None:
    """Raise `ValueError` when a stream-mode row would exceed DynamoDB's item size limit
    once the stream consumer adds its vector (and vector count and version) and clears
    the pending marker: refused at put, such an item would stay pending forever."""
    embedded = {k: v for k, v in row.items() if k != PENDING}
    embedded.update({VECTOR: [WIDEST_COMPONENT] * dims, VECTOR_COUNT: count})
    if count > 1:
        embedded[VECTOR_VERSION] = new_vector_version()
    try:
        check_row_size(embedded)
    except ValueError as error:
        raise ValueError(
            f"In stream mode the stream consumer adds its {dims}-number vector to the item, "
            f"so the value must leave room for it: {error}"
        ) from None


def warn_no_text(namespace: tuple[str, ...], key: str, paths: Sequence[str]) -> None:
    """Log that an item is stored but cannot be found by semantic search."""
    logger.warning(
        "Item %r in namespace %r has no text at %s: stored without a vector, so semantic "
        "search will not return it",
        key,
        namespace,
        list(paths),
    )


@dataclass
class EmbeddingPlan:
    """What one batch embeds and how: `jobs` pairs a put's op position with its texts (in
    `documents` order), embedded in this call (write mode); `pending` lists the puts
    written with a pending marker for the stream consumer (stream mode); `queries` are
    the distinct search queries."""

    jobs: list[tuple[int, list[str]]] = field(default_factory=list)
    documents: list[str] = field(default_factory=list)
    pending: list[int] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)

    @property
    def writes_vectors(self) -> bool:
        """Whether the batch writes vectors of the pinned model, now or through the stream."""
        return bool(self.jobs or self.pending)

    def groups(self, ops: Sequence[Op]) -> list[tuple[Namespace, list[str]]]:
        """The texts embedded in this call by tenant group: each put's by its namespace,
        each distinct query by the prefix of the first search asking it."""
        found = [(group_of(ops[i].namespace), texts) for i, texts in self.jobs]  # type: ignore[union-attr]
        for query in self.queries:
            prefix = next(
                op.namespace_prefix for op in ops if isinstance(op, SearchOp) and op.query == query
            )
            found.append((group_of(prefix), [query]))
        return found


def plan_embeddings(
    settings: IndexSettings, ops: list[Op], rows: dict[int, dict[str, Any]]
) -> EmbeddingPlan:
    """What a batch must embed: the texts of each key's final put, and the distinct
    search queries. Records per-item path overrides and filter fields on the rows. In
    stream mode nothing is embedded here: the rows get the content hash and the pending
    marker instead (and their paths, so the consumer needs no field configuration)."""
    plan = EmbeddingPlan()
    final = {(op.namespace, op.key): i for i, op in enumerate(ops) if isinstance(op, PutOp)}
    for i in final.values():
        op = ops[i]
        if i not in rows or not isinstance(op, PutOp) or op.value is None:
            continue
        for name in settings.filter_fields:
            if isinstance(op.value.get(name), str):
                rows[i][settings.filter_attribute(name)] = op.value[name]
        paths = settings.fields if op.index is None else tuple(op.index or ())
        stream = settings.embed_on == "stream"
        if op.index is not None or stream:
            rows[i][INDEX_PATHS] = list(paths)  # remembered for re-embedding
        texts = texts_to_embed(op.value, paths)
        check_vector_keys(rows[i][SK], len(texts))
        if texts and stream:
            rows[i][CONTENT_HASH] = rows[i][PENDING] = content_hash(texts, settings.model)
            plan.pending.append(i)
            check_vector_room(rows[i], settings.dims, len(texts))
        elif texts:
            if len(texts) > 1:
                rows[i][VECTOR_VERSION] = new_vector_version()
            plan.jobs.append((i, texts))
            plan.documents.extend(texts)
        elif paths:
            warn_no_text(op.namespace, op.key, paths)
        check_row_size(rows[i])  # with the stream attributes; vectors are checked on attach
    plan.queries = sorted({op.query for op in ops if isinstance(op, SearchOp) and op.query})
    return plan


def attach_vectors(
    settings: IndexSettings,
    plan: EmbeddingPlan,
    rows: dict[int, dict[str, Any]],
    vectors: list[list[float]],
) -> dict[int, list[Any]]:
    """Put each item's vector 0 (and content hash, count) on its row; return the other
    vectors by op position (one extra row each)."""
    if not plan.jobs:
        return {}
    check_vectors(vectors, settings.dims, len(plan.documents))
    extras: dict[int, list[Any]] = {}
    start = 0
    for i, texts in plan.jobs:
        mine = vectors[start : start + len(texts)]
        start += len(texts)
        rows[i][VECTOR] = to_attribute(mine[0])
        rows[i][CONTENT_HASH] = content_hash(texts, settings.model)
        rows[i][VECTOR_COUNT] = len(mine)
        check_row_size(rows[i])
        extras[i] = [to_attribute(vector) for vector in mine[1:]]
    return extras
