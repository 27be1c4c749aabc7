"""`dynamodb-memory ui`: serve the memory inspector on the table the common options name.

It loads the web libraries (the `ui` extra) only when it runs; without them it prints the
line that installs them."""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer
from langgraph.store.dynamodb.basestore.config import DEFAULT_TABLE
from langgraph.store.dynamodb.cli.errors import ENVIRONMENT, CliError, friendly
from langgraph.store.dynamodb.cli.output import console
from langgraph.store.dynamodb.cli.target import Target, targeted
from langgraph.store.dynamodb.demo import KEPT, STATE_FILE, USAGE_FILE

DEFAULT_PORT = 8485
DEFAULT_HOST = "127.0.0.1"
INSTALL = "pip install 'langgraph-dynamodb-memory[ui]'"
UI_MODULES = ("starlette", "jinja2", "uvicorn", "multipart", "python_multipart")


@friendly
@targeted(json=False)
def ui_command(
    target: Target,
    host: Annotated[
        str, typer.Option(help="Address to bind (127.0.0.1: this machine only).")
    ] = DEFAULT_HOST,
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free one).")] = DEFAULT_PORT,
    allow_actions: Annotated[
        bool,
        typer.Option(
            "--allow-actions",
            help="Enable forget, replay and purge (each behind a confirmation). "
            "Without it the inspector is read-only.",
        ),
    ] = False,
    state: Annotated[
        Path | None,
        typer.Option(
            help="Browse the local emulation loaded from this state file (serve --state's, "
            "or .demo/state.json from make demo) instead of --endpoint-url; saved back on stop."
        ),
    ] = None,
    usage_log: Annotated[
        Path | None,
        typer.Option(
            help="JSON lines of UsageLogSink (env DYNAMODB_MEMORY_USAGE_LOG) for the usage chart."
        ),
    ] = None,
    dead_letter_url: Annotated[
        str | None,
        typer.Option(help="The extraction dead-letter queue's URL (env EXTRACTION_DLQ_URL)."),
    ] = None,
) -> None:
    """Serve the memory inspector in the browser.

    Tenants with their users and namespaces, memories with their provenance and history,
    extraction status with the dead-letter queue, usage per day, search. Read-only unless
    --allow-actions; binds 127.0.0.1 unless --host says otherwise."""
    try:
        import uvicorn
        from langgraph.store.dynamodb.cli.ui.app import create_app
        from langgraph.store.dynamodb.cli.ui.inspector import Inspector
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] not in UI_MODULES:
            raise
        raise CliError(f"dynamodb-memory ui needs its extra: {INSTALL}", ENVIRONMENT) from None
    from langgraph.store.dynamodb.cli import serve as serving

    if state is None and target.settings.endpoint_url is None and demo_kept(target.table):
        state, usage_log = KEPT / STATE_FILE, usage_log or KEPT / USAGE_FILE
        console.print(
            f"Browsing the demo's table ({state}, from make demo); --state or --endpoint-url "
            "names another."
        )
    usage_log = usage_log or _env_path("DYNAMODB_MEMORY_USAGE_LOG")
    dead_letter_url = dead_letter_url or os.environ.get("EXTRACTION_DLQ_URL") or None
    with contextlib.ExitStack() as stack:
        if state is not None:
            if target.settings.endpoint_url:
                raise CliError("--state runs its own endpoint: drop --endpoint-url.")
            emulated = stack.enter_context(
                serving.emulated(host=serving.DEFAULT_HOST, port=0, state=state)
            )
            target = Target.of(
                table=target.table,
                region=target.settings.region or serving.REGION,
                endpoint_url=emulated.url,
            )
            os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
            os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
            console.print(f"Loaded {emulated.loaded} rows from {state} (saved back on stop).")
        inspector = Inspector(target, usage_log=usage_log, dead_letter_url=dead_letter_url)
        stack.callback(inspector.close)
        inspector.store.list_namespaces(limit=1)  # a missing table or endpoint: one line now
        app = create_app(inspector, allow_actions=allow_actions, allowed_hosts=allowed_hosts(host))
        listening = stack.enter_context(_bound(host, port))
        port = listening.getsockname()[1]
        shown = "localhost" if host in ("127.0.0.1", "::1") else host
        mode = "actions enabled" if allow_actions else "read-only"
        console.print(
            f"[bold green]Memory inspector[/] for table [bold]{target.table}[/] ({mode}) at "
            f"[bold]http://{shown}:{port}/[/]  Ctrl-C to stop."
        )
        if not _loopback(host):
            console.print(
                f"[bold yellow]Listening on {host}:[/] anyone who reaches this address can "
                "read every tenant's memories" + (" and erase them." if allow_actions else ".")
            )
        config = uvicorn.Config(app, log_level="warning", server_header=False)
        uvicorn.Server(config).run(sockets=[listening])
    if state is not None:
        console.print(f"Stopped. Saved {emulated.saved} rows to {state}.")


@contextlib.contextmanager
def _bound(host: str, port: int) -> Iterator[socket.socket]:
    """A listening socket on host:port (0: a free port), or one line saying why not."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as error:
        sock.close()
        raise CliError(
            f"Cannot listen on {host}:{port} ({error.strerror or error}): pass another --port "
            "(0 picks a free one) or --host.",
            ENVIRONMENT,
        ) from None
    with sock:
        yield sock


def allowed_hosts(host: str) -> list[str]:
    """The Host headers the inspector answers (others are refused: DNS rebinding)."""
    hosts = ["127.0.0.1", "localhost", "[::1]"]
    if host not in ("127.0.0.1", "::1", "localhost", "0.0.0.0", "::"):
        hosts.append(host)
    if host in ("0.0.0.0", "::"):
        hosts.append("*")  # the operator chose every interface: any name reaching it
    return hosts


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def demo_kept(table: str) -> bool:
    """Whether `make demo` kept its table here and the command names that table."""
    return table == DEFAULT_TABLE and (KEPT / STATE_FILE).is_file()


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value) if value else None
