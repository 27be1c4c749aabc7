"""`list`'s pages: a thread's checkpoints newest first, read by one Query per page (a
checkpoint row and its writes row are two rows of it) and loaded a page at a time
(`loading`); metadata stored inline is matched against a filter before any value is
fetched."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import CheckpointTuple, get_checkpoint_id
from langgraph.checkpoint.dynamodb import upkeep
from langgraph.checkpoint.dynamodb.access import Access
from langgraph.checkpoint.dynamodb.loading import Key, checkpoints_collecting, load
from langgraph.checkpoint.dynamodb.payloads import unpack
from langgraph.checkpoint.dynamodb.scope import Scope
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.store.dynamodb.table.schema import MD, PK, SK
from langgraph.store.dynamodb.table.thread_keys import (
    Thread,
    checkpoint_sk,
    checkpoints_prefix,
    parse_checkpoint_sk,
)

# Rows a listing asks for per Query when a metadata filter may drop some.
LIST_PAGE = 50


def pages(
    access: Access,
    scope: Scope,
    config: RunnableConfig | None,
    filter: dict[str, Any] | None,
    before: RunnableConfig | None,
    limit: int | None,
) -> Iterator[list[CheckpointTuple]]:
    """The checkpoints of the thread `config` names (in its namespace when it names one;
    every thread of the scope's tenant for None, from the registry), newest first, in
    pages, at most `limit` in all. Nothing is read before the first page is asked for."""
    if limit is not None and limit <= 0:
        return
    if config is not None:
        threads = [scope.thread(config)]
    else:
        with access.guard(None):
            threads = upkeep.threads(access, scope.bound_tenant())
    configurable = (config or {}).get("configurable") or {}
    ns = configurable.get("checkpoint_ns")
    checkpoint_id = get_checkpoint_id(config) if config else None
    before_id = get_checkpoint_id(before) if before else None
    left = limit
    for thread in threads:
        extra = scope.extra(thread)
        for page in _thread_pages(
            access, thread, ns, checkpoint_id, before_id, filter, left, extra
        ):
            if left is not None:
                page = page[:left]
                left -= len(page)
            if page:
                yield page
            if left == 0:
                return


def _thread_pages(
    access: Access,
    thread: Thread,
    ns: str | None,
    checkpoint_id: str | None,
    before_id: str | None,
    filter: dict[str, Any] | None,
    limit: int | None,
    extra: dict[str, Any],
) -> Iterator[list[CheckpointTuple]]:
    page_size = LIST_PAGE if filter or limit is None else min(limit + 1, LIST_PAGE)
    below = checkpoint_sk(ns, before_id) if before_id and ns is not None else None
    # A checkpoint and its writes row are two rows of the Query.
    paging: dict[str, Any] = {} if ns is None else {"Limit": 2 * page_size}
    with access.guard(thread):
        found: Iterable[dict[str, Any]] = access.query(
            thread.pk,
            checkpoints_prefix(ns),
            below=below,
            ScanIndexForward=False,
            **paging,
        )
        writes: dict[Key, dict[str, Any]] = {}
        rows = checkpoints_collecting(found, writes)
        if ns is None:
            # Key order is namespace first: across namespaces, newest first means by
            # checkpoint id, so every checkpoint row of the thread is read (the same
            # one Query while they fit 1 MB) before the first page is loaded.
            rows = iter(sorted(rows, key=lambda r: parse_checkpoint_sk(r[SK])[1], reverse=True))
        page: list[dict[str, Any]] = []
        for row in rows:
            if _wanted(access.serde, row, checkpoint_id, before_id, filter):
                page.append(row)
            if len(page) == page_size:
                yield _matching(access, page, writes, extra, filter)
                page = []
        if page:
            yield _matching(access, page, writes, extra, filter)


def _wanted(
    serde: SerializerProtocol,
    row: dict[str, Any],
    checkpoint_id: str | None,
    before_id: str | None,
    filter: dict[str, Any] | None,
) -> bool:
    _, row_id = parse_checkpoint_sk(row[SK])
    if checkpoint_id and row_id != checkpoint_id:
        return False
    if before_id and row_id >= before_id:
        return False
    # Metadata stored inline is checked here, before any value is fetched; chunked
    # metadata is checked once loaded (`_matching`).
    typed = unpack(row[PK], row[SK], MD, row[MD], {}) if filter else None
    if filter and typed is not None:
        found = serde.loads_typed(typed)
        return all(found.get(k) == v for k, v in filter.items())
    return True


def _matching(
    access: Access,
    rows: list[dict[str, Any]],
    writes: dict[Key, dict[str, Any]],
    extra: dict[str, Any],
    filter: dict[str, Any] | None,
) -> list[CheckpointTuple]:
    tuples = [loaded.tuple for loaded in load(access, rows, writes, extra)]
    if not filter:
        return tuples
    return [t for t in tuples if all(t.metadata.get(k) == v for k, v in filter.items())]
