"""Which table the command works on, from the common options over the configured settings.

The options are declared here without the library: the store, the saver and boto3 load
when a command builds its `Target` (`--help` and `--version` never do)."""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from langgraph.store.dynamodb.cli.errors import ENVIRONMENT, CliError
from langgraph.store.dynamodb.table.schema import PIN_FIELDS
from langgraph.store.dynamodb.table.table_spec import DEFAULT_INDEX_NAME

if TYPE_CHECKING:
    from botocore.config import Config
    from langgraph.checkpoint.dynamodb import DynamoDBSaver
    from langgraph.store.base import Item
    from langgraph.store.dynamodb.basestore.config import StoreSettings
    from langgraph.store.dynamodb.basestore.store import DynamoDBStore
    from langgraph.store.dynamodb.table.keys import Namespace

R = TypeVar("R")

# The command line reports an endpoint it cannot reach within about 2 s: a short connect
# timeout, and one retry of a failed connection (`dynamo.fail_fast_on_connection_errors`,
# also on AWS's endpoints), while throttling and server errors keep the library's adaptive
# retries.
CONNECT_TIMEOUT_SECONDS = 1

# The configurable key of the savers the command line builds for one tenant: any name
# does, as a thread's keys hold the tenant's value, never the key's name.
TENANT_KEY = "tenant"


def cli_boto_config() -> Config:
    """The botocore config of the command line's clients: the short connect timeout."""
    from botocore.config import Config

    return Config(connect_timeout=CONNECT_TIMEOUT_SECONDS)


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
            from langgraph.store.dynamodb.table.errors import TableNotFoundError

            options = {p.name: kwargs.pop(p.name) for p in shared}
            json_out = options.pop("json_out", False)
            target = Target.of(json_out=json_out, **options)
            try:
                return command(target=target, **kwargs)
            except TableNotFoundError as error:
                raise CliError(target.missing_table(), ENVIRONMENT) from error

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
        from langgraph.store.dynamodb.basestore.config import load_settings

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
        self._check_region()
        key_value = _cli_store(self.table, self.settings.with_overrides(embed=""))
        if not index:
            return key_value
        settings = self.embedding_settings(key_value)
        return _cli_store(self.table, settings) if settings.embed else key_value

    def saver(self, tenant: str | None = None, *, bound: bool = True) -> DynamoDBSaver:
        """A checkpointer on the target table, for the threads of `tenant` (those a saver
        with a `tenant_key` wrote for that tenant) or, for None, of a saver without one.
        Unbound (`bound=False`), it serves every tenant (extraction reads it so)."""
        from langgraph.checkpoint.dynamodb import DynamoDBSaver
        from langgraph.store.dynamodb.table.dynamo import fail_fast_on_connection_errors

        self._check_region()
        saver = DynamoDBSaver(
            self.table,
            boto_config=cli_boto_config(),
            tenant_key=None if tenant is None else TENANT_KEY,
            region_name=self.settings.region,
            endpoint_url=self.settings.endpoint_url,
            boto3_session=self.settings.session(),
        )
        fail_fast_on_connection_errors(saver.client)
        return saver if tenant is None or not bound else saver.for_tenant(tenant)

    def _check_region(self) -> None:
        if not (self.settings.region or self.settings.session().region_name):
            raise CliError(
                "No AWS region: pass --region us-east-1 or set AWS_DEFAULT_REGION.", ENVIRONMENT
            )

    def missing_table(self) -> str:
        """What to say when the target table does not exist: where it was looked for and
        the command that creates it."""
        meta = self.client().meta
        return (
            f"Table {self.table} does not exist in {meta.region_name} at {meta.endpoint_url}: "
            f"create it with `dynamodb-memory setup --table {self.table}` (add --embed MODEL "
            "for semantic search), or check --table, --region and --endpoint-url."
        )

    def embedding_settings(self, store: DynamoDBStore) -> StoreSettings:
        """The settings with the model to embed with: the configured one, else the one the
        table's vector index pinned (`embed` stays empty when neither exists)."""
        return self.settings if self.settings.embed else pinned_settings(store, self.settings)

    def client(self) -> Any:
        """A DynamoDB client on the target, configured as a key-value store's is, without
        the store (which loads LangGraph's `BaseStore` and langchain_core, about 0.3 s)."""
        from botocore.config import Config
        from langgraph.store.dynamodb.table.dynamo import (
            MAX_WORKERS,
            fail_fast_on_connection_errors,
            make_client,
        )

        self._check_region()
        client = make_client(
            region_name=self.settings.region,
            endpoint_url=self.settings.endpoint_url,
            boto3_session=self.settings.session(),
            # One connection per thread a listing reads with (`dynamo.parallel_map`).
            boto_config=cli_boto_config().merge(Config(max_pool_connections=MAX_WORKERS)),
        )
        fail_fast_on_connection_errors(client)
        return client

    def namespaces(
        self, prefix: Namespace, *, max_depth: int | None, limit: int, offset: int
    ) -> list[Namespace]:
        """`store.list_namespaces(prefix=...)`, read from the namespace registry as the
        store reads it (consistently, expired items hidden), on `client()` alone."""
        from langgraph.store.dynamodb.items.namespaces import Prefix
        from langgraph.store.dynamodb.items.registry import Registry
        from langgraph.store.dynamodb.table import clock
        from langgraph.store.dynamodb.table.errors import access_must_be_granted, table_must_exist
        from langgraph.store.dynamodb.table.keys import check_prefix

        if "" in prefix:
            check_prefix(prefix)  # LangGraph refuses an empty label, in its own words
        client = self.client()
        registry = Registry(client, self.table, consistent=True)
        with table_must_exist(client, self.table), access_must_be_granted(self.table):
            return registry.list_namespaces(
                [Prefix(prefix)] if prefix else [],
                max_depth,
                limit,
                offset,
                omit_expired_at=clock.now(),
            )


