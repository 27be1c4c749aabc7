"""The lifecycle the store and the checkpointer share: each owns a boto3 client and a pool
of threads (`pool.StorePool`), is set up with `setup()`, and is closed by `close()` or by
leaving a `with` / `async with` block."""

from __future__ import annotations

import abc
import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from types import TracebackType
from typing import Any, Self

import boto3
from botocore.config import Config
from langgraph.store.dynamodb.table import dynamo
from langgraph.store.dynamodb.table.pool import StorePool
from langgraph.store.dynamodb.table.usage import UsageHook, UsageMeter


class Owner(abc.ABC):
    """Owns `_client` and `_pool`; refuses operations once `_closed`."""

    table_name: str
    max_concurrency: int
    max_connections: int
    _client: Any
    _usage: UsageMeter
    _pool: StorePool
    _closed: bool

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)  # cooperative: the next base gets what it takes

    def _open(
        self,
        table_name: str,
        *,
        region_name: str | None,
        endpoint_url: str | None,
        boto3_session: boto3.Session | None,
        boto_config: Config | None,
        max_concurrency: int,
        max_connections: int | None,
        on_usage: UsageHook | None,
        threads: str,
    ) -> None:
        """Open the client (botocore's pool sized by `_connections`), its usage meter and
        the pool of `max_concurrency` threads named `threads`."""
        connections = _connections(max_concurrency, max_connections, boto_config)
        self.table_name = table_name
        self.max_concurrency = max_concurrency
        self.max_connections = connections
        self._closed = False
        self._client = dynamo.make_client(
            region_name=region_name,
            endpoint_url=endpoint_url,
            boto3_session=boto3_session,
            boto_config=Config(max_pool_connections=connections).merge(boto_config or Config()),
        )
        self._usage = UsageMeter(on_usage, table_name)
        self._usage.attach(self._client)
        self._pool = StorePool(max_concurrency, name=f"{threads}-{table_name}")

    @property
    def client(self) -> Any:
        """The boto3 DynamoDB client it talks through."""
        return self._client

    @abc.abstractmethod
    def setup(self) -> None:
        """Create or check what the table needs."""

    async def asetup(self) -> None:
        """Async `setup`."""
        await asyncio.to_thread(self.setup)

    @classmethod
    @contextlib.contextmanager
    def from_table(cls, table_name: str, *, setup: bool = False, **kwargs: Any) -> Iterator[Self]:
        """`with Class.from_table("agent-memory", region_name=...) as it:` on `table_name`
        (keywords as for the constructor), set up first when `setup` is true, closed on
        exit. The counterpart of the Postgres peers' `from_conn_string`."""
        with cls(table_name, **kwargs) as made:
            if setup:
                made.setup()
            yield made

    @classmethod
    @contextlib.asynccontextmanager
    async def afrom_table(
        cls, table_name: str, *, setup: bool = False, **kwargs: Any
    ) -> AsyncIterator[Self]:
        """Async `from_table`: `async with Class.afrom_table(...) as it:`."""
        async with cls(table_name, **kwargs) as made:
            if setup:
                await made.asetup()
            yield made

    def close(self) -> None:
        """Let operations in flight finish, then stop the threads and release the
        client's connections. Further operations are refused."""
        self._closed = True
        self._pool.close()
        self._client.close()

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(
                f"This {type(self).__name__} on {self.table_name!r} is closed; create a new one."
            )

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await asyncio.to_thread(self.close)


def _connections(
    max_concurrency: int, max_connections: int | None, boto_config: Config | None
) -> int:
    """botocore's pool size: `max_connections`, else the one `boto_config` sets, else
    `max_concurrency`; never below `max_concurrency` (requests past the pool would open
    and discard a connection each) and never two different explicit sizes."""
    if (
        not isinstance(max_concurrency, int)
        or isinstance(max_concurrency, bool)
        or (max_concurrency < 1)
    ):
        raise ValueError(f"max_concurrency must be a positive integer, got {max_concurrency!r}")
    explicit: dict[str, Any] = getattr(boto_config, "_user_provided_options", {})
    configured: int | None = explicit.get("max_pool_connections")
    if max_connections is not None and configured is not None and configured != max_connections:
        raise ValueError(
            f"max_connections={max_connections} disagrees with boto_config's "
            f"max_pool_connections={configured}: set only one of them."
        )
    connections = max_connections or configured or max_concurrency
    if not isinstance(connections, int) or connections < max_concurrency:
        raise ValueError(
            f"max_connections={connections!r} is below max_concurrency={max_concurrency}: "
            "requests past the pool would each open a new connection. Raise max_connections "
            "or lower max_concurrency."
        )
    return connections
