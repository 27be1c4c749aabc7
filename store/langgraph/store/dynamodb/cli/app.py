"""`dynamodb-memory`: run the local endpoint, set up a table, look at and fix memories.

Namespaces on the command line are their labels joined by `.` (LangGraph forbids `.` in a
label), e.g. `memories.acme-corp.user-8812`; an empty prefix is the whole store.

The command line starts without the library: each command imports what it runs (the
store, the saver, boto3, extraction's langchain_core) when it runs, and the command
groups in `LAZY` load only when one of their commands runs, so `--help` and `--version`
load Typer and Rich alone (bench/cli_startup.py measures it).
"""

from __future__ import annotations

import functools
import importlib
import json
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, NamedTuple

import typer
from langgraph.store.dynamodb.cli import serve as serving
from langgraph.store.dynamodb.cli.errors import ENVIRONMENT, NOT_FOUND, CliError, friendly, stderr
from langgraph.store.dynamodb.cli.files import replacing
from langgraph.store.dynamodb.cli.output import console, done, print_json
from langgraph.store.dynamodb.cli.target import (
    JsonOpt,
    ProfileOpt,
    RegionOpt,
    TableOpt,
    Target,
    item_json,
    parse_namespace,
    parse_object,
    targeted,
)
from langgraph.store.dynamodb.table import permissions
from langgraph.store.dynamodb.table.permissions import (
    PLACEHOLDERS,
    Component,
    Resources,
    placeholders,
)
from langgraph.store.dynamodb.table.table_spec import DEFAULT_INDEX_NAME
from rich.table import Table
from typer import _click as click  # Typer's own click, whose classes TyperGroup extends
from typer.core import TyperCommand, TyperGroup

if TYPE_CHECKING:
    from langgraph.store.dynamodb.basestore.store import DynamoDBStore

# How help renders a docstring: as markdown, whose paragraphs flow to the terminal's width.
MARKUP: Literal["markdown"] = "markdown"


class Lazy(NamedTuple):
    """A command (or group) that loads when it runs: where it is, and its summary for
    the listing of `dynamodb-memory --help` (the first line of its help)."""

    source: str  # "module:attribute", a Typer app or a command function
    summary: str


# The commands whose modules import the library as they load, listed in this order after
# the others.
LAZY = {
    "purge": Lazy(
        "langgraph.store.dynamodb.cli.purge:purge_command",
        "Erase everything at or below PREFIX and verify what is left.",
    ),
    "threads": Lazy(
        "langgraph.store.dynamodb.cli.threads:app",
        "The checkpointer's threads (short-term memory) on the table.",
    ),
    "extraction": Lazy(
        "langgraph.store.dynamodb.cli.extraction:app",
        "Memories formed in the background: config, status, replay.",
    ),
    "ui": Lazy(
        "langgraph.store.dynamodb.cli.ui.command:ui_command",
        "Serve the memory inspector in the browser.",
    ),
}


def loaded(name: str) -> click.Command:
    """The `LAZY` command `name`, imported and built as Typer builds a registered one."""
    module, _, attribute = LAZY[name].source.partition(":")
    found = getattr(importlib.import_module(module), attribute)
    holder = typer.Typer(rich_markup_mode=MARKUP)
    if isinstance(found, typer.Typer):
        holder.add_typer(found, name=name)
    else:
        holder.command(name)(found)
    return typer.main.get_group(holder).commands[name]


