"""The saver's async calls: each awaits its sync twin on the saver's pool of threads
(`pool.StorePool.arun`), so the event loop never waits for DynamoDB, and a cancelled
call that has not started never starts."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    DeltaChannelHistory,
)
from langgraph.checkpoint.dynamodb.calls import Calls
from langgraph.checkpoint.dynamodb.pruning import check_strategy


class AsyncTwins(Calls):
    """`aget_tuple`, `alist`, `aput`, `aput_writes`, `adelete_thread`, `acopy_thread`,
    `aprune`, `adelete_for_runs`, `aget_delta_channel_history`: the sync calls, awaited
    on the pool; `alist` reads a page per hop, as `list` does."""

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        self._check_open()
        found: CheckpointTuple | None = await self._pool.arun(self.get_tuple, config)
        return found

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        self._check_open()
        pages = self._pages(config, filter, before, limit)
        while (page := await self._pool.arun(next, pages, None)) is not None:
            for item in page:
                yield item

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        self._check_open()
        stored: RunnableConfig = await self._pool.arun(
            self.put, config, checkpoint, metadata, new_versions
        )
        return stored

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        self._check_open()
        await self._pool.arun(self.put_writes, config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        self._check_open()
        await self._pool.arun(self.delete_thread, thread_id)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        self._check_open()
        await self._pool.arun(self.copy_thread, source_thread_id, target_thread_id)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        self._check_open()
        check_strategy(strategy)
        await self._pool.arun(lambda: self.prune(thread_ids, strategy=strategy))

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        self._check_open()
        if run_ids:
            await self._pool.arun(self.delete_for_runs, run_ids)

    async def aget_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Mapping[str, DeltaChannelHistory]:
        """`get_delta_channel_history` on the saver's threads."""
        self._check_open()
        if not channels:
            return {}
        call = functools.partial(self.get_delta_channel_history, config=config, channels=channels)
        found: Mapping[str, DeltaChannelHistory] = await self._pool.arun(call)
        return found
