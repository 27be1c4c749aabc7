"""`dynamodb-memory threads ...`: the checkpointer's threads (short-term memory) on the
same table as the memories: list, show, delete, export and import them.

A thread written by a saver with a `tenant_key` belongs to that tenant: name it with
`--tenant`; without it, the commands see the threads of savers without a tenant key.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.cli import thread_transfer
from langgraph.store.dynamodb.cli.errors import (
    NOT_FOUND,
    CliError,
    confirm_or_decline,
    friendly,
    stderr,
)
from langgraph.store.dynamodb.cli.files import replacing
from langgraph.store.dynamodb.cli.output import console, counted, done, print_json
from langgraph.store.dynamodb.cli.target import Target, targeted
from rich.table import Table

app = typer.Typer(
    help="The checkpointer's threads (short-term memory) on the table.\n\nThe threads a "
    "DynamoDBSaver wrote: ls, show, rm, forget, export, import.",
    no_args_is_help=True,
)

TenantOpt = Annotated[
    str | None,
    typer.Option(help="The tenant whose threads these are (savers with a tenant_key)."),
]
ThreadArg = Annotated[str, typer.Argument(help="The thread id (configurable thread_id).")]


def _of(tenant: str | None) -> str:
    return f" of tenant {tenant!r}" if tenant else ""


def _no_thread(target: Target, thread_id: str, tenant: str | None) -> CliError:
    hint = "" if tenant else " (a thread of a tenant needs --tenant)"
    return CliError(f"No thread {thread_id!r}{_of(tenant)} in {target.table}{hint}.", NOT_FOUND)


@app.command("ls")
@friendly
@targeted()
def list_threads(
    target: Target,
    tenant: TenantOpt = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many threads.")] = 100,
    offset: Annotated[int, typer.Option(min=0, help="Skip this many threads first.")] = 0,
) -> None:
    """List thread ids, sorted, a page at a time.

    They are read from the thread registry: one Query per 1 MB of ids up to the page's
    end, never a Scan."""
    ids = target.saver(tenant).threads(limit=offset + limit + 1)
    page = ids[offset : offset + limit]
    if target.json:
        print_json(page)
        return
    for thread_id in page:
        console.print(thread_id, soft_wrap=True)
    if len(ids) > offset + limit:
        stderr.print(f"More follow: --offset {offset + limit} shows the next page.")


def summary(saver: DynamoDBSaver, thread_id: str, checkpoint_ns: str) -> dict[str, Any] | None:
    """The thread's latest checkpoint in `checkpoint_ns`: id, time, parent, metadata, each
    channel with its stored (serialized) size, the pending writes, and how many
    checkpoints the namespace holds; None when it has none."""
    config: RunnableConfig = {
        "configurable": {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns}
    }
    found = saver.get_tuple(config)
    if found is None:
        return None
    checkpoint = found.checkpoint
    values = checkpoint["channel_values"]
    channels = []
    for name, version in sorted(checkpoint["channel_versions"].items()):
        kind, data = saver.serde.dumps_typed(values[name]) if name in values else ("empty", b"")
        channels.append({"name": name, "version": str(version), "type": kind, "bytes": len(data)})
    parent = found.parent_config
    return {
        "thread_id": thread_id,
        "checkpoint_ns": checkpoint_ns,
        "checkpoint_id": checkpoint["id"],
        "ts": checkpoint["ts"],
        "parent_checkpoint_id": parent["configurable"]["checkpoint_id"] if parent else None,
        "metadata": found.metadata,
        "channels": channels,
        "pending_writes": len(found.pending_writes or []),
        "history": saver.count_checkpoints(thread_id, checkpoint_ns),
    }


@app.command()
@friendly
@targeted()
def show(
    target: Target,
    thread_id: ThreadArg,
    tenant: TenantOpt = None,
    checkpoint_ns: Annotated[
        str, typer.Option(help="Checkpoint namespace ('' is the root graph's).")
    ] = "",
) -> None:
    """Show a thread's latest checkpoint and how long its history is.

    The checkpoint's id, metadata, channels with their sizes, pending writes, and how many
    checkpoints the namespace holds. Exit 1 when the thread, or its --checkpoint-ns, has
    none."""
    saver = target.saver(tenant)
    info = summary(saver, thread_id, checkpoint_ns)
    if info is None:
        count = saver.count_checkpoints(thread_id)
        if count == 0:
            raise _no_thread(target, thread_id, tenant)
        raise CliError(
            f"Thread {thread_id!r}{_of(tenant)} has {count} checkpoint(s), none in checkpoint "
            f"namespace {checkpoint_ns!r}: pass the --checkpoint-ns of one of its subgraphs "
            "('' is the root graph's).",
            NOT_FOUND,
        )
    if target.json:
        print_json(info)
        return
    grid = Table(title=f"Thread {thread_id}{_of(tenant)}", show_header=False, title_justify="left")
    grid.add_column(style="bold")
    grid.add_column(overflow="fold")
    grid.add_row("checkpoint", info["checkpoint_id"])
    grid.add_row("namespace", repr(checkpoint_ns))
    grid.add_row("written at", info["ts"])
    grid.add_row("parent", info["parent_checkpoint_id"] or "none (first checkpoint)")
    grid.add_row("metadata", json.dumps(info["metadata"], ensure_ascii=False, default=str))
    grid.add_row("pending writes", str(info["pending_writes"]))
    grid.add_row("history", f"{info['history']} checkpoint(s)")
    console.print(grid)
    channels = Table("channel", "version", "type", "bytes", title="channels", title_justify="left")
    for channel in info["channels"]:
        channels.add_row(
            channel["name"], channel["version"], channel["type"], f"{channel['bytes']:,}"
        )
    console.print(channels)


@app.command()
@friendly
@targeted()
def rm(
    target: Target,
    thread_id: ThreadArg,
    tenant: TenantOpt = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete a thread with every row it holds.

    Every checkpoint, channel value and pending write, in every checkpoint namespace.
    Exit 1 when there is no such thread, 4 when not confirmed."""
    saver = target.saver(tenant)
    count = saver.count_checkpoints(thread_id)
    if count == 0:
        raise _no_thread(target, thread_id, tenant)
    if not yes:
        confirm_or_decline(f"Delete thread {thread_id!r}{_of(tenant)} ({count} checkpoint(s))?")
    saver.delete_thread(thread_id)
    done(
        target,
        {"thread_id": thread_id, "tenant": tenant, "checkpoints": count, "deleted": True},
        f"deleted thread {thread_id}{_of(tenant)} ({count} checkpoint(s))",
    )


