"""The rows a checkpoint and its pending writes become, and back.

A checkpoint row (`thread_keys.checkpoint_sk`) holds the checkpoint without its channel
values (`cp`), its metadata (`md`), its parent's id and its run id, and one attribute per
pending write (`w:<task>:<idx>`), so one read returns a checkpoint with all its writes.
Each channel value is a row of its own per version (`b#...`), written once by the
checkpoint that introduced that version and shared by later checkpoints that did not
change the channel.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    PendingWrite,
    writes_sort_key,
)
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.store.dynamodb.table.schema import (
    BATCH,
    CHANNEL,
    CHUNKS_FIELD,
    CP,
    DATA,
    IDX,
    MD,
    PARENT,
    PATH,
    PK,
    RUN,
    RUN_KIND,
    SK,
    TASK,
    TENANT,
    THREAD_ID,
    WRITE_PREFIX,
)
from langgraph.store.dynamodb.table.thread_keys import (
    Thread,
    blob_sk,
    check_keys,
    checkpoint_sk,
    registry_pk,
    run_pk,
    run_sk,
    write_field,
)
from langgraph.store.dynamodb.table.values import MAX_EXPRESSION_BYTES, MAX_EXPRESSION_OPERATORS

from .payloads import CHUNK_BYTES, pack

# What one row may hold inline: the checkpoint and its metadata, a channel value, a write.
CHECKPOINT_INLINE = 100_000
BLOB_INLINE = CHUNK_BYTES
WRITE_INLINE = 16_000


class UnserializableValueError(TypeError):
    """A value the saver's serializer cannot encode; nothing was written."""


def dump(serde: SerializerProtocol, value: Any, what: str) -> tuple[str, bytes]:
    """`serde.dumps_typed(value)`, or an error naming what the value was."""
    try:
        return serde.dumps_typed(value)
    except Exception as error:
        raise UnserializableValueError(
            f"{what} holds a value the serializer cannot encode ({type(value).__name__}): "
            f"{error}. Nothing was written. Store plain data, or pass a serde that encodes it."
        ) from error


@dataclass
class RowSet:
    """Rows to write: chunks first (invisible until referenced), then the rows that make
    them visible (`commit`: UpdateItem/Put actions)."""

    chunks: list[dict[str, Any]] = field(default_factory=list)
    heads: list[dict[str, Any]] = field(default_factory=list)
    commit: list[dict[str, Any]] = field(default_factory=list)


def checkpoint_rows(
    serde: SerializerProtocol,
    thread: Thread,
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    new_versions: ChannelVersions,
    ttl: dict[str, Any],
) -> RowSet:
    """The rows of a `put`: the values of the channels in `new_versions` that hold one (a
    channel emptied at this version gets no row: readers find none and show no value),
    the checkpoint row, the thread's registry row for a thread's first checkpoint, and
    the run index row when the metadata names a run."""
    configurable = config["configurable"]
    ns = configurable.get("checkpoint_ns", "")
    parent_id = configurable.get("checkpoint_id")
    values: dict[str, Any] = checkpoint["channel_values"]
    copy = {k: v for k, v in checkpoint.items() if k != "channel_values"}
    sk = checkpoint_sk(ns, checkpoint["id"])
    rows = RowSet()
    for channel, version in new_versions.items():
        if channel not in values:
            continue  # emptied: a version without a row reads as no value, so none is written
        typed = dump(serde, values[channel], f"channel {channel!r} of {thread}")
        blob = blob_sk(ns, channel, version)
        head, chunks = pack(thread.pk, blob, DATA, typed, BLOB_INLINE, ttl)
        rows.heads.append({PK: thread.pk, SK: blob, **head, **ttl})
        rows.chunks.extend(chunks)
    cp_head, cp_chunks = pack(
        thread.pk, sk, CP, dump(serde, copy, f"checkpoint of {thread}"), CHECKPOINT_INLINE, ttl
    )
    md_head, md_chunks = pack(
        thread.pk, sk, MD, dump(serde, metadata, f"metadata of {thread}"), CHECKPOINT_INLINE, ttl
    )
    rows.chunks.extend(cp_chunks + md_chunks)
    attributes: dict[str, Any] = {CP: cp_head, MD: md_head, **ttl}
    if parent_id:
        attributes[PARENT] = parent_id
    run_id = metadata.get("run_id")
    if run_id:
        attributes[RUN] = str(run_id)
        rows.commit.append(
            {
                "Put": {
                    "Item": {
                        PK: run_pk(thread.tenant, str(run_id)),
                        SK: run_sk(thread.thread_id, ns, checkpoint["id"]),
                        **ttl,
                    }
                }
            }
        )
    rows.commit.insert(0, set_attributes(thread.pk, sk, attributes))
    if not parent_id:
        rows.commit.append({"Put": {"Item": registry_row(thread, ttl)}})
    what = f"checkpoint {checkpoint['id']!r} of {thread}"
    check_keys(thread.pk, [r[SK] for r in rows.chunks + rows.heads] + [sk], what)
    for action in rows.commit[1:]:  # the run index row and the thread's registry row
        item = action["Put"]["Item"]
        row = "run index row (run id, thread id)" if item[PK].startswith(RUN_KIND) else None
        check_keys(item[PK], [item[SK]], f"{what}, its {row or 'thread registry row (thread id)'}")
    return rows