class LazyGroup(TyperGroup):
    """The top-level group: the `LAZY` commands load when one runs or is asked for by
    name; the group's own help lists them by their summaries without loading them."""

    listing = False

    def list_commands(self, ctx: click.Context) -> list[str]:
        own = super().list_commands(ctx)
        return [*own, *(name for name in LAZY if name not in own)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in LAZY and cmd_name not in self.commands:
            if self.listing:
                return TyperCommand(cmd_name, help=LAZY[cmd_name].summary)
            self.add_command(loaded(cmd_name))
        return super().get_command(ctx, cmd_name)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self.listing = False


app = typer.Typer(
    cls=LazyGroup,
    name="dynamodb-memory",
    help="Long-term memory for LangGraph agents on DynamoDB.\n\nRun the local endpoint, "
    "set up a table, look at and fix memories and threads. Namespaces are written with "
    "dots: memories.acme-corp.user-8812",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=MARKUP,
)
DISTRIBUTION = "langgraph-dynamodb-memory"


def _print_version(asked: bool) -> None:
    if asked:
        import importlib.metadata

        print(f"dynamodb-memory {importlib.metadata.version(DISTRIBUTION)}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Options before any command."""


EXAMPLE_MODEL = "bedrock:amazon.titan-embed-text-v2:0"
# The counts `usage` shows per tenant, in its columns' order.
USAGE_COUNTS = ("namespaces", "items", "vectors", "threads", "checkpoints", "approx_bytes")


def _value_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


# ------------------------------------------------------------------------------ serve


@app.command()
@friendly
def serve(
    port: Annotated[
        int, typer.Option(help="Port to listen on.", show_default=True)
    ] = serving.DEFAULT_PORT,
    host: Annotated[str, typer.Option(help="Address to bind.")] = serving.DEFAULT_HOST,
    state: Annotated[
        Path | None,
        typer.Option(
            help="Load tables from this file at start and save them at stop (one serve per file)."
        ),
    ] = None,
    table: TableOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Run the local emulation behind an HTTP endpoint until stopped.

    The emulation is DynamoDB with vector indexes, Bedrock embeddings and the stream; a
    table with an extraction config forms memories from its threads in the background. It
    runs until Ctrl-C, SIGTERM or SIGHUP. With --state, every write it acknowledged is
    saved then."""
    table_name = Target.of(table).table

    def ready(url: str, loaded: int) -> None:
        lines = serving.connection_lines(url, serving.REGION, table_name)
        if json_out:
            print_json({**lines, "loaded_items": loaded, "state": str(state or "")})
        else:
            console.print(f"[bold green]Local DynamoDB memory endpoint[/] at [bold]{url}[/]")
            if state:
                console.print(f"State file {state}: loaded {loaded} rows; saved on stop.")
            console.print("\nIn another shell:")
            console.print(f"  {lines['env']}", soft_wrap=True)
            console.print("  dynamodb-memory setup && dynamodb-memory status")
            console.print("\nFrom Python:")
            console.print(f"  {lines['python']}", soft_wrap=True)
            console.print("\nWith the AWS CLI:")
            console.print(f"  {lines['aws_cli']}", soft_wrap=True)
            console.print("\nCtrl-C to stop.")
        sys.stdout.flush()

    def stopped(saved: int) -> None:
        if json_out:
            print_json({"stopped": True, "saved_items": saved})
        else:
            console.print("Stopped." + (f" Saved {saved} rows to {state}." if state else ""))
        sys.stdout.flush()

    serving.run(host=host, port=port, state=state, on_ready=ready, on_stop=stopped)


# ------------------------------------------------------------------------------ setup / status


@app.command()
@friendly
@targeted(model=True)
def setup(
    target: Target,
) -> None:
    """Create the table and vector index if missing, and wait for them.

    The vector index is created when an embedding model is configured (--embed); setup
    shows progress until both are ready."""
    from langgraph.store.dynamodb.cli.status import table_status

    store = target.store(index=bool(target.settings.embed))
    started = time.monotonic()
    _run_setup(target, store)
    elapsed = time.monotonic() - started
    indexes = [i["name"] for i in table_status(store, exact=False)["vector_indexes"]]
    what = f" with vector index {', '.join(indexes)}" if indexes else " (key-value only)"
    done(
        target,
        {"table": target.table, "vector_indexes": indexes, "seconds": elapsed},
        f"Table {target.table}{what} is ready ({elapsed:.1f} s).",
    )


def _run_setup(target: Target, store: DynamoDBStore) -> None:
    """`store.setup()`, with a spinner showing progress unless the output is JSON."""
    if target.json:
        store.setup()
    else:
        _setup_with_progress(store.setup, store.client, target.table)


def _indexed_store(target: Target, *, writes: bool) -> DynamoDBStore:
    """The target's store with its embedding model (given or pinned), on a table that has
    the vector index that model fills: vectors on a table without it are found by nothing.
    A command that writes vectors adds a missing index first, as `setup --embed` does; a
    search is refused with the commands that add it."""
    from langgraph.store.dynamodb.basestore.vector_index import find_index
    from langgraph.store.dynamodb.table import creation

    store = target.store()
    index = store.index_settings
    if index is None and writes:
        return store  # key-value writes
    description = creation.describe(store.client, target.table)
    if description is None:
        return store  # a missing table is reported by the command's own first request
    if find_index(description, index.index_name if index else DEFAULT_INDEX_NAME):
        return store
    model = target.embedding_settings(store).embed if index else None
    if not writes or index is None:
        add = f"dynamodb-memory setup --table {target.table} --embed {model or EXAMPLE_MODEL}"
        raise CliError(
            f"Table {target.table} has no vector index, so nothing in it can be found by "
            f"meaning: add one with `{add}`{'' if model else ' (or another model)'}, then "
            f"`dynamodb-memory reindex --table {target.table}` embeds the memories already "
            "there."
        )
    stderr.print(
        f"Table {target.table} has no vector index: adding vector index {index.index_name} "
        f"for {model} first, as setup --embed does.",
        highlight=False,
    )
    _run_setup(target, store)
    return store


def _setup_with_progress(run: Any, client: Any, table_name: str) -> None:
    """Run `setup` on a thread while a spinner shows the table and index states."""
    from rich.live import Live
    from rich.spinner import Spinner

    errors: list[BaseException] = []

    def work() -> None:
        try:
            run()
        except BaseException as error:
            errors.append(error)

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    spinner = Spinner("dots", text=f"Setting up {table_name}…")
    with Live(spinner, console=console, transient=True, refresh_per_second=8):
        while worker.is_alive():
            spinner.update(text=_progress_text(client, table_name))
            worker.join(0.5)
    if errors:
        raise errors[0]


def _progress_text(client: Any, table_name: str) -> str:
    from langgraph.store.dynamodb.table import creation

    description = creation.describe(client, table_name)
    if description is None:
        return f"Creating table {table_name}…"
    parts = [f"table {description.get('TableStatus')}"]
    for index in description.get("VectorIndexes", []):
        state = index.get("IndexStatus")
        if index.get("Backfilling"):
            state = f"{state}, backfilling"
        parts.append(f"index {index.get('IndexName')} {state}")
    return f"{table_name}: " + "; ".join(parts)


@app.command()
@friendly
@targeted()
def status(
    target: Target,
    exact: Annotated[
        bool, typer.Option(help="Count memories with a full Scan (costly on big tables).")
    ] = False,
) -> None:
    """Show the table, its vector index, its size and namespaces."""
    from langgraph.store.dynamodb.cli.status import table_status

    info = table_status(target.store(index=False), exact=exact)
    if target.json:
        print_json(info)
        return
    grid = Table(title=f"Table {info['table']}", show_header=False, title_justify="left")
    grid.add_column(style="bold")
    grid.add_column()
    grid.add_row("status", str(info["status"]))
    grid.add_row("region / endpoint", f"{info['region']} / {info['endpoint']}")
    grid.add_row("rows (approximate)", str(info["rows"]))
    if "memories" in info:
        grid.add_row("memories", str(info["memories"]))
        grid.add_row("pending embeddings", str(info["pending_embeddings"]))
    grid.add_row("namespaces", str(info["namespaces"]))
    grid.add_row("stream", str(info["stream"] or "off"))
    grid.add_row("TTL", str(info["ttl"]))
    for index in info["vector_indexes"] or [None]:
        if index is None:
            grid.add_row("vector index", "none (dynamodb-memory setup --embed ... adds one)")
            continue
        backfill = ", backfilling" if index["backfilling"] else ""
        grid.add_row(
            f"vector index {index['name']}",
            f"{index['status']}{backfill}, {index['dims']} dims, {index['distance']}",
        )
        grid.add_row("pinned model", str(index["model"] or "none yet"))
    console.print(grid)


@app.command("reindex")
@friendly
@targeted(model=True)
def reindex_items(
    target: Target,
    prefix: Annotated[str, typer.Argument(help="Namespace prefix; empty: the whole store.")] = "",
    restart: Annotated[
        bool, typer.Option(help="Start over instead of resuming where the last run stopped.")
    ] = False,
    adopt_model: Annotated[
        bool, typer.Option(help="Move the index to --embed's model and re-embed everything.")
    ] = False,
    rate: Annotated[float | None, typer.Option(help="At most this many items per second.")] = None,
) -> None:
    """Embed every memory whose vector is missing or stale.

    Stale: written before the index, still pending, or by another model. Resumes where an
    interrupted run stopped."""
    from langgraph.store.dynamodb.jobs.reindex import ReindexProgress, reindex
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    store = _indexed_store(target, writes=True)
    if store.index_config is None:
        raise CliError(
            f"Table {target.table} has no pinned embedding model: pass --embed (the model "
            "to embed with) or run setup --embed first."
        )
    run = functools.partial(
        reindex,
        store,
        prefix=parse_namespace(prefix),
        max_items_per_second=rate,
        adopt_model=adopt_model,
        restart=restart,
    )
    if target.json:
        summary = run()
    else:
        columns = (
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            TimeElapsedColumn(),
        )
        with Progress(*columns, console=console, transient=True) as progress:
            task = progress.add_task("Reindexing…", total=None)

            def show(done: ReindexProgress) -> None:
                progress.update(
                    task,
                    description=f"{'.'.join(done.namespace) or '(root)'}: "
                    f"{done.scanned} scanned, {done.embedded} embedded, "
                    f"{done.skipped} current, {done.failed} failed",
                )

            summary = run(on_progress=show)
    failures = [
        {"namespace": list(ns), "key": key, "error": error} for ns, key, error in summary.failures
    ]
    report = {
        "scanned": summary.scanned,
        "embedded": summary.embedded,
        "skipped": summary.skipped,
        "failed": summary.failed,
        "resumed": summary.resumed,
        "seconds": round(summary.seconds, 3),
        "failures": failures,
    }
    if target.json:
        print_json(report)
    else:
        resumed = " (resumed where the last run stopped)" if summary.resumed else ""
        mark = "[red]✗[/]" if summary.failed else "[green]✓[/]"
        console.print(
            f"{mark} Reindexed {target.table}{resumed}: {summary.scanned} scanned, "
            f"{summary.embedded} embedded, {summary.skipped} already current, "
            f"{summary.failed} failed ({summary.seconds:.1f} s)."
        )
        for failure in failures:
            stderr.print(
                f"  failed {'.'.join(failure['namespace'])} {failure['key']}: {failure['error']}"
            )
        if failures:
            stderr.print(
                "Fix or shorten those memories (or their model's input), then run reindex "
                "again: it retries what has no current vector."
            )
    if summary.failed:
        raise typer.Exit(ENVIRONMENT)


# ------------------------------------------------------------------------------ memories


@app.command("ls")
@friendly
@targeted()
def list_namespaces(
    target: Target,
    prefix: Annotated[str, typer.Argument(help="Namespace prefix, e.g. memories.acme")] = "",
    depth: Annotated[int | None, typer.Option(help="Truncate namespaces to this depth.")] = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many namespaces.")] = 100,
    offset: Annotated[int, typer.Option(min=0, help="Skip this many namespaces first.")] = 0,
) -> None:
    """List namespaces under PREFIX, sorted, a page at a time.

    A page costs about one request per namespace shown, however many tenants the table
    holds."""
    namespaces = target.namespaces(
        parse_namespace(prefix), max_depth=depth, limit=limit, offset=offset
    )
    if target.json:
        print_json([list(ns) for ns in namespaces])
        return
    for namespace in namespaces:
        console.print(".".join(namespace))
    if len(namespaces) == limit:
        stderr.print(f"More may follow: --offset {offset + limit} shows the next page.")


@app.command()
@friendly
@targeted()
def usage(
    target: Target,
    prefix: Annotated[str, typer.Argument(help="Namespace prefix, e.g. memories.acme")] = "",
    threads_tenant: Annotated[
        list[str] | None,
        typer.Option(
            "--threads-tenant",
            help="Also count this tenant's threads (a DynamoDBSaver with tenant_key; repeatable).",
        ),
    ] = None,
) -> None:
    """Show what each tenant stores under PREFIX, its threads included.

    Per memory group (the first two labels of a namespace): namespaces, items, vectors,
    approximate bytes, read from the namespace registry with two Queries per namespace.
    Per thread tenant (`.threads.<tenant>`; without PREFIX the threads of savers without
    a tenant key, and those of each --threads-tenant): threads, checkpoints, rows and
    approximate bytes, read from the thread registry with one Query per thread. No Scan."""
    from langgraph.checkpoint.dynamodb.storage import thread_storage
    from langgraph.store.dynamodb.jobs.tenants import tenant_storage

    store = target.store(index=False)
    groups = tenant_storage(store.client, store.table_name, parse_namespace(prefix))
    tenants = ([] if prefix else [""]) + list(dict.fromkeys(threads_tenant or []))
    threads = [
        found
        for found in (thread_storage(store.client, store.table_name, t) for t in tenants)
        if found.threads or found.tenant
    ]
    rows = [
        _usage_row(
            g.tenant,
            namespaces=g.namespaces,
            items=g.items,
            vectors=g.vectors,
            approx_bytes=g.approx_bytes,
        )
        for g in groups
    ] + [
        _usage_row(
            t.label, threads=t.threads, checkpoints=t.checkpoints, approx_bytes=t.approx_bytes
        )
        for t in threads
    ]
    if target.json:
        print_json(rows)
        return
    grid = Table(title=f"Usage per tenant in {store.table_name}", title_justify="left")
    grid.add_column("tenant", no_wrap=True)
    for column in USAGE_COUNTS:
        grid.add_column(column.replace("approx_", "approx. "), justify="right")
    for row in rows:
        grid.add_row(str(row["tenant"]), *(f"{row[column]:,}" for column in USAGE_COUNTS))
    console.print(grid)


def _usage_row(tenant: str, **counts: int) -> dict[str, Any]:
    """One row of `usage`: the tenant and every count (0 where it has none)."""
    return {"tenant": tenant, **{column: counts.get(column, 0) for column in USAGE_COUNTS}}


@app.command()
@friendly
@targeted()
def get(
    target: Target,
    namespace: Annotated[str, typer.Argument(help="e.g. memories.acme-corp.user-8812")],
    key: str,
) -> None:
    """Print one memory; exit 1 when there is none."""
    item = target.store(index=False).get(parse_namespace(namespace), key, refresh_ttl=False)
    if item is None:
        raise CliError(f"No item {key!r} in namespace {namespace!r}.", NOT_FOUND)
    if target.json:
        print_json(item_json(item))
    else:
        console.print_json(_value_text(item.value))


@app.command()
@friendly
@targeted(model=True)
def put(
    target: Target,
    namespace: Annotated[str, typer.Argument(help="e.g. memories.acme-corp.user-8812")],
    key: str,
    value: Annotated[str, typer.Argument(help='JSON object, e.g. \'{"text": "..."}\'')],
    ttl: Annotated[float | None, typer.Option(help="Expire after this many minutes.")] = None,
    no_index: Annotated[bool, typer.Option("--no-index", help="Store without embedding.")] = False,
) -> None:
    """Write a memory (embedded when an embedding model is configured)."""
    data = parse_object(value, "VALUE")
    store = target.store() if no_index else _indexed_store(target, writes=True)
    ns = parse_namespace(namespace)
    store.put(ns, key, data, index=False if no_index else None, ttl=ttl)
    done(target, {"namespace": list(ns), "key": key, "written": True}, f"put {namespace} {key}")


@app.command()
@friendly
@targeted()
def rm(
    target: Target,
    namespace: Annotated[str, typer.Argument(help="e.g. memories.acme-corp.user-8812")],
    key: str,
) -> None:
    """Delete a memory; exit 1 when there was none."""
    store = target.store(index=False)
    ns = parse_namespace(namespace)
    if store.get(ns, key, refresh_ttl=False) is None:
        raise CliError(f"No item {key!r} in namespace {namespace!r}.", NOT_FOUND)
    store.delete(ns, key)
    done(target, {"namespace": list(ns), "key": key, "deleted": True}, f"deleted {namespace} {key}")


@app.command()
@friendly
@targeted(model=True)
def search(
    target: Target,
    prefix: Annotated[str, typer.Argument(help="Namespace prefix; empty: the whole store.")] = "",
    query: Annotated[
        str | None,
        typer.Option(
            "--query", "-q", help="Semantic query (embedded with the pinned model or --embed)."
        ),
    ] = None,
    filter_json: Annotated[
        str | None, typer.Option("--filter", help='JSON filter, e.g. \'{"seats": {"$gte": 10}}\'')
    ] = None,
    limit: Annotated[int, typer.Option(help="At most this many results.")] = 10,
    offset: Annotated[int, typer.Option(help="Skip this many results.")] = 0,
) -> None:
    """Search memories under PREFIX, by filter and/or semantic query."""
    filters = parse_object(filter_json, "--filter") if filter_json else None
    store = _indexed_store(target, writes=False) if query else target.store(index=False)
    if query and store.index_config is None:
        raise CliError(
            f"Table {target.table} has no pinned embedding model: pass --embed (e.g. "
            f"{EXAMPLE_MODEL}) or set DYNAMODB_MEMORY_EMBED for a semantic --query."
        )
    hits = store.search(
        parse_namespace(prefix),
        query=query,
        filter=filters,
        limit=limit,
        offset=offset,
        refresh_ttl=False,
    )
    if target.json:
        print_json([item_json(hit, hit.score) for hit in hits])
        return
    grid = Table(title=f"{len(hits)} result(s)", title_justify="left")
    if query:
        grid.add_column("score", justify="right")
    grid.add_column("namespace")
    grid.add_column("key")
    grid.add_column("value", overflow="fold")
    for hit in hits:
        cells = [".".join(hit.namespace), hit.key, _value_text(hit.value)]
        grid.add_row(*([f"{hit.score:.3f}"] if query else []), *cells)
    console.print(grid)


# ------------------------------------------------------------------------------ export / import


@app.command()
@friendly
def policy(
    component: Annotated[
        Component, typer.Argument(help="Whose permissions: the app's store, the consumer, ...")
    ] = Component.STORE,
    table_arn: Annotated[str, typer.Option(help="The table's ARN")] = PLACEHOLDERS.table_arn,
    index_name: Annotated[str, typer.Option(help="The vector index")] = PLACEHOLDERS.vector_index,
    stream_arn: Annotated[
        str, typer.Option(help="The table's stream ARN")
    ] = PLACEHOLDERS.stream_arn or "",
    model_arn: Annotated[
        list[str] | None, typer.Option(help="The embedding model's ARN (repeatable)")
    ] = None,
    chat_model_arn: Annotated[
        list[str] | None, typer.Option(help="A chat model extraction calls (repeatable)")
    ] = None,
    queue_arn: Annotated[
        str, typer.Option(help="The extraction queue's ARN")
    ] = PLACEHOLDERS.queue_arn or "",
    dead_letter_arn: Annotated[
        str, typer.Option(help="The extraction dead-letter queue's ARN")
    ] = PLACEHOLDERS.dead_letter_arn or "",
    region: RegionOpt = None,
    profile: ProfileOpt = None,
) -> None:
    """Print the IAM policy a component needs.

    It is exactly what the library declares and the CDK stack grants (placeholder ARNs
    unless given; the Bedrock models' in the configured region)."""
    settings = Target.of(region=region, profile=profile).settings
    defaults = placeholders(settings.region or settings.session().region_name or "REGION")
    resources = Resources(
        table_arn=table_arn,
        vector_index=index_name,
        stream_arn=stream_arn,
        model_arns=tuple(model_arn or defaults.model_arns),
        chat_model_arns=tuple(chat_model_arn or defaults.chat_model_arns),
        queue_arn=queue_arn,
        dead_letter_arn=dead_letter_arn,
    )
    sys.stdout.write(json.dumps(permissions.policy(component, resources), indent=2) + "\n")


@app.command("export")
@friendly
@targeted(json=False)
def export_items(
    target: Target,
    prefix: Annotated[str, typer.Argument(help="Namespace prefix; empty: the whole store.")] = "",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="File to write (default: stdout).")
    ] = None,
) -> None:
    """Write every memory under PREFIX as JSON Lines.

    Each line holds a namespace, key, value, timestamps, TTL and index choice; each
    namespace is read in key order, so writes meanwhile cannot make a memory appear twice
    or not at all. Vectors are not exported (import embeds again)."""
    from langgraph.store.dynamodb.cli import transfer

    store = target.store(index=False)
    ns = parse_namespace(prefix)
    if output is None:
        count = transfer.export_lines(store, ns, sys.stdout)
    else:
        with replacing(output) as out:  # a failed export leaves the file as it was
            count = transfer.export_lines(store, ns, out)
        stderr.print(
            f"[green]✓[/] exported {count} memories to {output} (without vectors: import "
            "embeds them with the target table's model)"
        )


@app.command("import")
@friendly
@targeted(model=True)
def import_items(
    target: Target,
    source: Annotated[Path, typer.Argument(help="JSON Lines file ('-' for stdin).")],
) -> None:
    """Write memories from JSON Lines as export writes them.

    Timestamps, TTL and index choice are restored. Every line is checked before anything
    is written. With an embedding model, a table without a vector index gets one first."""
    from langgraph.store.dynamodb.cli import transfer

    store = _indexed_store(target, writes=True)
    if str(source) == "-":
        imported = transfer.import_lines(store, sys.stdin)
    else:
        with source.open() as lines:
            imported = transfer.import_lines(store, lines)
    expired = f" ({imported.expired} already expired, not written)" if imported.expired else ""
    done(
        target,
        {"imported": imported.written, "expired": imported.expired},
        f"imported {imported.written} memories into {target.table}{expired}",
    )