def _cli_store(table: str, settings: StoreSettings) -> DynamoDBStore:
    """A store for one command: the library's retries, but a dead endpoint fails fast."""
    from langgraph.store.dynamodb.basestore.store import DynamoDBStore
    from langgraph.store.dynamodb.table.dynamo import fail_fast_on_connection_errors

    store = DynamoDBStore(table, boto_config=cli_boto_config(), **settings.store_kwargs())
    fail_fast_on_connection_errors(store.client)
    return store


def pinned_settings(store: DynamoDBStore, settings: StoreSettings) -> StoreSettings:
    """`settings` with the embedding model (and, unless given, the fields) the table's
    index pinned at setup, if any."""
    from langgraph.store.dynamodb.embedders.lexical import LexicalEmbeddings
    from langgraph.store.dynamodb.embedders.local_embeddings import MiniLMEmbeddings
    from langgraph.store.dynamodb.items.model_pin import BEDROCK, identity_of, read_pin
    from langgraph.store.dynamodb.table.errors import table_must_exist

    with table_must_exist(store.client, store.table_name):
        pin = read_pin(store.client, store.table_name, DEFAULT_INDEX_NAME)
    if pin is None:
        return settings
    model = identity_of(pin)
    names = {
        BEDROCK: f"bedrock:{model.model}",
        LexicalEmbeddings.PINNED_AS: "lexical",
        MiniLMEmbeddings.PINNED_AS: "local:minilm",
    }
    if model.provider not in names:
        raise CliError(
            f"Table {store.table_name} pins embedding model {model}, which the command line "
            "cannot load: pass --embed with an equivalent model name."
        )
    fields = settings.fields or tuple(pin.get(PIN_FIELDS) or ())
    return settings.with_overrides(embed=names[model.provider], dims=model.dims, fields=fields)


def parse_namespace(text: str) -> Namespace:
    """`memories.acme.u1` -> ("memories", "acme", "u1"); "" -> () (the whole store)."""
    return tuple(text.split(".")) if text else ()


def load_json(text: str, what: str) -> Any:
    """`text` as JSON, or a one-line `CliError` naming `what` and the problem."""
    try:
        return json.loads(text)
    except RecursionError:
        raise CliError(f"Not valid JSON in {what}: nested too deeply.") from None
    except ValueError as error:
        raise CliError(f"Not valid JSON in {what}: {error}") from None


def parse_object(text: str, what: str) -> dict[str, Any]:
    """`text` as a JSON object, or a one-line `CliError` naming `what` and the problem."""
    data = load_json(text, what)
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
