"""Threads as row sources of a purge (`DynamoDBStore.purge(prefix, sources=...)`): a
tenant's, those of savers without a tenant key, or every thread of the table. A purge of a
tenant's threads erases what extraction kept for it too (`tenant_sources`: extraction
forms memories from the threads, and its rows are declared in `table.extraction_rows`).

A tenant's threads come as its runs' index rows, every row of each of its threads, then
its thread registry, in that order, so a purge killed at any point finds the rest when
run again (the registry lists the threads; the checkpoint rows and the run links, which
live as long as the run index rows, lead to those). A thread the purge finds holding rows
after its registry row went (a writer finished a step meanwhile) is listed again and
reported, so the rerun finds it.

Each source also says which partitions it owns, so a purge that sweeps the table
with a Scan (`scan=True`, `--verify-scan`) finds the rows no registry lists: a thread
whose registry row expired or was never written. Every thread of the table (`--all-tenants`)
can only be found that way: no row lists the tenants."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from langgraph.checkpoint.dynamodb.access import Access
from langgraph.checkpoint.dynamodb.rows import registry_row
from langgraph.checkpoint.dynamodb.upkeep import run_keys
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.store.dynamodb.table.extraction_rows import extraction_sources
from langgraph.store.dynamodb.table.keys import Namespace
from langgraph.store.dynamodb.table.row_kinds import RUN_INDEX_ROWS, THREAD_REGISTRY, THREAD_ROWS
from langgraph.store.dynamodb.table.row_sources import RowSource
from langgraph.store.dynamodb.table.schema import (
    CHECKPOINT,
    PK,
    RUN_KIND,
    RUN_LINK,
    SK,
    THREAD_KIND,
)
from langgraph.store.dynamodb.table.thread_keys import Thread, registry_pk, run_pk

Key = dict[str, str]


def tenant_sources(client: Any, table: str, tenant: str) -> list[RowSource]:
    """Every row source of a tenant beyond its memories' namespaces: its threads
    (`thread_sources`), then what extraction kept for it (`extraction_sources`); `""`
    names the savers without a tenant key. Threads go first: a run that starts once its
    cursor is gone finds no thread to read again (it would form every memory anew), and
    one that read the thread before finds its cursor gone when it writes."""
    threads = (
        untenanted_thread_sources(client, table)
        if tenant == ""
        else thread_sources(client, table, tenant)
    )
    return threads + extraction_sources(client, table, tenant)


def thread_sources(client: Any, table: str, tenant: str) -> list[RowSource]:
    """The row sources that erase `tenant`'s threads (a saver with `tenant_key`): expired
    rows included. A thread listed once stays listed for the purge's verification, so a
    checkpoint written into it meanwhile is reported, not missed."""
    if not isinstance(tenant, str) or not tenant:
        raise ValueError(
            f"the tenant whose threads to erase must be named, got {tenant!r} (the threads "
            "of savers without a tenant_key: untenanted_thread_sources)"
        )
    return _tenant_sources(client, table, tenant)


def untenanted_thread_sources(client: Any, table: str) -> list[RowSource]:
    """The row sources that erase every thread of the savers without a `tenant_key`."""
    return _tenant_sources(client, table, "")


def every_thread_sources() -> list[RowSource]:
    """Every thread of the table, of every tenant and of savers without a tenant key, for
    a purge of every tenant (`all_tenants=True`, or `scan=True`): no row lists the
    tenants, so only the purge's Scan finds them, by the partitions these sources own."""

    def unlisted(_: Namespace) -> Iterator[Key]:
        raise ValueError(
            "Every tenant's threads are found only by a purge's Scan: purge with "
            "all_tenants=True or scan=True."
        )

    return [
        RowSource(RUN_INDEX_ROWS, unlisted, lambda pk: pk.startswith(RUN_KIND)),
        RowSource(THREAD_ROWS, unlisted, lambda pk: _is_thread(pk, None)),
        RowSource(THREAD_REGISTRY, unlisted, lambda pk: _is_registry(pk, None)),
    ]


def _holds_rows(access: Access, thread: Thread) -> bool:
    """Whether the thread's partition holds a row (expired or not): one Query of a key."""
    found = access.query(thread.pk, expired_too=True, Limit=1, ProjectionExpression="#pk")
    return next(found, None) is not None


def _is_thread(pk: str, tenant: str | None) -> bool:
    """Whether `pk` is a thread's partition (of `tenant`; of any for None)."""
    if tenant is not None:
        return pk.startswith(registry_pk(tenant) + "/")
    return pk.startswith(THREAD_KIND) and "/" in pk[len(THREAD_KIND) :]


def _is_registry(pk: str, tenant: str | None) -> bool:
    """Whether `pk` is a thread registry partition (of `tenant`; of any for None)."""
    if tenant is not None:
        return pk == registry_pk(tenant)
    return pk.startswith(THREAD_KIND) and "/" not in pk[len(THREAD_KIND) :]


def _tenant_sources(client: Any, table: str, tenant: str) -> list[RowSource]:
    access = Access(client, table, JsonPlusSerializer(), True, None, False)
    seen: dict[Thread, None] = {}

    def listed() -> list[str]:
        """The thread ids the registry lists now (each joins `seen`)."""
        ids = [str(row[SK]) for row in access.query(registry_pk(tenant), expired_too=True)]
        for thread_id in ids:
            seen.setdefault(Thread(tenant, thread_id))
        return ids

    def threads() -> list[Thread]:
        listed()
        return list(seen)

    def runs(_: Namespace) -> Iterator[Key]:
        for thread in threads():
            leading = [
                row
                for prefix in (CHECKPOINT, RUN_LINK)
                for row in access.query(thread.pk, prefix, expired_too=True)
            ]
            yield from run_keys(thread, leading)

    def rows(_: Namespace) -> Iterator[Key]:
        for thread in threads():
            for row in access.query(thread.pk, expired_too=True):
                yield {PK: row[PK], SK: row[SK]}

    def registry(_: Namespace) -> Iterator[Key]:
        now = set(listed())
        for thread in list(seen):
            if thread.thread_id not in now:
                if not _holds_rows(access, thread):
                    continue
                # A writer that trusts the registry row it wrote before the purge deleted
                # it (`known.TRUST_SECONDS`) does not list the thread again: the purge does.
                access.write([registry_row(thread, {})], [])
            yield {PK: registry_pk(tenant), SK: thread.thread_id}

    runs_prefix = run_pk(tenant, "")
    return [
        RowSource(RUN_INDEX_ROWS, runs, lambda pk: pk.startswith(runs_prefix)),
        RowSource(THREAD_ROWS, rows, lambda pk: _is_thread(pk, tenant)),
        RowSource(THREAD_REGISTRY, registry, lambda pk: _is_registry(pk, tenant)),
    ]
