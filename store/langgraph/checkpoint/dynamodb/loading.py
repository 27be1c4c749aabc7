"""Checkpoint rows and their writes rows into `CheckpointTuple`s: the channel values and
the chunks of large values, fetched for a whole page of checkpoints at once.

A page costs one BatchGetItem for the value rows, their chunks and every chunk of the
pending writes it needs (the rows are known from the checkpoint rows alone, which record
their value rows' chunk counts; none when the checkpoint rows hold their values), plus one
more only for the chunks of a value row that a row of an earlier version names.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import CheckpointTuple
from langgraph.checkpoint.dynamodb.access import Access
from langgraph.checkpoint.dynamodb.payloads import chunk_keys, unpack
from langgraph.checkpoint.dynamodb.write_rows import as_pending, visible_writes
from langgraph.store.dynamodb.table.schema import (
    CHUNKS_FIELD,
    COUNT,
    CP,
    DATA,
    EXTERNAL,
    EXTERNAL_CHUNKS,
    MD,
    PARENT,
    PK,
    SK,
    TYPE,
    VALUES,
)
from langgraph.store.dynamodb.table.thread_keys import (
    blob_sk,
    is_writes_sk,
    owner_of_writes,
    parse_checkpoint_sk,
    thread_of_pk,
    writes_sk,
)

Key = tuple[str, str]


@dataclass(frozen=True)
class Loaded:
    """A checkpoint's tuple, and every row it was built from (whose TTL a read slides)."""

    tuple: CheckpointTuple
    rows: list[dict[str, Any]]


def writes_key(row: dict[str, Any]) -> dict[str, str]:
    """The key of a checkpoint row's writes row."""
    return {PK: row[PK], SK: writes_sk(row[SK])}