@app.command()
@friendly
@targeted()
def forget(target: Target, thread_id: ThreadArg, tenant: TenantOpt = None) -> None:
    """Forget what one thread taught the long-term memory.

    Delete the memories only it formed, roll memories it updated back to their version
    from another thread, bring back what it superseded. The thread itself stays
    (`threads rm` deletes it). Exit 1 when the table knows no such thread (neither its
    checkpoints nor its extraction)."""
    from langgraph.store.dynamodb.extraction import Extractor

    saver = target.saver(tenant)
    extractor = Extractor(target.store(), saver)
    ran = any(s.last_run_at is not None for s in extractor.status(tenant or "", thread_id))
    if not ran and saver.count_checkpoints(thread_id) == 0:
        raise _no_thread(target, thread_id, tenant)
    deleted = extractor.forget_thread(tenant or "", thread_id)
    done(
        target,
        {"thread_id": thread_id, "tenant": tenant, "deleted": deleted},
        f"forgot thread {thread_id}{_of(tenant)}: "
        f"{counted(deleted, 'memory', 'memories')} only it formed deleted; any memory it "
        "changed is back to its version from another thread",
    )


@app.command("export")
@friendly
@targeted(json=False)
def export_threads(
    target: Target,
    thread_ids: Annotated[
        list[str] | None, typer.Argument(help="Thread ids; none: every thread of the tenant.")
    ] = None,
    tenant: TenantOpt = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="File to write (default: stdout).")
    ] = None,
) -> None:
    """Write threads as JSON Lines, one stored row per line.

    Binary values are in base64, so `threads import` restores them byte for byte."""
    saver = target.saver(tenant)
    ids = thread_ids or saver.threads()
    try:
        if output is None:
            count = thread_transfer.export_threads(saver, tenant or "", ids, sys.stdout)
        else:
            with replacing(output) as out:  # a failed export leaves the file as it was
                count = thread_transfer.export_threads(saver, tenant or "", ids, out)
            stderr.print(f"[green]✓[/] exported {len(ids)} thread(s), {count} rows, to {output}")
    except LookupError as error:
        raise CliError(str(error), NOT_FOUND) from None


@app.command("import")
@friendly
@targeted()
def import_threads(
    target: Target,
    source: Annotated[Path, typer.Argument(help="JSON Lines file ('-' for stdin).")],
) -> None:
    """Write threads from JSON Lines as threads export writes them.

    Each thread goes under the tenant its lines name. Every line is checked before
    anything is written."""
    if str(source) == "-":
        imported = thread_transfer.import_threads(target.saver, sys.stdin)
    else:
        with source.open() as lines:
            imported = thread_transfer.import_threads(target.saver, lines)
    done(
        target,
        {"threads": imported.threads, "rows": imported.rows},
        f"imported {imported.threads} thread(s), {imported.rows} rows, into {target.table}",
    )
