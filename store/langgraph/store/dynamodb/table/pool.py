"""The store's own threads: every operation, sync or async, runs its DynamoDB requests on
one pool of `max_concurrency` workers, and its fan-out shares that pool (see
docs/concurrency.md). The async bridge never blocks the event loop."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from langgraph.store.dynamodb.table import dynamo

R = TypeVar("R")


class StorePool:
    """A pool of `workers` threads running a store's operations."""

    def __init__(self, workers: int, *, name: str) -> None:
        self._workers = workers
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)
        self._warm = threading.Lock()
        self._warmed: Future[None] = Future()

    def close(self) -> None:
        """Let the operations in flight finish, then stop the threads."""
        self._executor.shutdown(wait=True)

    def submit(self, fn: Callable[..., R], *args: Any) -> Future[R]:
        """Run `fn(*args)` on the pool, in the caller's context (clock, tracing), with its
        fan-out on the same pool."""

        def run() -> R:
            with dynamo.fan_out_on(self._executor):
                return fn(*args)

        return self._executor.submit(contextvars.copy_context().run, run)

    def run(self, fn: Callable[..., R], *args: Any) -> R:
        """`fn(*args)` on the pool; inline when already on it (a nested call must not wait
        for a free worker that only it could release)."""
        if dynamo.current_executor() is self._executor:
            return fn(*args)
        return self.submit(fn, *args).result()

    async def arun(self, fn: Callable[..., R], *args: Any) -> R:
        """Await `fn(*args)` on the pool. On cancellation, a call not yet started never
        starts; one already running finishes first, then the cancellation is raised."""
        if not self._warmed.done():
            if self._warm.acquire(blocking=False):
                threading.Thread(target=self._start_workers, daemon=True).start()
            await asyncio.shield(asyncio.wrap_future(self._warmed))
        job = self.submit(fn, *args)
        done = asyncio.wrap_future(job)
        try:
            return await asyncio.shield(done)
        except asyncio.CancelledError:
            if not job.cancel():
                await _uncancellable(done)
            raise

    def _start_workers(self) -> None:
        """Start every worker from this helper thread: starting a thread waits for the
        GIL, which a busy pool holds, and the event loop must not wait for it."""
        gate = threading.Event()
        with contextlib.suppress(RuntimeError):  # closed meanwhile
            for _ in range(self._workers):
                self._executor.submit(gate.wait, 5.0)
        gate.set()
        self._warmed.set_result(None)


async def _uncancellable(done: asyncio.Future[Any]) -> None:
    """Wait for `done` through any further cancellations; its outcome is consumed."""
    while not done.done():
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait([done])
    if not done.cancelled():
        done.exception()