def registry_row(thread: Thread, ttl: dict[str, Any]) -> dict[str, Any]:
    """The row listing a thread under its tenant."""
    return {
        PK: registry_pk(thread.tenant),
        SK: thread.thread_id,
        TENANT: thread.tenant,
        THREAD_ID: thread.thread_id,
        **ttl,
    }


def set_attributes(pk: str, sk: str, attributes: dict[str, Any]) -> dict[str, Any]:
    """An Update action setting `attributes` (other attributes, the writes, are kept)."""
    names = {f"#a{i}": name for i, name in enumerate(attributes)}
    values = {f":a{i}": value for i, value in enumerate(attributes.values())}
    return {
        "Update": {
            "Key": {PK: pk, SK: sk},
            "UpdateExpression": "SET " + ", ".join(f"#a{i} = :a{i}" for i in range(len(names))),
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
        }
    }


@dataclass
class WriteSet:
    """The pending writes of one `put_writes`: chunk rows, then UpdateItems
    (`write_updates`)."""

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
    values: dict[str, dict[str, Any]]


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
    """The rows of a `put_writes` on the checkpoint row `sk`. A chunked write's chunks are
    keyed by a fresh `nonce`, so a write that loses to an earlier one (ordinary writes
    keep the first) never overwrites the earlier one's chunks. Planned again (`batch`
    given), the writes keep their call's id."""
    result = WriteSet([], {}, set(), batch or uuid.uuid4().hex[:12])
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
    check_keys(thread.pk, [sk] + [r[SK] for r in result.chunks], f"writes of {thread}")
    return result


def write_updates(planned: WriteSet) -> list[WriteUpdate]:
    """The UpdateItems storing `planned`, as few as DynamoDB's expression limits allow
    (one up to about 110 writes). When there are several, each ordinary write is marked
    with the call's id and count, and readers show the call's writes only once all have
    landed (`visible_writes`): a task with some of its writes would pass for finished."""
    groups: list[list[str]] = [[]]
    for name in planned.entries:
        if groups[-1] and not _fits(_update(planned, groups[-1] + [name]), planned.overwrite):
            groups.append([])
        groups[-1].append(name)
    if len(groups) > 1:
        marked = [name for name in planned.entries if name not in planned.overwrite]
        for name in marked:
            planned.entries[name][BATCH] = f"{planned.batch}:{len(marked)}"
    return [_update(planned, group) for group in groups]


def _update(planned: WriteSet, names: list[str]) -> WriteUpdate:
    """Special writes replace the task's earlier one; ordinary ones keep the first."""
    sets = [
        f"#w{i} = :w{i}" if name in planned.overwrite else f"#w{i} = if_not_exists(#w{i}, :w{i})"
        for i, name in enumerate(names)
    ]
    return WriteUpdate(
        names,
        "SET " + ", ".join(sets),
        {f"#w{i}": name for i, name in enumerate(names)},
        {f":w{i}": planned.entries[name] for i, name in enumerate(names)},
    )


def _fits(update: WriteUpdate, overwrite: set[str]) -> bool:
    operators = sum(1 if name in overwrite else 2 for name in update.names)
    return (
        len(update.expression.encode()) <= MAX_EXPRESSION_BYTES
        and operators <= MAX_EXPRESSION_OPERATORS
    )


def pending_writes(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The write maps of a checkpoint row, in `writes_sort_key` order."""
    entries = [value for name, value in row.items() if name.startswith(WRITE_PREFIX)]
    return sorted(entries, key=lambda e: writes_sort_key(str(e[PATH]), str(e[TASK]), int(e[IDX])))


def visible_writes(row: dict[str, Any]) -> list[dict[str, Any]]:
    """`pending_writes` without those of a `put_writes` whose writes have not all landed
    (still being written, or cut short: then the task runs again, as if it had none)."""
    entries = pending_writes(row)
    landed = Counter(str(e[BATCH]) for e in entries if BATCH in e)
    return [
        e
        for e in entries
        if BATCH not in e or landed[str(e[BATCH])] == int(str(e[BATCH]).rsplit(":", 1)[1])
    ]


def as_pending(entry: dict[str, Any], value: Any) -> PendingWrite:
    """A write map and its loaded value as LangGraph's `(task_id, channel, value)`."""
    return (str(entry[TASK]), str(entry[CHANNEL]), value)
