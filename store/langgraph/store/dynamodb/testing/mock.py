"""``mock_aws`` (drop-in for ``moto.mock_aws``) and ``local_endpoint`` (HTTP server mode, in
this process or, with ``local_endpoint_process``, in a child)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, overload

import moto
from langgraph.store.dynamodb.testing._patch import install
from langgraph.store.dynamodb.testing._settings import EmulatorSettings, pop_settings, push_settings
from moto.core.models import MockAWS

if TYPE_CHECKING:
    from langgraph.store.dynamodb.testing._server import EndpointServer

T = TypeVar("T")

__all__ = ["EmulatedMockAWS", "local_endpoint", "local_endpoint_process", "mock_aws"]


class EmulatedMockAWS(MockAWS):
    """``moto.mock_aws`` plus the emulation; a context manager and a decorator.

    ``.settings`` is the :class:`EmulatorSettings` pushed while the mock is active; mutate
    it to change knobs for later index operations and writes.
    """

    def __init__(self, config: Any = None, settings: EmulatorSettings | None = None) -> None:
        super().__init__(config)
        install()
        self._inner: MockAWS = moto.mock_aws(config=config)
        self.settings = settings or EmulatorSettings()

    def start(self, reset: bool = True) -> None:
        install()
        push_settings(self.settings)
        try:
            self._inner.start(reset=reset)
        except BaseException:
            pop_settings(self.settings)
            raise

    def stop(self, remove_data: bool = True) -> None:
        try:
            self._inner.stop(remove_data=remove_data)
        finally:
            pop_settings(self.settings)


@overload
def mock_aws(func: Callable[..., T]) -> Callable[..., T]: ...


@overload
def mock_aws(
    func: None = None,
    *,
    config: Any = None,
    settings: EmulatorSettings | None = None,
    index_creation_delay: float | None = None,
    backfill_delay: float | None = None,
    search_lag: float | None = None,
    indexing_lag: float | None = None,
    index_deletion_delay: float | None = None,
    item_collection_size_limit: int | None = None,
) -> EmulatedMockAWS: ...


def mock_aws(
    func: Callable[..., T] | None = None,
    *,
    config: Any = None,
    settings: EmulatorSettings | None = None,
    index_creation_delay: float | None = None,
    backfill_delay: float | None = None,
    search_lag: float | None = None,
    indexing_lag: float | None = None,
    index_deletion_delay: float | None = None,
    item_collection_size_limit: int | None = None,
) -> EmulatedMockAWS | Callable[..., T]:
    """Drop-in for ``moto.mock_aws`` that adds the vector index, Bedrock and TTL emulation.

    Use exactly like moto's (``with mock_aws():``, ``@mock_aws``, ``@mock_aws()`` on
    functions or classes). Knobs (see :class:`EmulatorSettings`) may be given as keywords
    or as a ``settings`` object; keywords override ``settings``.
    """
    merged = _resolve(
        settings,
        index_creation_delay=index_creation_delay,
        backfill_delay=backfill_delay,
        search_lag=search_lag,
        indexing_lag=indexing_lag,
        index_deletion_delay=index_deletion_delay,
        item_collection_size_limit=item_collection_size_limit,
    )
    mock = EmulatedMockAWS(config=config, settings=merged)
    if func is not None:
        return mock(func)
    return mock


@contextlib.contextmanager
def local_endpoint(
    port: int | None = None,
    *,
    host: str = "127.0.0.1",
    settings: EmulatorSettings | None = None,
    reset: bool = True,
    index_creation_delay: float | None = None,
    backfill_delay: float | None = None,
    search_lag: float | None = None,
    indexing_lag: float | None = None,
    index_deletion_delay: float | None = None,
    item_collection_size_limit: int | None = None,
    consumers: Mapping[str, Callable[[dict[str, Any], Any], Any]] | None = None,
    embed_stream: bool = True,
    extraction: bool = True,
) -> Iterator[str]:
    """Run the emulation behind an HTTP server and yield its URL.

    ``port=None`` picks a free port; a port that cannot be bound raises ``OSError`` at
    once. Use the URL as ``endpoint_url`` of every boto3 client
    (any credentials and region work; when this process has none configured, fake ones are
    set in its environment for the life of the endpoint. Another process needs its own,
    e.g. ``AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing``). State lives in this
    process and is reset on entry and exit when ``reset`` is true. Knobs as for
    :func:`mock_aws`. ``consumers`` maps table names to Lambda stream handlers that
    :func:`run_consumer` runs in the background for the life of the endpoint (records are
    delivered as Lambda would). With ``embed_stream`` (the default) the library's stream
    consumer runs too, for every other table whose setup() pinned an embedding model:
    writes with ``embed_on="stream"`` get embedded in the background as on AWS. With
    ``extraction`` (the default) every other table with an extraction config saved on it
    forms memories from its threads in the background, as the deployed stack does
    (`auto_extract`: stream -> router -> queue -> extraction worker).
    """
    merged = _resolve(
        settings,
        index_creation_delay=index_creation_delay,
        backfill_delay=backfill_delay,
        search_lag=search_lag,
        indexing_lag=indexing_lag,
        index_deletion_delay=index_deletion_delay,
        item_collection_size_limit=item_collection_size_limit,
    )
    with running_endpoint(
        port,
        host=host,
        settings=merged,
        reset=reset,
        consumers=consumers,
        embed_stream=embed_stream,
        extraction=extraction,
    ) as endpoint:
        yield endpoint.url


@dataclass(frozen=True)
class Endpoint:
    """A running local endpoint (see :func:`running_endpoint`)."""

    server: EndpointServer
    background: contextlib.ExitStack

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def owner_key(self) -> str:
        """The access key whose requests are still served after `drain()`."""
        return self.server.owner_key

    def drain(self) -> None:
        """Stop the background stream consumers, refuse every later request but the
        owner's, and wait until those already admitted are applied: the tables then stay
        as they are (what `serve --state` saves)."""
        self.background.close()
        self.server.drain()


@contextlib.contextmanager
def running_endpoint(
    port: int | None = None,
    *,
    host: str = "127.0.0.1",
    settings: EmulatorSettings,
    reset: bool = True,
    consumers: Mapping[str, Callable[[dict[str, Any], Any], Any]] | None = None,
    embed_stream: bool = True,
    extraction: bool = True,
) -> Iterator[Endpoint]:
    """:func:`local_endpoint` with resolved `settings`, yielding the running `Endpoint`."""
    import logging

    from langgraph.store.dynamodb.testing._server import EndpointServer
    from moto.core.base_backend import BackendDict

    install()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    if reset:
        BackendDict.reset()
    server = EndpointServer(host, port or 0)
    push_settings(settings)
    try:
        with contextlib.ExitStack() as background:
            from langgraph.store.dynamodb.testing.streams import run_consumer

            if not {"AWS_ACCESS_KEY_ID", "AWS_PROFILE"} & set(os.environ):
                fake = fake_credentials_env()
                background.enter_context(
                    patched_env({k: fake[k] for k in fake if k not in os.environ})
                )

            for table_name, handler in (consumers or {}).items():
                background.enter_context(run_consumer(table_name, handler))
            if embed_stream:
                from langgraph.store.dynamodb.testing.auto_embed import AutoEmbedder

                embedder = AutoEmbedder(server.url, skip=set(consumers or ()))
                embedder.start()
                background.callback(embedder.stop)
            if extraction:
                from langgraph.store.dynamodb.testing.auto_extract import AutoExtractor

                extractor = AutoExtractor(server.url, skip=set(consumers or ()))
                extractor.start()
                background.callback(extractor.stop)
            yield Endpoint(server, background)
    finally:
        pop_settings(settings)
        server.stop()
        if reset:
            BackendDict.reset()


def _resolve(settings: EmulatorSettings | None, **knobs: float | None) -> EmulatorSettings:
    """`settings` with the given knobs applied; the same object when none changes it, so
    callers keep a live handle on the settings they passed."""
    merged = (settings or EmulatorSettings()).merged(**knobs)
    return settings if settings is not None and merged == settings else merged


def fake_credentials_env(region: str = "us-east-1") -> dict[str, str]:
    """Environment variables for fake credentials and a default region."""
    return {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SECURITY_TOKEN": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": region,
        "AWS_REGION": region,
    }


@contextlib.contextmanager
def patched_env(values: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, old in saved.items():
            if old is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = old


_SERVE = """
import sys
from langgraph.store.dynamodb.testing import local_endpoint
with local_endpoint() as url:
    print(url, flush=True)
    sys.stdin.read()
"""


@contextlib.contextmanager
def local_endpoint_process(*, timeout: float = 30.0) -> Iterator[str]:
    """:func:`local_endpoint` (default knobs) in a child process; yields its URL.

    The emulator's CPU then runs beside your process instead of inside it, as DynamoDB's
    does: what load tests and benchmarks of your own code need. Give the clients any
    credentials and region. The child stops when the block exits (within ``timeout``).
    """
    import subprocess
    import sys

    server = subprocess.Popen(
        [sys.executable, "-c", _SERVE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert server.stdout is not None and server.stdin is not None
    try:
        url = server.stdout.readline().strip()
        if not url:
            raise RuntimeError(
                f"The local endpoint process exited with code {server.wait(timeout)} before "
                "printing its URL; run `python -m langgraph.store.dynamodb serve` to see why."
            )
        yield url
    finally:
        server.stdin.close()
        server.wait(timeout)
