"""`serve`: the local emulation behind an HTTP endpoint until Ctrl-C or SIGTERM."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import boto3

DEFAULT_PORT = 8484
DEFAULT_HOST = "127.0.0.1"
REGION = "us-east-1"


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
    """An event set by SIGINT or SIGTERM while the block runs (handlers restored after)."""
    stop = threading.Event()

    def handle(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, handle) for sig in (signal.SIGINT, signal.SIGTERM)}
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
    """Serve until SIGINT/SIGTERM. With `state`, load it at start (when it exists) and
    save it at stop. `on_ready(url, items_loaded)` runs once the endpoint answers,
    `on_stop(items_saved)` after the state is saved."""
    from ..testing import local_endpoint
    from . import state as snapshot

    with stop_signals() as stop, local_endpoint(port, host=host) as url:

        def client_for(region: str) -> Any:
            return boto3.client(
                "dynamodb",
                endpoint_url=url,
                region_name=region,
                aws_access_key_id="testing",
                aws_secret_access_key="testing",
            )

        loaded = snapshot.load(client_for, state) if state and state.exists() else 0
        on_ready(url, loaded)
        stop.wait()
        saved = snapshot.save(client_for, _regions_with_tables(), state) if state else 0
        on_stop(saved)


def _regions_with_tables() -> list[str]:
    from ..testing import emulated_tables

    return [region for _, region, _ in emulated_tables()]
