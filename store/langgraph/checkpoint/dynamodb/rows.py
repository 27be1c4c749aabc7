"""The rows a checkpoint becomes: what a `put` writes (its pending writes are
`write_rows`'s, what the rows name is read back by `loading`).

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

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import ChannelVersions, Checkpoint, CheckpointMetadata
from langgraph.checkpoint.dynamodb.payloads import CHUNK_BYTES, pack
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.checkpoint.serde.types import _DeltaSnapshot
from langgraph.store.dynamodb.table.schema import (
    CP,
    DATA,
    EXPIRES_AT,
    EXTERNAL,
    EXTERNAL_CHUNKS,
    MD,
    PARENT,
    PK,
    RUN,
    SK,
    TENANT,
    THREAD_ID,
    TTL_MINUTES,
    TYPE,
    VALUES,
)
from langgraph.store.dynamodb.table.thread_keys import (
    Thread,
    blob_sk,
    check_keys,
    checkpoint_sk,
    registry_pk,
    run_link_sk,
    run_pk,
    run_sk,
    writes_sk,
)
from langgraph.store.dynamodb.table.updates import update_expression
from langgraph.store.dynamodb.table.values import MAX_ITEM_BYTES

# What one row may hold inline: the checkpoint and its metadata, a channel value in a value
# row. A checkpoint row holds channel values up to `VALUES_INLINE` bytes in all, so with
# its checkpoint and metadata it stays under DynamoDB's 400 KB item limit. A value the put
# did not change is inline only up to `VALUE_INLINE`: a larger one is a value row, written
# once and referenced by the checkpoints that keep it, not rewritten by each.
CHECKPOINT_INLINE = 100_000
BLOB_INLINE = CHUNK_BYTES
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
    update = update_expression(ttl_sets(ttl), removes=() if ttl else TTL_PAIR)
    update["ExpressionAttributeNames"]["#pk"] = PK
    return {
        "Update": {
            "Key": {PK: key[PK], SK: key[SK]},
            "ConditionExpression": "attribute_exists(#pk)",
            **update,
        }
    }


def ttl_sets(ttl: dict[str, Any]) -> dict[str, Any]:
    """The TTL attributes an update sets from `ttl` (none when it is empty)."""
    return {name: ttl[name] for name in TTL_PAIR} if ttl else {}


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
