"""Where a store lives and how it embeds, read from keywords, the environment or a file.

One place that the CLI and the Agent Server factory (`langgraph.json`) share. Each setting
comes from the first of: an explicit keyword, an environment variable, the config file
(`DYNAMODB_MEMORY_CONFIG`, JSON or TOML), the default.

| setting | environment | file key | default |
| --- | --- | --- | --- |
| table | `DYNAMODB_MEMORY_TABLE` | `table` | `agent-memory` |
| region | `DYNAMODB_MEMORY_REGION`, `AWS_REGION` | `region` | boto3's |
| endpoint URL | `DYNAMODB_MEMORY_ENDPOINT_URL` | `endpoint_url` | boto3's |
| profile | `DYNAMODB_MEMORY_PROFILE` | `profile` | boto3's |
| embedding model | `DYNAMODB_MEMORY_EMBED` | `index.embed` | none: key-value only |
| dimensions | `DYNAMODB_MEMORY_DIMS` | `index.dims` | the model's |
| embedded fields | `DYNAMODB_MEMORY_FIELDS` (comma-separated) | `index.fields` | `$` |
| embedding mode | `DYNAMODB_MEMORY_EMBED_ON` | `index.embed_on` | `write` |
| default TTL (minutes) | `DYNAMODB_MEMORY_DEFAULT_TTL` | `ttl.default_ttl` | none |

"boto3's" means boto3 decides as usual (`AWS_DEFAULT_REGION`, `AWS_ENDPOINT_URL`,
`AWS_PROFILE`, the shared config files). Embedding models are named `bedrock:<model id>`
(e.g. `bedrock:amazon.titan-embed-text-v2:0`), `local:minilm` (the `local-embeddings`
extra), `lexical` (the word-overlap stand-in, no extra), or any provider string
LangChain's `init_embeddings` accepts.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import boto3
from langgraph.store.dynamodb.table.errors import InvalidSettingError
from langgraph.store.dynamodb.table.table_spec import MAX_DIMENSIONS
from langgraph.store.dynamodb.table.ttl import MAX_TTL_MINUTES, MIN_TTL_MINUTES, check_ttl

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

# The embedders (`embedders.build`, which imports langchain_core) load when a setting
# names one: reading the settings, as every command of the command line does first, and
# a key-value store need not load them.

ENV_PREFIX = "DYNAMODB_MEMORY_"
CONFIG_ENV = ENV_PREFIX + "CONFIG"
DEFAULT_TABLE = "agent-memory"


class ConfigError(ValueError):
    """A setting is missing or malformed; the message names it and where it came from."""


# Where each setting can be given, for messages: CLI option, environment variable (after
# the prefix), config file key.
_SOURCES = {
    "table": ("--table", "TABLE", "table"),
    "region": ("--region", "REGION", "region"),
    "endpoint_url": ("--endpoint-url", "ENDPOINT_URL", "endpoint_url"),
    "profile": ("--profile", "PROFILE", "profile"),
    "embed": ("--embed", "EMBED", "index.embed"),
    "dims": ("--dims", "DIMS", "index.dims"),
    "fields": ("--fields", "FIELDS", "index.fields"),
    "embed_on": ("", "EMBED_ON", "index.embed_on"),
    "default_ttl": ("", "DEFAULT_TTL", "ttl.default_ttl"),
}
_TEXTS = ("region", "endpoint_url", "profile", "embed", "embed_on")


def _refused(name: str, wanted: str, value: Any) -> ConfigError:
    option, variable, key = _SOURCES[name]
    where = ", ".join(filter(None, [option, ENV_PREFIX + variable, f"{key} in the config file"]))
    return ConfigError(f"Setting {name} must be {wanted}, got {value!r:.60} ({where})")


@dataclass(frozen=True)
class StoreSettings:
    """Everything needed to build a `DynamoDBStore`."""

    table: str = DEFAULT_TABLE
    region: str | None = None
    endpoint_url: str | None = None
    profile: str | None = None
    embed: str | None = None
    dims: int | None = None
    fields: tuple[str, ...] = ()
    embed_on: str | None = None
    default_ttl: float | None = None
    index_extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Refuse a wrongly typed or out of range setting, naming it: every source (the
        CLI's options, the environment, the config file) comes through here."""
        if not isinstance(self.table, str) or not self.table:
            raise _refused("table", "a table name", self.table)
        for name in _TEXTS:
            if not isinstance(getattr(self, name), str | None):
                raise _refused(name, "a string", getattr(self, name))
        dims = self.dims
        if dims is not None and (
            isinstance(dims, bool) or not isinstance(dims, int) or not 1 <= dims <= MAX_DIMENSIONS
        ):
            raise _refused("dims", f"an integer from 1 to {MAX_DIMENSIONS}", dims)
        if not isinstance(self.fields, tuple) or not all(
            isinstance(path, str) and path for path in self.fields
        ):
            raise _refused("fields", "a list of JSON paths", self.fields)
        if self.default_ttl is not None:
            try:
                check_ttl(self.default_ttl)
            except ValueError:
                wanted = f"minutes, from {MIN_TTL_MINUTES:.2g} to {MAX_TTL_MINUTES}"
                raise _refused("default_ttl", wanted, self.default_ttl) from None

    def with_overrides(self, **values: Any) -> StoreSettings:
        """These settings with every non-None keyword applied."""
        return replace(self, **{k: v for k, v in values.items() if v is not None})

    def session(self) -> boto3.Session:
        """A boto3 session for this profile and region."""
        return boto3.Session(profile_name=self.profile, region_name=self.region)

    def index_config(self) -> dict[str, Any] | None:
        """The store's `index` argument, or None without an embedding model."""
        if not self.embed:
            return None
        from langgraph.store.dynamodb.embedders.build import default_dims

        dims = self.dims if self.dims is not None else default_dims(self.embed)
        if dims is None:
            raise ConfigError(
                f"Embedding model {self.embed!r} needs its dimension count: set "
                f"{ENV_PREFIX}DIMS (or index.dims in the config file, --dims on the CLI)."
            )
        config: dict[str, Any] = {
            **self.index_extra,
            "dims": dims,
            "embed": self.embeddings(),
        }
        if self.fields:
            config["fields"] = list(self.fields)
        if self.embed_on:
            config["embed_on"] = self.embed_on
        return config

    def embeddings(self) -> Embeddings:
        """The LangChain embeddings the `embed` name stands for (`embedders.build.embedder`)."""
        from langgraph.store.dynamodb.embedders.build import embedder

        assert self.embed
        try:
            return embedder(
                self.embed,
                self.dims,
                region_name=self.region or self.session().region_name,
                endpoint_url=self.endpoint_url,
                profile=self.profile,
            )
        except InvalidSettingError as error:
            raise ConfigError(f"Embedding model {self.embed!r}: {error}") from error

    def store_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for `DynamoDBStore(table, **kwargs)`."""
        kwargs: dict[str, Any] = {
            "region_name": self.region,
            "endpoint_url": self.endpoint_url,
            "boto3_session": self.session(),
        }
        index = self.index_config()
        if index:
            kwargs["index"] = index
        if self.default_ttl is not None:
            kwargs["ttl"] = {"default_ttl": self.default_ttl, "refresh_on_read": True}
        return kwargs


def load_settings(path: str | os.PathLike[str] | None = None) -> StoreSettings:
    """Settings from the config file (`path`, else `DYNAMODB_MEMORY_CONFIG`), overridden
    by the `DYNAMODB_MEMORY_*` environment variables."""
    path = path or os.environ.get(CONFIG_ENV)
    settings = _from_file(Path(path)) if path else StoreSettings()
    return settings.with_overrides(**_from_env(os.environ))


def _from_file(path: Path) -> StoreSettings:
    import tomllib  # only a TOML file needs it

    try:
        text = path.read_text()
    except OSError as error:
        raise ConfigError(f"Cannot read config file {path}: {error.strerror}") from error
    try:
        data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except RecursionError:
        raise ConfigError(f"Config file {path} is nested too deeply") from None
    except ValueError as error:
        raise ConfigError(f"Config file {path} is not valid {path.suffix[1:]}: {error}") from error
    if not isinstance(data, dict):
        raise ConfigError(f"Config file {path} must hold an object of settings")
    try:
        return _settings_of(data)
    except ConfigError as error:
        raise ConfigError(f"Config file {path}: {error}") from None


def _settings_of(data: dict[str, Any]) -> StoreSettings:
    """Settings from a config file's object (see the module docstring for its keys)."""
    known = {"table", "region", "endpoint_url", "profile", "index", "ttl"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"unknown key(s) {unknown}; known: {sorted(known)}")
    index, ttl = data.get("index") or {}, data.get("ttl") or {}
    for name, section in (("index", index), ("ttl", ttl)):
        if not isinstance(section, dict):
            raise ConfigError(f"{name} must be an object (a table in TOML), got {section!r:.60}")
    if set(ttl) - {"default_ttl"}:
        raise ConfigError(f"unknown ttl key(s) {sorted(set(ttl) - {'default_ttl'})}")
    index = dict(index)
    fields = index.pop("fields", ())
    if isinstance(fields, str):
        fields = [fields]
    return StoreSettings(
        table=data.get("table", DEFAULT_TABLE),
        region=data.get("region"),
        endpoint_url=data.get("endpoint_url"),
        profile=data.get("profile"),
        embed=index.pop("embed", None),
        dims=index.pop("dims", None),
        fields=tuple(fields) if isinstance(fields, list) else fields,
        embed_on=index.pop("embed_on", None),
        default_ttl=ttl.get("default_ttl"),
        index_extra=index,
    )


def _from_env(env: Mapping[str, str]) -> dict[str, Any]:
    def get(name: str) -> str | None:
        return env.get(ENV_PREFIX + name) or None

    dims = get("DIMS")
    ttl = get("DEFAULT_TTL")
    fields = get("FIELDS")
    try:
        return {
            "table": get("TABLE"),
            "region": get("REGION") or env.get("AWS_REGION") or None,
            "endpoint_url": get("ENDPOINT_URL"),
            "profile": get("PROFILE"),
            "embed": get("EMBED"),
            "dims": int(dims) if dims else None,
            "fields": tuple(f.strip() for f in fields.split(",") if f.strip()) if fields else None,
            "embed_on": get("EMBED_ON"),
            "default_ttl": float(ttl) if ttl else None,
        }
    except ValueError as error:
        raise ConfigError(
            f"{ENV_PREFIX}DIMS must be an integer and {ENV_PREFIX}DEFAULT_TTL a number "
            f"of minutes ({error})"
        ) from error
