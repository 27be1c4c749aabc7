"""`serve`: the local emulation behind an HTTP endpoint until Ctrl-C, SIGTERM or SIGHUP."""

from __future__ import annotations

import contextlib
import errno
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from langgraph.store.dynamodb.cli.errors import ENVIRONMENT, CliError

DEFAULT_PORT = 8484
DEFAULT_HOST = "127.0.0.1"
REGION = "us-east-1"
MAX_PORT = 65535
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# Python runs a handler on the main thread, but the kernel hands a process's signal to any
# of its threads; a main thread blocked with no timeout would not run it until woken.
WAKE_SECONDS = 0.2


def connection_lines(url: str, region: str, table: str) -> dict[str, str]:
    """What a user needs to reach the endpoint from another shell or process."""
    return {
        "url": url,
        "env": (
            f"export AWS_ENDPOINT_URL={url} AWS_DEFAULT_REGION={region} "
            "AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing"
        ),
        "python": f'DynamoDBStore("{table}", region_name="{region}", endpoint_url="{url}")',
        "aws_cli": f"aws dynamodb list-tables --endpoint-url {url} --region {region}",
    }


@contextlib.contextmanager
def stop_signals() -> Iterator[threading.Event]:
    """An event set by SIGINT, SIGTERM or SIGHUP (a closed terminal) while the block runs
    (handlers restored after)."""
    stop = threading.Event()

    def handle(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, handle) for sig in STOP_SIGNALS}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def run(
    *,
    host: str,
    port: int,
    state: Path | None,
    on_ready: Callable[[str, int], None],
    on_stop: Callable[[int], None],
) -> None:
    """Serve until SIGINT, SIGTERM or SIGHUP. With `state`: claim the file first (refusing
    one that cannot be written or that another serve holds), load it when it exists, and
    at stop drain the endpoint (later requests are refused, admitted ones applied) before
    saving it, so every write the endpoint acknowledged is in the file. `on_ready(url,
    items_loaded)` runs once the endpoint answers, `on_stop(items_saved)` after the save."""
    with stop_signals() as stop, emulated(host=host, port=port, state=state) as endpoint:
        on_ready(endpoint.url, endpoint.loaded)
        while not stop.wait(WAKE_SECONDS):
            pass
    on_stop(endpoint.saved)


@dataclass
class Emulated:
    """An endpoint `emulated` runs: its URL, the rows loaded from the state file at start
    and, once the block has ended, the rows saved to it."""

    url: str
    loaded: int = 0
    saved: int = 0


@contextlib.contextmanager
def emulated(*, host: str, port: int, state: Path | None) -> Iterator[Emulated]:
    """The local emulation behind an HTTP endpoint for the block (`serve`, and `ui
    --state`). With `state`: the file claimed first (refusing one that cannot be written
    or that another process holds), loaded when it exists, and, when the block ends, the
    endpoint drained (later requests refused, admitted ones applied) then saved."""
    from langgraph.store.dynamodb.cli import state as snapshot
    from langgraph.store.dynamodb.testing import EmulatorSettings, emulated_regions
    from langgraph.store.dynamodb.testing.mock import running_endpoint

    if not 0 <= port <= MAX_PORT:
        raise CliError(f"--port must be from 0 (any free port) to {MAX_PORT}, got {port}.")
    with contextlib.ExitStack() as stack:
        lock = stack.enter_context(snapshot.StateLock(state)) if state else None
        try:
            endpoint = stack.enter_context(
                running_endpoint(port, host=host, settings=EmulatorSettings())
            )
        except OSError as error:
            raise _cannot_listen(host, port, error) from None

        def client_for(region: str) -> Any:
            """A client whose requests the endpoint serves also once drained."""
            import boto3

            return boto3.client(
                "dynamodb",
                endpoint_url=endpoint.url,
                region_name=region,
                aws_access_key_id=endpoint.owner_key,
                aws_secret_access_key="testing",
            )

        running = Emulated(endpoint.url)
        if state and state.exists():
            running.loaded = snapshot.load(client_for, state, emulated_regions())
        if lock:
            lock.record(endpoint.url)
        yield running
        endpoint.drain()
        running.saved = snapshot.save(client_for, _regions_with_tables(), state) if state else 0


def _cannot_listen(host: str, port: int, error: OSError) -> CliError:
    if error.errno == errno.EADDRINUSE:
        return CliError(
            f"Port {port} on {host} is in use (another serve?): pass another --port "
            "(--port 0 picks a free one).",
            ENVIRONMENT,
        )
    return CliError(f"Cannot listen on {host}:{port} ({error.strerror or error}): check --host.")


def _regions_with_tables() -> list[str]:
    from langgraph.store.dynamodb.testing import emulated_tables

    return [region for _, region, _ in emulated_tables()]
