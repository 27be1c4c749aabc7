"""A tenant's threads as row sources of a purge (`DynamoDBStore.purge(prefix,
sources=...)`): its runs' index rows, every row of each of its threads, then its thread
registry, in that order, so a purge killed at any point finds the rest when run again
(the registry lists the threads; the checkpoint rows lead to the run index rows)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.store.dynamodb.table.keys import Namespace
from langgraph.store.dynamodb.table.row_sources import RowSource
from langgraph.store.dynamodb.table.schema import CHECKPOINT, PK, SK
from langgraph.store.dynamodb.table.thread_keys import Thread, registry_pk

from .access import Access
from .upkeep import run_keys

Key = dict[str, str]


def thread_sources(client: Any, table: str, tenant: str) -> list[RowSource]:
    """The row sources that erase `tenant`'s threads (a saver with `tenant_key`): expired
    rows included. A thread listed once stays listed for the purge's verification, so a
    checkpoint written into it meanwhile is reported, not missed."""
    if not isinstance(tenant, str) or not tenant:
        raise ValueError(f"the tenant whose threads to erase must be named, got {tenant!r}")
    access = Access(client, table, JsonPlusSerializer(), True, None, False)
    seen: dict[Thread, None] = {}

    def threads() -> list[Thread]:
        for row in access.query(registry_pk(tenant), expired_too=True):
            seen.setdefault(Thread(tenant, str(row[SK])))
        return list(seen)

    def runs(_: Namespace) -> Iterator[Key]:
        for thread in threads():
            yield from run_keys(thread, list(access.query(thread.pk, CHECKPOINT, expired_too=True)))

    def rows(_: Namespace) -> Iterator[Key]:
        for thread in threads():
            for row in access.query(thread.pk, expired_too=True):
                yield {PK: row[PK], SK: row[SK]}

    def registry(_: Namespace) -> Iterator[Key]:
        for row in access.query(registry_pk(tenant), expired_too=True):
            yield {PK: row[PK], SK: row[SK]}

    return [
        RowSource("thread run index", runs),
        RowSource("thread rows", rows),
        RowSource("thread registry", registry),
    ]
