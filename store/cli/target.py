"""Which table the command works on, from the common options over the configured settings."""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

import typer
from langgraph.store.base import Item

from ..config import StoreSettings, load_settings
from ..errors import table_must_exist
from ..index_config import DEFAULT_INDEX_NAME
from ..keys import Namespace
from ..model_pin import BEDROCK, identity_of, read_pin
from ..store import DynamoDBStore
from .errors import ENVIRONMENT, CliError

R = TypeVar("R")

LEXICAL_PROVIDER = "langgraph.store.dynamodb.testing.embedder.LexicalEmbeddings"
MINILM_PROVIDER = "langgraph.store.dynamodb.local_embeddings.MiniLMEmbeddings"

TableOpt = Annotated[
    str | None, typer.Option("--table", "-t", help="Table name (env DYNAMODB_MEMORY_TABLE).")
]
RegionOpt = Annotated[str | None, typer.Option(help="AWS region (env AWS_DEFAULT_REGION).")]
EndpointOpt = Annotated[
    str | None,
    typer.Option(help="DynamoDB endpoint, e.g. the one serve prints (env AWS_ENDPOINT_URL)."),
]
ProfileOpt = Annotated[str | None, typer.Option(help="AWS profile (env AWS_PROFILE).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
EmbedOpt = Annotated[
    str | None,
    typer.Option(
        help="Embedding model: bedrock:<model id>, local:minilm, lexical "
        "(env DYNAMODB_MEMORY_EMBED). Needed for semantic search and the vector index."
    ),
]
DimsOpt = Annotated[int | None, typer.Option(help="Embedding dimensions (known models: auto).")]
FieldsOpt = Annotated[
    str | None, typer.Option(help="Comma-separated value paths to embed (default: $).")
]


def _option(name: str, annotation: Any, default: Any) -> inspect.Parameter:
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
    )


CONNECTION = [
    _option("table", TableOpt, None),
    _option("region", RegionOpt, None),
    _option("endpoint_url", EndpointOpt, None),
    _option("profile", ProfileOpt, None),
]
MODEL = [
    _option("embed", EmbedOpt, None),
    _option("dims", DimsOpt, None),
    _option("fields", FieldsOpt, None),
]
JSON = [_option("json_out", JsonOpt, False)]


def targeted(
    *, model: bool = False, json: bool = True
) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Give a command the options every command shares (`--table`, `--region`,
    `--endpoint-url`, `--profile`, `--json`; with `model`, `--embed`, `--dims`,
    `--fields`) and call it with the `Target` they name as its `target` argument."""
    shared = CONNECTION + (MODEL if model else []) + (JSON if json else [])

    def decorate(command: Callable[..., R]) -> Callable[..., R]:
        own = [
            p
            for p in inspect.signature(command, eval_str=True).parameters.values()
            if p.name != "target"
        ]

        @functools.wraps(command)
        def wrapper(**kwargs: Any) -> R:
            options = {p.name: kwargs.pop(p.name) for p in shared}
            json_out = options.pop("json_out", False)
            return command(target=Target.of(json_out=json_out, **options), **kwargs)

        wrapper.__signature__ = inspect.Signature([*own, *shared])  # type: ignore[attr-defined]
        return wrapper

    return decorate


@dataclass(frozen=True)
class Target:
    """The settings one command runs with, and whether it prints JSON."""

    settings: StoreSettings
    json: bool

    @classmethod
    def of(
        cls,
        table: str | None = None,
        region: str | None = None,
        endpoint_url: str | None = None,
        profile: str | None = None,
        json_out: bool = False,
        *,
        embed: str | None = None,
        dims: int | None = None,
        fields: str | None = None,
    ) -> Target:
        settings = load_settings().with_overrides(
            table=table,
            region=region,
            endpoint_url=endpoint_url,
            profile=profile,
            embed=embed,
            dims=dims,
            fields=tuple(f.strip() for f in fields.split(",") if f.strip()) if fields else None,
        )
        return cls(settings, json_out)

    @property
    def table(self) -> str:
        return self.settings.table

    def store(self, *, index: bool = True) -> DynamoDBStore:
        """A store on the target table. With `index`, it embeds with the configured model,
        else with the model the table's vector index has pinned (key-value only when
        neither exists)."""
        if not (self.settings.region or self.settings.session().region_name):
            raise CliError(
                "No AWS region: pass --region us-east-1 or set AWS_DEFAULT_REGION.", ENVIRONMENT
            )
        key_value = DynamoDBStore(
            self.table, **self.settings.with_overrides(embed="").store_kwargs()
        )
        if not index:
            return key_value
        settings = self.settings
        if not settings.embed:
            settings = pinned_settings(key_value, settings)
            if not settings.embed:
                return key_value
        return DynamoDBStore(self.table, **settings.store_kwargs())

    def client(self) -> Any:
        """The DynamoDB client of a key-value store on the target."""
        return self.store(index=False).client


def pinned_settings(store: DynamoDBStore, settings: StoreSettings) -> StoreSettings:
    """`settings` with the embedding model (and, unless given, the fields) the table's
    index pinned at setup, if any."""
    with table_must_exist(store.client, store.table_name):
        pin = read_pin(store.client, store.table_name, DEFAULT_INDEX_NAME)
    if pin is None:
        return settings
    model = identity_of(pin)
    names = {
        BEDROCK: f"bedrock:{model.model}",
        LEXICAL_PROVIDER: "lexical",
        MINILM_PROVIDER: "local:minilm",
    }
    if model.provider not in names:
        raise CliError(
            f"Table {store.table_name} pins embedding model {model}, which the command line "
            "cannot load: pass --embed with an equivalent model name."
        )
    fields = settings.fields or tuple(pin.get("fields") or ())
    return settings.with_overrides(embed=names[model.provider], dims=model.dims, fields=fields)


def parse_namespace(text: str) -> Namespace:
    """`memories.acme.u1` -> ("memories", "acme", "u1"); "" -> () (the whole store)."""
    return tuple(text.split(".")) if text else ()


def parse_object(text: str, what: str) -> dict[str, Any]:
    """`text` as a JSON object, or a one-line `CliError` naming `what` and the problem."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise CliError(f"Not valid JSON in {what}: nested too deeply.") from None
    except ValueError as error:
        raise CliError(f"Not valid JSON in {what}: {error}") from None
    if not isinstance(data, dict):
        raise CliError(f"{what} must be a JSON object, got {type(data).__name__}: {text:.80}")
    return data


def item_json(item: Item, score: float | None = None) -> dict[str, Any]:
    """An item as JSON output (and as an export line)."""
    data: dict[str, Any] = {
        "namespace": list(item.namespace),
        "key": item.key,
        "value": item.value,
        "created_at": item.created_at.isoformat(),
        "updated_at": item.updated_at.isoformat(),
    }
    if score is not None:
        data["score"] = score
    return data
