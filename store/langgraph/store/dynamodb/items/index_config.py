"""Semantic index configuration: LangGraph's `IndexConfig` plus DynamoDB's settings."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from langchain_core.embeddings import Embeddings
from langgraph.store.base import IndexConfig, ensure_embeddings
from langgraph.store.dynamodb.items.model_pin import ModelIdentity, identify
from langgraph.store.dynamodb.table.errors import InvalidSettingError
from langgraph.store.dynamodb.table.table_spec import (
    DEFAULT_INDEX_NAME,
    MAX_DIMENSIONS,
    VectorIndexShape,
)

DistanceFunction = Literal["COSINE", "EUCLIDEAN", "DOT_PRODUCT"]
DISTANCE_FUNCTIONS: tuple[str, ...] = ("COSINE", "EUCLIDEAN", "DOT_PRODUCT")
EMBED_ON: tuple[str, ...] = ("write", "stream")
DEFAULT_MAX_FANOUT = 100
MAX_INLINE_FILTERS = 18
INDEX_NAME = re.compile(r"[a-zA-Z0-9_.-]{3,255}")


class DynamoIndexConfig(IndexConfig, total=False):
    """`IndexConfig` (`dims`, `embed`, `fields`) plus:

    - `distance_function`: "COSINE" (default), "EUCLIDEAN" or "DOT_PRODUCT";
    - `embed_on`: "write" (default; embed inside `put`) or "stream" (`put` marks the item
      pending and the stream consumer embeds it in the background);
    - `index_name`: the vector index name (default "memory-vectors");
    - `max_fanout`: most namespaces one semantic search under a prefix may cover (100);
    - `filter_fields`: top-level value fields (string values) copied into the vector index
      as INLINE_FILTER attributes, so equality filters on them run inside the index, before
      its top-100 cut (at most 18; immutable once the index exists).
    """

    distance_function: DistanceFunction
    embed_on: Literal["write", "stream"]
    index_name: str
    max_fanout: int
    filter_fields: list[str]


@dataclass(frozen=True, kw_only=True)
class IndexSettings(VectorIndexShape):
    """A validated index configuration."""

    embeddings: Embeddings
    fields: tuple[str, ...]
    embed_on: str
    max_fanout: int
    model: ModelIdentity


def parse_index_shape(config: Mapping[str, Any]) -> VectorIndexShape:
    """Validate the immutable vector index settings of an index configuration (`dims`,
    `distance_function`, `index_name`, `filter_fields`), raising `InvalidSettingError` (a
    `ValueError`) that says what to set."""
    dims = config.get("dims")
    if not isinstance(dims, int) or isinstance(dims, bool) or not 1 <= dims <= MAX_DIMENSIONS:
        raise _invalid(
            "dims",
            dims,
            "must be the embedding model's dimension count, an int from 1 to "
            f"{MAX_DIMENSIONS} (DynamoDB's limit)",
        )
    distance = config.get("distance_function", "COSINE")
    if distance not in DISTANCE_FUNCTIONS:
        raise _invalid("distance_function", distance, f"must be one of {list(DISTANCE_FUNCTIONS)}")
    index_name = config.get("index_name", DEFAULT_INDEX_NAME)
    if not isinstance(index_name, str) or not INDEX_NAME.fullmatch(index_name):
        raise _invalid(
            "index_name",
            index_name,
            "must be 3-255 characters of letters, digits, '_', '-' and '.'",
        )
    filter_fields: Any = config.get("filter_fields", [])
    if (
        isinstance(filter_fields, str)
        or not all(isinstance(f, str) and f and "." not in f for f in filter_fields)
        or len(filter_fields) > MAX_INLINE_FILTERS
    ):
        raise _invalid(
            "filter_fields",
            filter_fields,
            f"must be a list of at most {MAX_INLINE_FILTERS} top-level field names",
        )
    return VectorIndexShape(
        index_name=index_name,
        dims=dims,
        distance_function=distance,
        filter_fields=tuple(filter_fields),
    )


def _invalid(key: str, value: Any, must: str) -> InvalidSettingError:
    return InvalidSettingError(key, value, must, label=f"index[{key!r}]")


def parse_index_config(config: DynamoIndexConfig | IndexConfig | dict[str, Any]) -> IndexSettings:
    """Validate an index configuration, raising `ValueError` that says what to set."""
    if not isinstance(config, dict):
        raise ValueError(f"index must be a dict (an IndexConfig), got {type(config).__name__}")
    known = set(DynamoIndexConfig.__annotations__) | {"dims", "embed", "fields", "ann_index_config"}
    unknown = sorted(set(config) - known)
    if unknown:
        raise ValueError(f"Unknown index setting(s) {unknown}; known: {sorted(known)}")
    shape = parse_index_shape(config)
    if config.get("embed") is None:
        raise ValueError(
            "index['embed'] is required: a LangChain Embeddings (e.g. langchain_aws."
            "BedrockEmbeddings), a sync or async function, or a provider string"
        )
    fields = config.get("fields") or ["$"]
    if isinstance(fields, str) or not all(isinstance(f, str) and f for f in fields):
        raise ValueError(f"index['fields'] must be a list of JSON paths, got {fields!r}")
    embed_on = config.get("embed_on", "write")
    if embed_on not in EMBED_ON:
        raise ValueError(f"index['embed_on'] must be one of {list(EMBED_ON)}, got {embed_on!r}")
    max_fanout = config.get("max_fanout", DEFAULT_MAX_FANOUT)
    if not isinstance(max_fanout, int) or max_fanout < 1:
        raise ValueError(f"index['max_fanout'] must be a positive int, got {max_fanout!r}")
    embeddings = ensure_embeddings(config["embed"])
    return IndexSettings(
        **vars(shape),
        embeddings=embeddings,
        fields=tuple(fields),
        embed_on=embed_on,
        max_fanout=max_fanout,
        model=identify(embeddings, shape.dims),
    )
