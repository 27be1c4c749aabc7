"""How each call of the saver reaches the table: the thread it names (its config's, or
the thread id it is given, under the tenant of the saver's `scope`), and its step run on
the saver's pool with DynamoDB's errors worded for the saver (`Access.guard`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypedDict, TypeVar

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple
from langgraph.checkpoint.dynamodb import listing
from langgraph.checkpoint.dynamodb.access import Access
from langgraph.checkpoint.dynamodb.scope import Scope, check_thread_id
from langgraph.store.dynamodb.table.lifecycle import Owner
from langgraph.store.dynamodb.table.thread_keys import Thread

R = TypeVar("R")


class CheckpointTTL(TypedDict, total=False):
    """Expiry of a thread's rows, in minutes (like the store's `TTLConfig`)."""

    default_ttl: float | None
    refresh_on_read: bool


class Calls(Owner, BaseCheckpointSaver[str]):
    """The settings every call reads (set by the saver's constructor), the thread it
    names, `_run`, which runs its step, and the pages `list` and `alist` read."""

    ttl_config: CheckpointTTL
    consistent_read: bool
    _scope: Scope

    @property
    def tenant_key(self) -> str | None:
        """The `configurable` key naming a thread's tenant (None: threads have none)."""
        return self._scope.tenant_key

    @property
    def _access(self) -> Access:
        self._check_open()
        return Access(
            client=self._client,
            table=self.table_name,
            serde=self.serde,
            consistent=self.consistent_read,
            ttl_minutes=self.ttl_config.get("default_ttl"),
            refresh_on_read=bool(self.ttl_config.get("refresh_on_read", True)),
        )

    def _thread(self, config: RunnableConfig | None) -> Thread:
        self._check_open()
        return self._scope.thread(config)

    def _bound_thread(self, thread_id: str) -> Thread:
        check_thread_id(thread_id)
        return Thread(self._bound_tenant(), str(thread_id))

    def _bound_tenant(self) -> str:
        self._check_open()
        return self._scope.bound_tenant()

    def _pages(
        self,
        config: RunnableConfig | None,
        filter: dict[str, Any] | None,
        before: RunnableConfig | None,
        limit: int | None,
    ) -> Iterator[list[CheckpointTuple]]:
        """`list`'s pages (and `alist`'s), each read when asked for."""
        return listing.pages(self._access, self._scope, config, filter, before, limit)

    def _run(self, thread: Thread | None, step: Callable[..., R], *args: Any) -> R:
        """`step(access, *args)` on the pool, DynamoDB's errors worded for the saver."""

        def guarded() -> R:
            access = self._access
            with access.guard(thread):
                return step(access, *args)

        return self._pool.run(guarded)
