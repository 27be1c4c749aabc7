"""`dynamodb-memory extraction ...`: memories that form themselves from threads. The
table's extraction config (and a tenant's override), per thread and strategy how far
extraction got, and a replay of a thread. Threads are those of savers keyed by tenant
(`tenant_key="tenant"`); `--tenant ""` names the threads of a saver without one.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from langgraph.store.dynamodb.cli.errors import BAD_INPUT, CliError, friendly
from langgraph.store.dynamodb.cli.output import console, counted, done, print_json
from langgraph.store.dynamodb.cli.target import Target, load_json, targeted
from langgraph.store.dynamodb.extraction import (
    ExtractionConfig,
    ExtractionConfigError,
    Extractor,
    TenantOverride,
    ThreadBusyError,
)
from langgraph.store.dynamodb.extraction.engine.config import parse
from langgraph.store.dynamodb.extraction.engine.strategy_run import StrategyRun
from rich.table import Table

app = typer.Typer(
    help="Memories formed in the background: config, status, replay.",
    no_args_is_help=True,
)
config_app = typer.Typer(help="The table's extraction config: show, set.", no_args_is_help=True)
app.add_typer(config_app, name="config")

TenantOpt = Annotated[
    str | None, typer.Option(help="A tenant: its override (config) or its threads.")
]


def extractor(target: Target) -> Extractor:
    """An extractor on the target table; its model calls go to the target's endpoint."""
    store = target.store()
    return Extractor(
        store, target.saver("", bound=False), bedrock_endpoint_url=target.settings.endpoint_url
    )


@config_app.command("show")
@friendly
@targeted()
def show_config(target: Target, tenant: TenantOpt = None) -> None:
    """Print the table's extraction config as JSON.

    With --tenant: that tenant's override, and the config it runs with."""
    found = extractor(target)
    config = found.config()
    shown: dict[str, Any] = {"config": config.model_dump(mode="json")}
    if tenant is not None:
        override = found.tenant_override(tenant)
        shown["override"] = None if override is None else override.model_dump(mode="json")
        shown["effective"] = config.with_override(override).model_dump(mode="json")
    print_json(shown if tenant is not None else shown["config"])


@config_app.command("set")
@friendly
@targeted()
def set_config(
    target: Target,
    settings: Annotated[str, typer.Argument(help="The config as JSON, or @FILE holding it.")],
    tenant: TenantOpt = None,
) -> None:
    """Check and save the table's extraction config.

    With --tenant: that tenant's override (`null` removes it). A wrong setting is one
    line naming it, and nothing is saved."""
    text = Path(settings[1:]).read_text() if settings.startswith("@") else settings
    data = load_json(text, "the config")
    found = extractor(target)
    try:
        if tenant is None:
            found.set_config(parse(ExtractionConfig, _object(data), "config"))
        elif data is None:
            found.set_tenant_override(tenant, None)
        else:
            found.set_tenant_override(tenant, parse(TenantOverride, _object(data), "override"))
    except ExtractionConfigError as error:
        raise CliError(f"Not saved: {error}", BAD_INPUT) from None
    where = f"tenant {tenant!r}'s override" if tenant is not None else "the extraction config"
    done(target, {"saved": where}, f"Saved {where} on {target.table}.")


def _object(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise CliError("The config must be a JSON object.", BAD_INPUT)
    return data


@app.command()
@friendly
@targeted()
def status(
    target: Target,
    tenant: Annotated[str, typer.Option(help="The tenant whose threads to show.")] = "",
    thread: Annotated[str | None, typer.Option(help="Only this thread.")] = None,
) -> None:
    """Show how far extraction has processed each thread.

    Per thread and strategy: the checkpoint processed through, the messages behind the
    newest checkpoint (lag), the last run and the last error or skip reason."""
    found = extractor(target).status(tenant, thread)
    if target.json:
        print_json(
            [
                {**dataclasses.asdict(s), "caught_up": s.checkpoint_id == s.newest_checkpoint_id}
                for s in found
            ]
        )
        return
    grid = Table(title=f"Extraction on {target.table}", title_justify="left")
    for column in ("thread", "strategy", "behind", "last run", "memories", "last error"):
        grid.add_column(column, overflow="fold")
    for s in found:
        caught_up = s.checkpoint_id == s.newest_checkpoint_id
        ran = s.last_run_at
        grid.add_row(
            s.thread_id,
            s.strategy,
            "caught up" if caught_up else f"{s.lag_messages} messages",
            time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ran)) if ran else "never",
            str(s.memories),
            s.last_error or "",
        )
    console.print(grid)


@app.command()
@friendly
@targeted()
def replay(
    target: Target,
    thread_id: Annotated[str, typer.Argument(help="The thread to reprocess.")],
    tenant: Annotated[str, typer.Option(help="The thread's tenant.")] = "",
    after: Annotated[
        str | None, typer.Option(help="Reprocess the messages after this checkpoint id.")
    ] = None,
    strategy: Annotated[
        list[str] | None, typer.Option(help="Only this strategy (repeatable).")
    ] = None,
) -> None:
    """Reprocess a thread from a point (the start by default).

    Its memories keep their keys, so a replay rewrites them and never duplicates. Per
    strategy: the model calls, the memories written, those already known (unchanged), and
    why it stopped, if it did. Exit 2 while a run holds the thread."""
    try:
        report = extractor(target).replay(
            tenant, thread_id, after_checkpoint=after, strategies=strategy
        )
    except (ValueError, ThreadBusyError) as error:
        raise CliError(str(error), BAD_INPUT) from None
    runs = [run.summary() for run in report.runs]
    lines = [_replayed(run) for run in report.runs]
    done(target, runs, "; ".join(lines) or "No strategy configured.")


def _replayed(run: StrategyRun) -> str:
    """What a replay did for one strategy, in words."""
    if run.model_calls == 0 and run.skipped:
        return f"{run.strategy}: nothing replayed ({run.skipped})"
    did = (
        f"{run.strategy}: {counted(run.model_calls, 'model call')}, "
        f"{counted(len(run.written), 'memory', 'memories')} written, "
        f"{counted(run.unchanged, 'memory', 'memories')} already known"
    )
    return did + (f"; stopped: {run.skipped}" if run.skipped else "")
