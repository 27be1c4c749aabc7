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

from .pool import StorePool


class Owner(abc.ABC):
    """Owns `_client` and `_pool`; refuses operations once `_closed`."""

    table_name: str
    _client: Any
    _pool: StorePool
    _closed: bool

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)  # cooperative: the next base gets what it takes

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
