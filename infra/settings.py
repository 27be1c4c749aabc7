"""What a memory backend deploys with: construct props, or CDK context for the app.

Every default deploys a working stack. A setting that cannot work fails with one line
naming it, its value and the fix (`SettingError`); the vector index settings and the
embedding model follow the library's rules (`parse_index_shape`, `check_embedding_model`),
the same ones `DynamoDBStore` and the stream consumer apply.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from constructs import Node
from langgraph.store.dynamodb.embedders.bedrock_models import check_embedding_model
from langgraph.store.dynamodb.extraction.strategies.chat_models import DEFAULT_CHAT_MODEL, is_known
from langgraph.store.dynamodb.handlers.extraction_queue import MAX_DELAY_SECONDS
from langgraph.store.dynamodb.items.index_config import EMBED_ON, parse_index_shape
from langgraph.store.dynamodb.table.errors import InvalidSettingError
from langgraph.store.dynamodb.table.table_spec import DEFAULT_INDEX_NAME, VectorIndexShape

REMOVAL_POLICIES = ("retain", "destroy")


class SettingError(ValueError):
    """A setting that cannot work, on one line: `<source> <name>=<value> is invalid: <name>
    must ...` (the fix)."""

    def __init__(self, name: str, value: Any, must: str, *, source: str = "MemorySettings") -> None:
        super().__init__(f"{source} {name}={value!r} is invalid: {name} {must}.")
        self.name = name
        self.value = value
        self.must = must


@dataclass(frozen=True, kw_only=True)
class MemorySettings:
    """Settings of a `MemoryBackend`.

    - `table_name`: the table's name (default: CloudFormation generates one);
    - `embedding_model_id`: the Bedrock model the consumer (and the app) embeds with, one
      the consumer can call (`bedrock_models`): an Amazon Titan Embed or Cohere Embed model
      id, an inference profile id (`us.`, `eu.`, `global.`, ...), or a foundation-model ARN;
    - `dims`, `distance_function`, `index_name`, `filter_fields`: the vector index, as in
      `DynamoIndexConfig` (immutable once deployed);
    - `fields`: the value paths to embed; `embed_on`: "stream" (the consumer embeds) or
      "write"; `normalize`: whether the model's vectors are normalized;
    - `removal_policy`: "retain" (default) or "destroy"; `deletion_protection`: on by default;
    - `alarm_email`: subscribe this address to the alarms' topic; `tags`: added to everything;
    - `reserved_concurrency`: cap the consumer's concurrency (default: unreserved);
    - `tracing`: AWS X-Ray on the consumer and the extractor (active tracing, Powertools'
      Tracer), off by default;
    - `chat_model_ids`: the Bedrock chat models extraction may call (the table's extraction
      config picks among them; its default model first); `thread_tenant_key`: the
      `configurable` key `DynamoDBSaver` keys threads by (its `tenant_key`);
      `extraction_delay_seconds`: how long a new checkpoint waits before its thread's run
      (0 to 900; the idle triggers of the config wait longer by themselves).
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
    chat_model_ids: tuple[str, ...] = (DEFAULT_CHAT_MODEL,)
    thread_tenant_key: str = "tenant"
    extraction_delay_seconds: int = 0

    def __post_init__(self) -> None:
        try:
            check_embedding_model(self.embedding_model_id, self.shape.dims)
        except InvalidSettingError as error:
            name = "embedding_model_id" if error.key == "model_id" else error.key
            raise SettingError(name, error.value, error.must) from None
        if self.embed_on not in EMBED_ON:
            raise SettingError("embed_on", self.embed_on, f"must be one of {list(EMBED_ON)}")
        if self.removal_policy not in REMOVAL_POLICIES:
            raise SettingError(
                "removal_policy", self.removal_policy, f"must be one of {list(REMOVAL_POLICIES)}"
            )
        if not self.fields or not all(isinstance(f, str) and f for f in self.fields):
            raise SettingError("fields", self.fields, "must be a non-empty list of JSON paths")
        unknown = [model for model in self.chat_model_ids if not is_known(model)]
        if not self.chat_model_ids or unknown:
            raise SettingError(
                "chat_model_ids",
                self.chat_model_ids,
                "must name Bedrock Converse models with tool use "
                "(langgraph.store.dynamodb.extraction.strategies.chat_models.CHAT_MODELS)",
            )
        if not 0 <= self.extraction_delay_seconds <= MAX_DELAY_SECONDS:
            raise SettingError(
                "extraction_delay_seconds",
                self.extraction_delay_seconds,
                f"must be 0 to {MAX_DELAY_SECONDS} (SQS's DelaySeconds)",
            )
        if self.reserved_concurrency is not None and self.reserved_concurrency < 1:
            raise SettingError(
                "reserved_concurrency", self.reserved_concurrency, "must be a positive int"
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
        deletionProtection, alarmEmail, reservedConcurrency, tags, tracing, chatModelIds,
        threadTenantKey, extractionDelaySeconds. Lists and tags may be
        JSON; lists may also be comma-separated. A value that cannot work raises
        `SettingError` naming the context value and the fix."""
        _refuse_misspelt_keys(node.get_all_context())
        try:
            values: dict[str, Any] = {}
            for setting in fields(cls):
                raw = node.try_get_context(_camel(setting.name))
                if raw is None or raw == "":
                    continue
                values[setting.name] = _convert(setting.name, raw)
            return cls(**values)
        except SettingError as error:
            raise SettingError(
                _camel(error.name), error.value, error.must, source="CDK context"
            ) from None


def _refuse_misspelt_keys(context: Mapping[str, Any]) -> None:
    """A context key close to a setting's name but not one (`dimz`) is a typo that would
    deploy the default silently: refuse it, naming the setting. Other keys (CDK's own,
    other constructs') are left alone."""
    names = [_camel(setting.name) for setting in fields(MemorySettings)] + ["stackName"]
    for key in context:
        close = difflib.get_close_matches(key, names, n=1, cutoff=0.75)
        if key not in names and close:
            raise SettingError(
                key,
                context[key],
                f"is not a setting (did you mean {close[0]}?)",
                source="CDK context",
            )


_INTS = {"dims", "reserved_concurrency", "extraction_delay_seconds"}
_BOOLS = {"normalize", "deletion_protection", "tracing"}
_LISTS = {"fields", "filter_fields", "chat_model_ids"}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _convert(name: str, raw: Any) -> Any:
    """Context given on the command line arrives as text; in cdk.json as JSON values."""
    if name in _INTS:
        try:
            return int(raw)
        except (TypeError, ValueError):
            raise SettingError(name, raw, "must be an integer") from None
    if name in _BOOLS:
        if isinstance(raw, bool):
            return raw
        if str(raw).lower() in ("true", "false"):
            return str(raw).lower() == "true"
        raise SettingError(name, raw, "must be true or false")
    if name in _LISTS:
        try:
            items = json.loads(raw) if isinstance(raw, str) and raw.startswith("[") else raw
        except ValueError:
            items = None
        if isinstance(items, str):
            items = items.split(",")
        if not isinstance(items, list):
            raise SettingError(name, raw, 'must be a JSON list (["a", "b"]) or comma-separated')
        return tuple(str(item).strip() for item in items)
    if name == "tags":
        try:
            tags = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            tags = None
        if not isinstance(tags, dict):
            raise SettingError(
                name, raw, 'must be a JSON object of tag names to values, e.g. {"team": "agents"}'
            )
        return {str(k): str(v) for k, v in tags.items()}
    return raw
