"""The writes row: a checkpoint's pending writes, one attribute each (`w:<task>:<idx>`) of
the row beside its checkpoint row (`thread_keys.writes_sk`), so a `put_writes` is billed
for the writes alone; the UpdateItems that store a `put_writes`, and the writes a reader
sees (those of calls whose writes have all landed).
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langgraph.checkpoint.base import WRITES_IDX_MAP, PendingWrite, writes_sort_key
from langgraph.checkpoint.dynamodb.payloads import pack
from langgraph.checkpoint.dynamodb.rows import check_registry_key, dump, ttl_sets
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.store.dynamodb.table.schema import (
    BATCH,
    CHANNEL,
    CHUNKS_FIELD,
    IDX,
    PATH,
    SK,
    TASK,
    WRITE_PREFIX,
)
from langgraph.store.dynamodb.table.thread_keys import Thread, check_keys, write_field, writes_sk
from langgraph.store.dynamodb.table.updates import update_expression
from langgraph.store.dynamodb.table.values import MAX_EXPRESSION_BYTES, MAX_EXPRESSION_OPERATORS

# What a write holds inline in its writes row; a larger one goes to chunk rows (and so do
# all the writes of a call that would take the row past DynamoDB's 400 KB item limit).
WRITE_INLINE = 16_000


@dataclass
class WriteSet:
    """The pending writes of one `put_writes`: chunk rows, then UpdateItems of the writes
    row `sk` (`write_updates`), which give it the TTL attributes `ttl` (none: it never
    expires)."""

    sk: str
    ttl: dict[str, Any]
    chunks: list[dict[str, Any]]
    entries: dict[str, dict[str, Any]]  # attribute name -> the write's map
    overwrite: set[str]  # attributes that replace an earlier write (special channels)
    batch: str  # this call's id, marking its writes when they take several UpdateItems


@dataclass(frozen=True)
class WriteUpdate:
    """One UpdateItem of a `put_writes`: some of its writes, within DynamoDB's limits on
    one expression (4 KB, 300 operators: an ordinary write counts 2, a special one 1)."""

    names: list[str]
    expression: str
    attribute_names: dict[str, str]
    values: dict[str, Any]


def write_rows(
    serde: SerializerProtocol,
    thread: Thread,
    sk: str,
    writes: Sequence[tuple[str, Any]],
    task_id: str,
    task_path: str,
    ttl: dict[str, Any],
    inline_limit: int = WRITE_INLINE,
    batch: str | None = None,
) -> WriteSet:
    """The rows of a `put_writes` on the checkpoint row `sk`: its writes row and chunks. A
    chunked write's chunks are keyed by a fresh `nonce`, so a write that loses to an
    earlier one (ordinary writes keep the first) never overwrites the earlier one's
    chunks. Planned again (`batch` given), the writes keep their call's id."""
    sk = writes_sk(sk)
    result = WriteSet(sk, ttl, [], {}, set(), batch or uuid.uuid4().hex[:12])
    for idx, (channel, value) in enumerate(writes):
        slot = WRITES_IDX_MAP.get(channel, idx)
        name = write_field(task_id, slot)
        typed = dump(serde, value, f"write to channel {channel!r} of task {task_id!r} in {thread}")
        nonce = f"{name}:{uuid.uuid4().hex[:12]}"
        head, chunks = pack(thread.pk, sk, nonce, typed, inline_limit, ttl)
        entry = {TASK: task_id, CHANNEL: channel, PATH: task_path, IDX: slot, **head}
        if chunks:
            entry[CHUNKS_FIELD] = nonce
        result.entries[name] = entry
        result.chunks.extend(chunks)
        if slot < 0:
            result.overwrite.add(name)
    what = f"writes of {thread}"
    check_keys(thread.pk, [sk] + [r[SK] for r in result.chunks], what)
    check_registry_key(thread, what)
    return result


def write_updates(planned: WriteSet) -> list[WriteUpdate]:
    """The UpdateItems storing `planned`, as few as DynamoDB's expression limits allow
    (one up to about 110 writes). When there are several, each ordinary write is marked
    with the call's id and count, and readers show the call's writes only once all have
    landed (`visible_writes`): a task with some of its writes would pass for finished."""
    groups: list[list[str]] = [[]]
    for name in planned.entries:
        if groups[-1] and not _fits(_update(planned, groups[-1] + [name]), planned):
            groups.append([])
        groups[-1].append(name)
    if len(groups) > 1:
        marked = [name for name in planned.entries if name not in planned.overwrite]
        for name in marked:
            planned.entries[name][BATCH] = f"{planned.batch}:{len(marked)}"
    return [_update(planned, group) for group in groups]


def _update(planned: WriteSet, names: list[str]) -> WriteUpdate:
    """Special writes replace the task's earlier one; ordinary ones keep the first. Each
    update sets the row's TTL (the thread's: the writes live as long as its checkpoint)."""
    entries = {name: planned.entries[name] for name in names}
    update = update_expression(
        {**{n: e for n, e in entries.items() if n in planned.overwrite}, **ttl_sets(planned.ttl)},
        if_absent={n: e for n, e in entries.items() if n not in planned.overwrite},
    )
    return WriteUpdate(
        names,
        update["UpdateExpression"],
        update["ExpressionAttributeNames"],
        update["ExpressionAttributeValues"],
    )


def _fits(update: WriteUpdate, planned: WriteSet) -> bool:
    operators = sum(1 if name in planned.overwrite else 2 for name in update.names)
    operators += 2 if planned.ttl else 0
    return (
        len(update.expression.encode()) <= MAX_EXPRESSION_BYTES
        and operators <= MAX_EXPRESSION_OPERATORS
    )


def pending_writes(*rows: dict[str, Any] | None) -> list[tuple[str, dict[str, Any]]]:
    """The write maps of a checkpoint's writes row (and of the checkpoint row, where rows
    written before writes had a row of their own keep them), each with the sort key of
    the row holding it (its chunks' owner), in `writes_sort_key` order."""
    entries = [
        (str(row[SK]), value)
        for row in rows
        if row
        for name, value in row.items()
        if name.startswith(WRITE_PREFIX)
    ]
    return sorted(
        entries, key=lambda e: writes_sort_key(str(e[1][PATH]), str(e[1][TASK]), int(e[1][IDX]))
    )


def visible_writes(*rows: dict[str, Any] | None) -> list[tuple[str, dict[str, Any]]]:
    """`pending_writes` without those of a `put_writes` whose writes have not all landed
    (still being written, or cut short: then the task runs again, as if it had none)."""
    entries = pending_writes(*rows)
    landed = Counter(str(e[BATCH]) for _, e in entries if BATCH in e)
    return [
        (sk, e)
        for sk, e in entries
        if BATCH not in e or landed[str(e[BATCH])] == int(str(e[BATCH]).rsplit(":", 1)[1])
    ]


def as_pending(entry: dict[str, Any], value: Any) -> PendingWrite:
    """A write map and its loaded value as LangGraph's `(task_id, channel, value)`."""
    return (str(entry[TASK]), str(entry[CHANNEL]), value)
