"""What a memory backend deploys with: construct props, or CDK context for the app.

Every default deploys a working stack. The vector index settings are validated by the
library (`parse_index_shape`), the same rules `DynamoDBStore` applies.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from constructs import Node
from langgraph.store.dynamodb.index_config import (
    DEFAULT_INDEX_NAME,
    EMBED_ON,
    VectorIndexShape,
    parse_index_shape,
)

REMOVAL_POLICIES = ("retain", "destroy")
# Inference profiles name a foundation model behind a geographic prefix.
PROFILE_PREFIXES = ("us.", "us-gov.", "eu.", "apac.", "jp.", "au.", "ca.", "global.")


@dataclass(frozen=True, kw_only=True)
class MemorySettings:
    """Settings of a `MemoryBackend`.

    - `table_name`: the table's name (default: CloudFormation generates one);
    - `embedding_model_id`: the Bedrock model the consumer (and the app) embeds with, a
      foundation model id, an inference profile id (`us.`, `eu.`, `global.`, ...), or an ARN;
    - `dims`, `distance_function`, `index_name`, `filter_fields`: the vector index, as in
      `DynamoIndexConfig` (immutable once deployed);
    - `fields`: the value paths to embed; `embed_on`: "stream" (the consumer embeds) or
      "write"; `normalize`: whether the model's vectors are normalized;
    - `removal_policy`: "retain" (default) or "destroy"; `deletion_protection`: on by default;
    - `alarm_email`: subscribe this address to the alarms' topic; `tags`: added to everything;
    - `reserved_concurrency`: cap the consumer's concurrency (default: unreserved);
    - `tracing`: AWS X-Ray on the consumer (active tracing, Powertools' Tracer), off by default.
    """

    table_name: str | None = None
    embedding_model_id: str = "amazon.titan-embed-text-v2:0"
    dims: int = 1024
    distance_function: str = "COSINE"
    index_name: str = DEFAULT_INDEX_NAME
    fields: tuple[str, ...] = ("$",)
    filter_fields: tuple[str, ...] = ()
    embed_on: str = "stream"
    normalize: bool = False
    removal_policy: str = "retain"
    deletion_protection: bool = True
    alarm_email: str | None = None
    reserved_concurrency: int | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    tracing: bool = False

    def __post_init__(self) -> None:
        self.shape  # noqa: B018 - validates the index settings the library's way
        if self.embed_on not in EMBED_ON:
            raise ValueError(f"embed_on must be one of {list(EMBED_ON)}, got {self.embed_on!r}")
        if self.removal_policy not in REMOVAL_POLICIES:
            raise ValueError(
                f"removal_policy must be one of {list(REMOVAL_POLICIES)}, "
                f"got {self.removal_policy!r}"
            )
        if not self.embedding_model_id:
            raise ValueError("embedding_model_id must name a Bedrock embedding model")
        if not self.fields or not all(isinstance(f, str) and f for f in self.fields):
            raise ValueError(f"fields must be a non-empty list of JSON paths, got {self.fields!r}")
        if self.reserved_concurrency is not None and self.reserved_concurrency < 1:
            raise ValueError(
                f"reserved_concurrency must be a positive int, got {self.reserved_concurrency!r}"
            )

    @property
    def shape(self) -> VectorIndexShape:
        """The vector index's immutable settings, validated by the library."""
        return parse_index_shape(
            {
                "dims": self.dims,
                "distance_function": self.distance_function,
                "index_name": self.index_name,
                "filter_fields": list(self.filter_fields),
            }
        )

    @classmethod
    def from_context(cls, node: Node) -> MemorySettings:
        """Settings from CDK context (`cdk deploy -c dims=512`, or `context` in cdk.json),
        under camelCase names: tableName, embeddingModelId, dims, distanceFunction,
        indexName, fields, filterFields, embedOn, normalize, removalPolicy,
        deletionProtection, alarmEmail, reservedConcurrency, tags, tracing. Lists and tags may be
        JSON; lists may also be comma-separated."""
        values: dict[str, Any] = {}
        for setting in fields(cls):
            raw = node.try_get_context(_camel(setting.name))
            if raw is None or raw == "":
                continue
            values[setting.name] = _convert(setting.name, raw)
        return cls(**values)


_INTS = {"dims", "reserved_concurrency"}
_BOOLS = {"normalize", "deletion_protection", "tracing"}
_LISTS = {"fields", "filter_fields"}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _convert(name: str, raw: Any) -> Any:
    """Context given on the command line arrives as text; in cdk.json as JSON values."""
    try:
        if name in _INTS:
            return int(raw)
        if name in _BOOLS:
            if isinstance(raw, bool):
                return raw
            if str(raw).lower() in ("true", "false"):
                return str(raw).lower() == "true"
            raise ValueError("expected true or false")
        if name in _LISTS:
            if isinstance(raw, str):
                raw = json.loads(raw) if raw.startswith("[") else raw.split(",")
            return tuple(str(item).strip() for item in raw)
        if name == "tags":
            tags = json.loads(raw) if isinstance(raw, str) else raw
            if not isinstance(tags, dict):
                raise ValueError("expected a JSON object of tag names to values")
            return {str(k): str(v) for k, v in tags.items()}
    except ValueError as error:
        raise ValueError(f"CDK context {_camel(name)}={raw!r} is invalid: {error}") from error
    return raw