def split(rows: Iterable[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[Key, dict[str, Any]]]:
    """Rows of a thread's checkpoint range as its checkpoint rows (in their order) and
    its writes rows by the key of their checkpoint row (a writes row whose checkpoint row
    is not there, its put not landed, is left out)."""
    writes: dict[Key, dict[str, Any]] = {}
    return list(checkpoints_collecting(rows, writes)), writes


def checkpoints_collecting(
    rows: Iterable[dict[str, Any]], writes: dict[Key, dict[str, Any]]
) -> Iterator[dict[str, Any]]:
    """The checkpoint rows of `rows` (newest first), the writes rows put into `writes` (by
    their checkpoint row's key) as they pass: each before its checkpoint row."""
    for row in rows:
        if is_writes_sk(row[SK]):
            writes[(row[PK], owner_of_writes(row[SK]))] = row
        elif CP in row:
            yield row


def writes_row(row: dict[str, Any], writes: Mapping[Key, dict[str, Any]]) -> dict[str, Any]:
    """A checkpoint row's writes row among `writes` (empty when it has none)."""
    return writes.get((row[PK], row[SK]), {})


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


def _needs(row: dict[str, Any], writes: Mapping[Key, dict[str, Any]]) -> list[dict[str, str]]:
    pk, sk = row[PK], row[SK]
    keys = chunk_keys(pk, sk, CP, row[CP]) + chunk_keys(pk, sk, MD, row[MD])
    for owner, entry in visible_writes(row, writes_row(row, writes)):
        if CHUNKS_FIELD in entry:
            keys += chunk_keys(pk, owner, str(entry[CHUNKS_FIELD]), entry)
    return keys


def load(
    access: Access,
    rows: Sequence[dict[str, Any]],
    writes: Mapping[Key, dict[str, Any]],
    config_extra: dict[str, Any],
) -> list[Loaded]:
    """The tuples of checkpoint `rows` (of any threads), in their order, with the pending
    writes of their writes rows (`writes`, by checkpoint row key; `split`). `config_extra`
    goes into every tuple's `configurable` (the tenant key). Fetches in rounds until
    every row the tuples need is known: none when values and writes fit in their rows."""
    fetched: dict[Key, dict[str, Any]] = {}
    decoded: dict[Key, dict[str, Any]] = {}
    asked: set[Key] = set()
    while True:
        wanted = [
            k
            for k in _wanted(access, rows, writes, fetched, decoded)
            if (k[PK], k[SK]) not in asked
        ]
        if not wanted:
            break
        asked.update((k[PK], k[SK]) for k in wanted)
        fetched.update(access.get_many(wanted))
    loaded = []
    for row in rows:
        checkpoint = _checkpoint(access, row, fetched, decoded)
        if checkpoint is not None:
            loaded.append(_tuple(access, row, writes, checkpoint, fetched, config_extra))
    return loaded


def checkpoint_of(
    access: Access, row: dict[str, Any], fetched: dict[Key, dict[str, Any]]
) -> dict[str, Any] | None:
    """A checkpoint row's checkpoint (without its values), from the row's own bytes or
    its `fetched` chunk rows; None while a chunk of it is unknown."""
    typed = unpack(row[PK], row[SK], CP, row[CP], fetched)
    if typed is None:
        return None
    checkpoint: dict[str, Any] = access.serde.loads_typed(typed)
    return checkpoint


def metadata_of(
    access: Access, row: dict[str, Any], fetched: dict[Key, dict[str, Any]]
) -> dict[str, Any]:
    """A checkpoint row's metadata, from the row's own bytes or its `fetched` chunk rows
    (empty while a chunk of it is unknown)."""
    typed = unpack(row[PK], row[SK], MD, row[MD], fetched)
    metadata: dict[str, Any] = access.serde.loads_typed(typed) if typed is not None else {}
    return metadata


def _checkpoint(
    access: Access,
    row: dict[str, Any],
    fetched: dict[Key, dict[str, Any]],
    decoded: dict[Key, dict[str, Any]],
) -> dict[str, Any] | None:
    """The row's checkpoint, decoded once (None while a chunk of it is still unknown)."""
    key = (row[PK], row[SK])
    if key not in decoded:
        checkpoint = checkpoint_of(access, row, fetched)
        if checkpoint is None:
            return None
        decoded[key] = checkpoint
    return decoded[key]


def _wanted(
    access: Access,
    rows: Sequence[dict[str, Any]],
    writes: Mapping[Key, dict[str, Any]],
    fetched: dict[Key, dict[str, Any]],
    decoded: dict[Key, dict[str, Any]],
) -> list[dict[str, str]]:
    """The rows still to fetch given what is known: chunks of the checkpoint rows' own
    values, the channel values of each checkpoint that can be read, their chunks."""
    keys: list[dict[str, str]] = []
    for row in rows:
        keys += _needs(row, writes)
        checkpoint = _checkpoint(access, row, fetched, decoded)
        if checkpoint is None:
            continue
        keys += value_row_keys(row, checkpoint)
        for sk in value_rows(row, checkpoint).values():
            head = fetched.get((row[PK], sk))
            if head is not None:
                keys += chunk_keys(row[PK], sk, DATA, head)
    return [k for k in keys if (k[PK], k[SK]) not in fetched]


def _tuple(
    access: Access,
    row: dict[str, Any],
    writes: Mapping[Key, dict[str, Any]],
    checkpoint: dict[str, Any],
    fetched: dict[Key, dict[str, Any]],
    config_extra: dict[str, Any],
) -> Loaded:
    serde = access.serde
    pk, sk = row[PK], row[SK]
    thread = thread_of_pk(pk)
    ns, checkpoint_id = parse_checkpoint_sk(sk)
    used: list[Key] = [(pk, sk)]
    values: dict[str, Any] = {}
    for channel, inline in inline_values(row).items():
        if inline[TYPE] != "empty":
            values[channel] = serde.loads_typed((str(inline[TYPE]), bytes(inline[DATA])))
    for channel, blob in value_rows(row, checkpoint).items():
        key = (pk, blob)
        head = fetched.get(key)
        if head is None:
            continue
        typed = unpack(pk, key[1], DATA, head, fetched)
        used += [key] + [(k[PK], k[SK]) for k in chunk_keys(pk, key[1], DATA, head)]
        if typed is not None and typed[0] != "empty":
            values[channel] = serde.loads_typed(typed)
    written = writes_row(row, writes)
    pending = []
    for owner, entry in visible_writes(row, written):
        typed = unpack(pk, owner, str(entry.get(CHUNKS_FIELD, "")), entry, fetched)
        if typed is not None:
            pending.append(as_pending(entry, serde.loads_typed(typed)))
    used += [(k[PK], k[SK]) for k in _needs(row, writes)]

    def config(checkpoint_id: str) -> RunnableConfig:
        return {
            "configurable": {
                "thread_id": thread.thread_id,
                "checkpoint_ns": ns,
                "checkpoint_id": checkpoint_id,
                **config_extra,
            }
        }

    parent = row.get(PARENT)
    return Loaded(
        CheckpointTuple(
            config=config(checkpoint_id),
            checkpoint={**checkpoint, "channel_values": values},  # type: ignore[typeddict-item]
            metadata=metadata_of(access, row, fetched),  # type: ignore[arg-type]
            parent_config=config(str(parent)) if parent else None,
            pending_writes=pending,
        ),
        [row]
        + ([written] if written else [])
        + [fetched[k] for k in dict.fromkeys(used[1:]) if k in fetched],
    )
