"""`dynamodb-memory purge`: erase a tenant (or, deliberately, every tenant) with evidence."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer
from langgraph.checkpoint.dynamodb.erasure import every_thread_sources, tenant_sources
from langgraph.store.dynamodb.cli.errors import ENVIRONMENT, CliError, confirm_or_decline, friendly
from langgraph.store.dynamodb.cli.target import Target, parse_namespace, targeted
from langgraph.store.dynamodb.jobs.purge import (
    Census,
    PurgeConflictError,
    PurgeResult,
    census,
    check_scope,
)
from langgraph.store.dynamodb.table.row_sources import RowSource
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

console = Console(highlight=False)


@friendly
@targeted()
def purge_command(
    target: Target,
    prefix: Annotated[
        str,
        typer.Argument(
            help="The tenant's prefix, at least two labels: memories.acme (none with "
            "--all-tenants, or to erase only the threads named by the options below)."
        ),
    ] = "",
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Count what would go; delete nothing.")
    ] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    all_tenants: Annotated[
        bool,
        typer.Option(
            "--all-tenants",
            help="Wipe every tenant of the table (no PREFIX): memories and every thread, "
            "found by a Scan of the whole table.",
        ),
    ] = False,
    force: Annotated[
        bool,
        typer.Option(help="Run even while a purge of an overlapping prefix is unfinished."),
    ] = False,
    threads_tenant: Annotated[
        str | None,
        typer.Option(
            "--threads-tenant",
            help="Also erase this tenant's threads (a DynamoDBSaver with tenant_key): its "
            "checkpoints, writes, thread list and run index, and what extraction kept for "
            "it: memories formed from its threads (wherever their templates put them), "
            "ledger, cursors, token counts and settings.",
        ),
    ] = None,
    untenanted_threads: Annotated[
        bool,
        typer.Option(
            "--untenanted-threads",
            help="Also erase every thread of the savers without a tenant_key, and what "
            "extraction kept for them.",
        ),
    ] = False,
    verify_scan: Annotated[
        bool,
        typer.Option(
            "--verify-scan",
            help="Also Scan the whole table for rows of the tenant that no registry lists "
            "(a thread whose registry row expired or was never written), delete them and "
            "read their partitions again. Costs one read unit per 4 KB of the whole table.",
        ),
    ] = False,
) -> None:
    """Erase everything at or below PREFIX and verify what is left.

    Every memory, vector, index entry and registry row at or below PREFIX goes (and the
    threads the options name, with what extraction kept for them); then every partition
    is read again and what is left reported (0 when complete). Having deleted listings a
    running app may trust, it waits 5 minutes and counts again, so what the app writes
    after it is listed. Never scans unless --verify-scan or --all-tenants; an interrupted
    purge resumes when run again. Exit 3 when rows remain (written during the purge: run
    it again), 4 when not confirmed."""
    threads = threads_tenant is not None or untenanted_threads
    if all_tenants and threads:
        raise CliError(
            "--all-tenants already erases every thread: drop --threads-tenant and "
            "--untenanted-threads."
        )
    scope = (
        None
        if threads and not prefix
        else check_scope(parse_namespace(prefix), all_tenants=all_tenants)
    )
    if target.json and not (yes or dry_run):
        raise CliError("--json cannot ask for confirmation: add --yes (or --dry-run).")
    store = target.store(index=False)
    sources = _sources(store.client, store.table_name, threads_tenant, untenanted_threads)
    if all_tenants:
        sources = every_thread_sources()
    label = _label(scope, threads_tenant, untenanted_threads)
    counted = census(
        store.client,
        store.table_name,
        scope,
        all_tenants=all_tenants,
        sources=sources,
        scan=verify_scan,
    )
    if dry_run:
        _show(target, {"dry_run": True, **_census_json(counted)}, _census_table(counted, label))
        return
    if counted.total and not yes:
        _confirm(target.table, label, counted)
    try:
        purge = functools.partial(store.purge, sources=sources, scan=verify_scan)
        result = _run(target, purge, scope, all_tenants, force, counted.total)
    except PurgeConflictError as error:
        raise CliError(str(error), ENVIRONMENT) from error
    _show(target, _result_json(result), _result_table(result, label))
    if result.rows_left:
        if not target.json:
            console.print(
                f"[red]✗[/] {result.rows_left} rows {label} were written during the "
                "purge and remain: stop the tenant's writers and run the purge again."
            )
        raise typer.Exit(ENVIRONMENT)
    if not target.json:
        scanned = " and a Scan of the whole table" if result.verification.scanned else ""
        console.print(
            f"[green]✓[/] Verified: 0 rows left {label} in table {result.table} "
            f"({result.verification.namespaces} namespaces read again{scanned})."
        )


def _sources(client: Any, table: str, tenant: str | None, untenanted: bool) -> list[RowSource]:
    """The row sources of the threads the options name, with what extraction kept of
    them."""
    tenants = ([] if tenant is None else [tenant]) + ([""] if untenanted else [])
    return [source for name in tenants for source in tenant_sources(client, table, name)]


def _confirm(table: str, label: str, counted: Census) -> None:
    """Ask before erasing; a whole-table wipe must be confirmed by typing the table name."""
    console.print(_census_table(counted, label))
    if counted.prefix == ():
        confirm_or_decline(
            f"This erases EVERY tenant of {table}. Type the table name to go on", typed=table
        )
        return
    confirm_or_decline(f"Erase {counted.total} rows {label} in {table}? No undo.")


def _run(
    target: Target,
    run: Callable[..., PurgeResult],
    scope: tuple[str, ...] | None,
    all_tenants: bool,
    force: bool,
    total: int,
) -> PurgeResult:
    """The purge, with a progress bar of the rows deleted unless the output is JSON."""
    if target.json:
        return run(scope, all_tenants=all_tenants, force=force)
    columns = (TextColumn("Purging"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("purge", total=max(total, 1))

        def show(deleted: int) -> None:
            progress.update(task, completed=deleted, total=max(total, deleted, 1))

        return run(scope, all_tenants=all_tenants, force=force, on_progress=show)


def _label(prefix: tuple[str, ...] | None, tenant: str | None, untenanted: bool) -> str:
    """What the purge erases, in words, with its preposition: "under memories.acme"."""
    parts = [] if prefix is None else [f"under {'.'.join(prefix) or 'every tenant'}"]
    if tenant is not None:
        parts.append(f"of the threads of tenant {tenant}")
    if untenanted:
        parts.append("of the threads of savers without a tenant key")
    return " and ".join(parts)


def _census_json(counted: Census) -> dict[str, Any]:
    return {
        "table": counted.table,
        "prefix": None if counted.prefix is None else list(counted.prefix),
        "namespaces": counted.namespaces,
        "rows": dict(counted.rows),
        "total": counted.total,
        "scanned": counted.scanned,
        "seconds": round(counted.seconds, 3),
    }


def _result_json(result: PurgeResult) -> dict[str, Any]:
    return {
        "table": result.table,
        "prefix": None if result.prefix is None else list(result.prefix),
        "deleted": dict(result.deleted),
        "rows_left": result.rows_left,
        "verification": _census_json(result.verification),
        "resumed": result.resumed,
        "seconds": round(result.seconds, 3),
    }


def _census_table(counted: Census, label: str) -> Table:
    grid = Table(
        title=f"Rows {label} in {counted.table} ({counted.namespaces} namespaces)",
        title_justify="left",
    )
    grid.add_column("kind")
    grid.add_column("rows", justify="right")
    for kind, count in counted.rows.items():
        grid.add_row(kind, str(count))
    grid.add_row("[bold]total[/]", f"[bold]{counted.total}[/]")
    return grid


def _result_table(result: PurgeResult, label: str) -> Table:
    resumed = ", resumed" if result.resumed else ""
    grid = Table(
        title=f"Purge {label} in {result.table} ({result.seconds:.1f} s{resumed})",
        title_justify="left",
    )
    grid.add_column("kind")
    grid.add_column("deleted", justify="right")
    grid.add_column("left (verified)", justify="right")
    left = result.verification.rows
    for kind in sorted(set(result.deleted) | set(left)):
        grid.add_row(kind, str(result.deleted.get(kind, 0)), str(left.get(kind, 0)))
    grid.add_row(
        "[bold]total[/]", f"[bold]{sum(result.deleted.values())}[/]", f"[bold]{result.rows_left}[/]"
    )
    return grid


def _show(target: Target, data: dict[str, Any], table: Table) -> None:
    if target.json:
        sys.stdout.write(json.dumps(data) + "\n")
    else:
        console.print(table)
