"""The rows a checkpoint and its pending writes become, and back.

A checkpoint row (`thread_keys.checkpoint_sk`) holds the checkpoint without its channel
values (`cp`), its metadata (`md`), its parent's id and its run id, the values of its
channels (`cv`), so one read returns a checkpoint with its values, and the values live
exactly as long as the checkpoint. Its pending writes are one attribute each
(`w:<task>:<idx>`) of its writes row (`thread_keys.writes_sk`), which sorts right after
it: a Query reads both, and a `put_writes` is billed for the writes alone (an update is
billed at the whole item's size). A large value (or a `DeltaChannel` snapshot) is a row
of its own per version (`b#...`), written once by the checkpoint that introduced that
version and shared by later checkpoints that did not change the channel (`cx` names
those channels). Rows of
earlier versions hold no `cv`: every channel is a value row.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable, Sequence
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
from langgraph.checkpoint.dynamodb.payloads import CHUNK_BYTES, chunk_keys, pack
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.checkpoint.serde.types import _DeltaSnapshot
from langgraph.store.dynamodb.table.schema import (
    BATCH,
    CHANNEL,
    CHUNKS_FIELD,
    COUNT,
    CP,
    DATA,
    EXPIRES_AT,
    EXTERNAL,
    EXTERNAL_CHUNKS,
    IDX,
    MD,
    PARENT,
    PATH,
    PK,
    RUN,
    SK,
    TASK,
    TENANT,
    THREAD_ID,
    TTL_MINUTES,
    TYPE,
    VALUES,
    WRITE_PREFIX,
)
from langgraph.store.dynamodb.table.thread_keys import (
    Thread,
    blob_sk,
    check_keys,
    checkpoint_sk,
    parse_checkpoint_sk,
    registry_pk,
    run_link_sk,
    run_pk,
    run_sk,
    write_field,
    writes_sk,
)
from langgraph.store.dynamodb.table.updates import update_expression
from langgraph.store.dynamodb.table.values import (
    MAX_EXPRESSION_BYTES,
    MAX_EXPRESSION_OPERATORS,
    MAX_ITEM_BYTES,
)

# What one row may hold inline: the checkpoint and its metadata, a channel value in a value
# row, a write. A checkpoint row holds channel values up to `VALUES_INLINE` bytes in all,
# so with its checkpoint and metadata it stays under DynamoDB's 400 KB item limit (a
# write that would pass it in its writes row goes to chunk rows). A value the put did not
# change is inline only up to `VALUE_INLINE`: a larger one is a value row, written once
# and referenced by the checkpoints that keep it, not rewritten by each.
CHECKPOINT_INLINE = 100_000
BLOB_INLINE = CHUNK_BYTES
WRITE_INLINE = 16_000
VALUE_INLINE = 64_000
VALUES_INLINE = 180_000
# What a checkpoint row keeps for its keys, parent, run id, TTL and attribute names.
ROW_MARGIN = 12_000
# A row's TTL attributes: set together, removed together.
TTL_PAIR = (EXPIRES_AT, TTL_MINUTES)


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
    """A put's rows: chunks first (invisible until referenced), then the value rows they
    belong to (`heads`), then the checkpoint row (`checkpoint`: its key and the
    attributes an update sets, keeping writes stored meanwhile). `registry` and `run` (with
    `link`, its copy in the thread's partition) are the rows a put rewrites only when
    they may expire before the checkpoint; `referenced` the value rows of earlier puts the
    checkpoint reads (head keys)."""

    chunks: list[dict[str, Any]] = field(default_factory=list)
    heads: list[dict[str, Any]] = field(default_factory=list)
    checkpoint: dict[str, Any] = field(default_factory=dict)
    registry: dict[str, Any] = field(default_factory=dict)
    run: dict[str, Any] | None = None
    link: dict[str, Any] | None = None
    referenced: list[dict[str, str]] = field(default_factory=list)


def checkpoint_rows(
    serde: SerializerProtocol,
    thread: Thread,
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    new_versions: ChannelVersions,
    ttl: dict[str, Any],
    keep: dict[str, Any],
    stored: Callable[[str], int | None],
) -> RowSet:
    """The rows of a `put`. Channel values sit in the checkpoint row (`VALUES`) up to
    `VALUES_INLINE` bytes in all, those not in `new_versions` up to `VALUE_INLINE` each;
    a larger value, or a
    `DeltaChannel` snapshot (later checkpoints name its version without its value), is a
    value row of its own, written when its version is new or `stored(its key)` (its
    chunk count, None when unknown) is not known, else referenced. A channel with a
    version and no value reads the value row of that version when the version is not new
    and the row is known to be stored (an earlier snapshot, which the saver wrote or
    read), and no value otherwise (emptied, so a read asks for no missing row). The row
    records each value row's chunk count (`EXTERNAL_CHUNKS`). `ttl` goes on the rows
    written for the checkpoint, `keep` on the registry, run index and run link rows.
    Every key is checked before anything is written."""
    configurable = config["configurable"]
    ns = configurable.get("checkpoint_ns", "")
    parent_id = configurable.get("checkpoint_id")
    values: dict[str, Any] = checkpoint["channel_values"]
    copy = {k: v for k, v in checkpoint.items() if k != "channel_values"}
    sk = checkpoint_sk(ns, checkpoint["id"])
    rows = RowSet()
    inline: dict[str, Any] = {}
    external: dict[str, int] = {}  # channel -> its value row's chunk count
    cp_head, cp_chunks = pack(
        thread.pk, sk, CP, dump(serde, copy, f"checkpoint of {thread}"), CHECKPOINT_INLINE, ttl
    )
    md_head, md_chunks = pack(
        thread.pk, sk, MD, dump(serde, metadata, f"metadata of {thread}"), CHECKPOINT_INLINE, ttl
    )
    # The values share the row with the checkpoint and metadata inline, and with each
    # channel's name (twice at most: `cx`, `cn`); keys and the rest fit `ROW_MARGIN`.
    names = sum(2 * len(c.encode()) for c in checkpoint["channel_versions"])
    room = MAX_ITEM_BYTES - ROW_MARGIN - _inline(cp_head) - _inline(md_head) - names
    budget = min(VALUES_INLINE, room)
    for channel, version in checkpoint["channel_versions"].items():
        blob = blob_sk(ns, channel, version)
        if channel not in values:
            if channel not in new_versions and (count := stored(blob)) is not None:
                external[channel] = count
                rows.referenced.append({PK: thread.pk, SK: blob})
            continue
        value = values[channel]
        typed = dump(serde, value, f"channel {channel!r} of {thread}")
        size = len(typed[1])
        limit = budget if channel in new_versions else min(VALUE_INLINE, budget)
        cost = size + len(typed[0]) + len(TYPE) + len(DATA)  # and the name, counted above
        if not isinstance(value, _DeltaSnapshot) and cost <= limit:
            inline[channel] = {TYPE: typed[0], DATA: typed[1]}
            budget -= cost
            continue
        if channel not in new_versions and (count := stored(blob)) is not None:
            external[channel] = count
            rows.referenced.append({PK: thread.pk, SK: blob})
            continue
        head, chunks = pack(thread.pk, blob, DATA, typed, BLOB_INLINE, ttl)
        external[channel] = len(chunks)
        rows.heads.append({PK: thread.pk, SK: blob, **head, **ttl})
        rows.chunks.extend(chunks)
    rows.chunks.extend(cp_chunks + md_chunks)
    attributes: dict[str, Any] = {CP: cp_head, MD: md_head, VALUES: inline, **ttl}
    if external:
        attributes[EXTERNAL] = list(external)
        attributes[EXTERNAL_CHUNKS] = external
    if parent_id:
        attributes[PARENT] = parent_id
    run_id = metadata.get("run_id")
    if run_id:
        attributes[RUN] = str(run_id)
        rows.run = {
            PK: run_pk(thread.tenant, str(run_id)),
            SK: run_sk(thread.thread_id, ns),
            **keep,
        }
        rows.link = {PK: thread.pk, SK: run_link_sk(str(run_id), ns), **keep}
    rows.checkpoint = {PK: thread.pk, SK: sk, **attributes}
    rows.registry = registry_row(thread, keep)
    what = f"checkpoint {checkpoint['id']!r} of {thread}"
    links = [rows.link[SK]] if rows.link else []
    keys = [r[SK] for r in rows.chunks + rows.heads] + [sk, writes_sk(sk)] + links
    check_keys(thread.pk, keys, what)
    check_registry_key(thread, what)
    if rows.run is not None:
        check_keys(rows.run[PK], [rows.run[SK]], f"{what}, its run index row (run id, thread id)")
    return rows


def _inline(head: dict[str, Any]) -> int:
    """The bytes a serialized value's head holds in its row (none when chunked)."""
    data = head.get(DATA)
    return len(data) if isinstance(data, bytes) else 0


def check_registry_key(thread: Thread, what: str) -> None:
    """Raise `KeyTooLongError` when the thread's registry row (thread id as sort key)
    would have a key DynamoDB refuses."""
    check_keys(registry_pk(thread.tenant), [thread.thread_id], f"{what}, its thread registry row")


def registry_row(thread: Thread, ttl: dict[str, Any]) -> dict[str, Any]:
    """The row listing a thread under its tenant."""
    return {
        PK: registry_pk(thread.tenant),
        SK: thread.thread_id,
        TENANT: thread.tenant,
        THREAD_ID: thread.thread_id,
        **ttl,
    }


def keep_alive(key: dict[str, str], ttl: dict[str, Any]) -> dict[str, Any]:
    """An Update action giving an existing row the TTL attributes `ttl` (removing them
    when `ttl` is empty: the row then never expires); cancelled if the row is gone."""
    update = update_expression(_ttl_sets(ttl), removes=() if ttl else TTL_PAIR)
    update["ExpressionAttributeNames"]["#pk"] = PK
    return {
        "Update": {
            "Key": {PK: key[PK], SK: key[SK]},
            "ConditionExpression": "attribute_exists(#pk)",
            **update,
        }
    }


def _ttl_sets(ttl: dict[str, Any]) -> dict[str, Any]:
    """The TTL attributes an update sets from `ttl` (none when it is empty)."""
    return {name: ttl[name] for name in TTL_PAIR} if ttl else {}


def value_rows(row: dict[str, Any], checkpoint: dict[str, Any]) -> dict[str, str]:
    """The value rows a checkpoint row reads its channels from (channel -> sort key): the
    `EXTERNAL` ones of a row holding its values, every channel of an earlier row."""
    ns, _ = parse_checkpoint_sk(row[SK])
    versions = checkpoint["channel_versions"]
    channels = row.get(EXTERNAL, []) if VALUES in row else versions
    return {c: blob_sk(ns, c, versions[c]) for c in channels if c in versions}


def value_row_keys(row: dict[str, Any], checkpoint: dict[str, Any]) -> list[dict[str, str]]:
    """The keys of the value rows a checkpoint row reads, with those of their chunks
    where the row records their count (`EXTERNAL_CHUNKS`; rows of earlier versions do
    not: their chunks are known once the value row is read)."""
    counts = external_chunks(row)
    keys = []
    for channel, sk in value_rows(row, checkpoint).items():
        keys.append({PK: row[PK], SK: sk})
        if channel in counts:
            keys += chunk_keys(row[PK], sk, DATA, {COUNT: counts[channel]})
    return keys


def external_chunks(row: dict[str, Any]) -> dict[str, int]:
    """The chunk counts of the value rows a checkpoint row names, where it records them."""
    return {str(c): int(n) for c, n in (row.get(EXTERNAL_CHUNKS) or {}).items()}


def inline_values(row: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The channel values a checkpoint row holds itself (channel -> serialized head)."""
    found: dict[str, dict[str, Any]] = row.get(VALUES) or {}
    return found


def set_attributes(row: dict[str, Any]) -> dict[str, Any]:
    """An Update action setting the attributes of `row` (other attributes, the writes of
    a row written before writes had a row of their own, are kept); without TTL
    attributes it removes any."""
    attributes = {k: v for k, v in row.items() if k not in (PK, SK)}
    expiry = () if EXPIRES_AT in attributes else TTL_PAIR
    return {
        "Update": {
            "Key": {PK: row[PK], SK: row[SK]},
            **update_expression(attributes, removes=expiry),
        }
    }


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
        {**{n: e for n, e in entries.items() if n in planned.overwrite}, **_ttl_sets(planned.ttl)},
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
