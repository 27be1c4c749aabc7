"""A `DeltaChannel`'s history (`get_delta_channel_history`): the writes on the parent
chain of a checkpoint back to the nearest ancestor that stores the channel's value, and
that value (the seed), in two requests whatever the depth.

A namespace's checkpoint rows sort by id in the thread's partition and every ancestor's id
is smaller than its child's, so one Query read backwards from the target returns the
chain (each row carries its pending writes). Its `Limit` is the target's distance to its
last snapshot, which LangGraph keeps in the metadata (`counters_since_delta_snapshot`),
so the Query reads about the rows it needs. A channel's stored versions are the rows of
its values, sorted by version; versions grow along a chain, so the nearest ancestor that
stores a value holds the greatest stored version among the chain's: a Query of the
channel's value rows, backwards from the newest version on the chain, finds it first.
Rows off the chain (forks) are skipped; a missing ancestor ends the chain, as
`get_tuple` returning None ends LangGraph's own walk.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import DeltaChannelHistory, PendingWrite, get_checkpoint_id
from langgraph.checkpoint.dynamodb.access import Access
from langgraph.checkpoint.dynamodb.depths import Depths, depth
from langgraph.checkpoint.dynamodb.loading import (
    Key,
    checkpoint_of,
    checkpoints_collecting,
    external_chunks,
    inline_values,
    metadata_of,
    value_rows,
    writes_row,
)
from langgraph.checkpoint.dynamodb.payloads import chunk_keys, unpack
from langgraph.checkpoint.dynamodb.write_rows import as_pending, pending_writes
from langgraph.store.dynamodb.table.schema import (
    CHANNEL,
    CHUNKS_FIELD,
    COUNT,
    CP,
    DATA,
    PARENT,
    PK,
    SK,
    TYPE,
)
from langgraph.store.dynamodb.table.thread_keys import (
    Thread,
    blob_sk,
    checkpoint_sk,
    checkpoints_prefix,
    parse_checkpoint_sk,
)

# Rows per Query page when the target's metadata gives no distance to a snapshot.
DEFAULT_DEPTH = 50
# The serializer's type of a value that stands for none (LangGraph's savers skip it).
EMPTY = "empty"


@dataclass
class _Seed:
    """Where a channel's seed is: its index in the chain, and the value row (or the
    ancestor's inline value). A `claimed` value row is a key and chunk count, not read
    yet."""

    index: int
    row: dict[str, Any]
    claimed: bool = False


@dataclass
class _Walk:
    """The parent chain, nearest ancestor first, built from rows read newest first."""

    target_id: str | None
    found: bool = False
    cursor: str | None = None
    ended: bool = False
    rows: list[tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=list)

    def take(self, access: Access, ns: str, row: dict[str, Any]) -> None:
        if not self.found:
            if self.target_id is not None and row[SK] != checkpoint_sk(ns, self.target_id):
                self.ended = True  # the target is not stored
                return
            self.found, self.cursor = True, row.get(PARENT)
        elif self.cursor is not None and row[SK] == checkpoint_sk(ns, self.cursor):
            self.rows.append((row, _checkpoint(access, row)))
            self.cursor = row.get(PARENT)
        elif self.cursor is not None and row[SK] > checkpoint_sk(ns, self.cursor):
            return  # a checkpoint of another branch
        else:
            self.ended = True  # an ancestor is missing (deleted, pruned or expired)
        if self.cursor is None:
            self.ended = True


def history(
    access: Access,
    thread: Thread,
    ns: str,
    target_id: str | None,
    channels: Sequence[str],
    known_depth: int | None,
    counted: bool = True,
) -> dict[str, DeltaChannelHistory]:
    """Each channel's writes on the chain of `target_id` (the namespace's latest for
    None), oldest first, and its seed when an ancestor stores a value. `known_depth` is
    `depth()` of the target if the caller knows it: else its row is read first. With
    `counted`, a seed in a value row whose chunk count a chain row records is read with
    the writes' chunks; if that row is gone, the history is read again without."""
    writes: dict[Key, dict[str, Any]] = {}
    if known_depth is None:
        first = next(_rows(access, thread, ns, target_id, 1, writes), None)
        if first is None:
            return {c: {"writes": []} for c in channels}
        known_depth = _depth_of(access, first, channels)
        target_id = parse_checkpoint_sk(first[SK])[1]
    page = known_depth + 2  # the target, the ancestors, and the one storing the value
    rows = _rows(access, thread, ns, target_id, page, writes)
    walk = _Walk(target_id)
    remaining = list(channels)
    seeds: dict[str, _Seed] = {}
    while remaining and not (walk.ended and walk.found):
        start = len(walk.rows)
        batch = list(itertools.islice(rows, page))
        for row in batch:
            walk.take(access, ns, row)
            if walk.ended:
                break
        if not walk.found:
            break
        for channel in list(remaining):
            seed = _nearest_stored(access, thread, ns, channel, walk.rows[start:], counted)
            if seed is not None:
                seeds[channel] = _Seed(start + seed.index, seed.row, seed.claimed)
                remaining.remove(channel)
        if len(batch) < page:
            break
    found = _result(access, thread, channels, walk.rows, writes, seeds)
    if found is None:  # a value row a chain row names is gone: find the stored one
        return history(access, thread, ns, target_id, channels, known_depth, counted=False)
    return found


def history_of(
    access: Access,
    depths: Depths,
    thread: Thread,
    config: RunnableConfig,
    channels: Sequence[str],
) -> dict[str, DeltaChannelHistory]:
    """`history` of the checkpoint `config` names (its namespace's latest without an id),
    its depth as `depths` remembers it."""
    ns = config["configurable"].get("checkpoint_ns", "")
    target_id = get_checkpoint_id(config)
    return history(access, thread, ns, target_id, channels, depths.of(thread, config))


def _rows(
    access: Access,
    thread: Thread,
    ns: str,
    target_id: str | None,
    page: int,
    writes: dict[Key, dict[str, Any]],
) -> Iterator[dict[str, Any]]:
    """The namespace's checkpoint rows from the target back, `page` per request (with
    their writes rows, collected into `writes`)."""
    below = checkpoint_sk(ns, target_id) if target_id is not None else None
    rows = access.query(
        thread.pk, checkpoints_prefix(ns), below=below, ScanIndexForward=False, Limit=2 * page
    )
    return checkpoints_collecting(rows, writes)


def _depth_of(access: Access, row: dict[str, Any], channels: Sequence[str]) -> int:
    found = depth(metadata_of(access, row, {}), channels)
    return DEFAULT_DEPTH if found is None else found


def _checkpoint(access: Access, row: dict[str, Any]) -> dict[str, Any]:
    """The row's checkpoint (its chunks fetched when it is too large for the row)."""
    fetched = access.get_many(chunk_keys(row[PK], row[SK], CP, row[CP]))
    checkpoint = checkpoint_of(access, row, fetched)
    if checkpoint is None:
        raise LookupError(f"A chunk of checkpoint {row[SK]!r} is missing (expired or deleted)")
    return checkpoint


def _nearest_stored(
    access: Access,
    thread: Thread,
    ns: str,
    channel: str,
    chain: Sequence[tuple[dict[str, Any], dict[str, Any]]],
    counted: bool,
) -> _Seed | None:
    """The nearest ancestor in `chain` storing a value of `channel`, and that value's
    row: the ancestor's own row when it holds the value inline, else one of the channel's
    value rows between the chain's versions (`_stored_value_row`; with `counted`, the
    counts of chunks the chain rows record)."""
    at: dict[str, int] = {}
    counts: dict[str, int] = {}
    for index, (row, checkpoint) in enumerate(chain):
        inline = inline_values(row).get(channel)
        if inline is not None and inline.get(TYPE) != EMPTY:
            nearer = _stored_value_row(access, thread, at, counts)
            return nearer or _Seed(index, {PK: row[PK], SK: row[SK], **inline})
        version = checkpoint["channel_versions"].get(channel)
        if version is not None and channel in value_rows(row, checkpoint):
            sk = blob_sk(ns, channel, version)
            at.setdefault(sk, index)
            if counted and channel in external_chunks(row):
                counts.setdefault(sk, external_chunks(row)[channel])
    return _stored_value_row(access, thread, at, counts)


def _stored_value_row(
    access: Access,
    thread: Thread,
    at: dict[str, int],
    counts: dict[str, int],
) -> _Seed | None:
    """The nearest of the value rows `at` names (sort key -> chain index) that stores a
    value. The nearest (the one in all but forked threads) is claimed, unread, when a
    chain row recorded its chunk count (`counts`): `_result` reads it with its chunks.
    Else the rows are read newest first, one per request."""
    if not at:
        return None
    nearest = max(at)
    if nearest in counts:
        return _Seed(at[nearest], {PK: thread.pk, SK: nearest, COUNT: counts[nearest]}, True)
    for row in access.query(thread.pk, min(at), below=max(at), ScanIndexForward=False, Limit=1):
        if row[SK] in at and _stores_value(row):
            return _Seed(at[row[SK]], row)
    return None


def _stores_value(row: dict[str, Any]) -> bool:
    return (COUNT in row or DATA in row) and row.get(TYPE) != EMPTY


def _result(
    access: Access,
    thread: Thread,
    channels: Sequence[str],
    chain: Sequence[tuple[dict[str, Any], dict[str, Any]]],
    written: Mapping[Key, dict[str, Any]],
    seeds: dict[str, _Seed],
) -> dict[str, DeltaChannelHistory] | None:
    """The histories, decoding the collected writes and seeds (the claimed value rows
    and every chunk in one request); None when a claimed value row stores no value."""
    wanted: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    needs: list[dict[str, str]] = []
    for channel in channels:
        end = seeds[channel].index + 1 if channel in seeds else len(chain)
        entries = [
            (owner, entry)
            for row, _ in reversed(chain[:end])
            for owner, entry in pending_writes(row, writes_row(row, written))
            if entry[CHANNEL] == channel
        ]
        wanted[channel] = entries
        for owner, entry in entries:
            if CHUNKS_FIELD in entry:
                needs += chunk_keys(thread.pk, owner, str(entry[CHUNKS_FIELD]), entry)
    for seed in seeds.values():
        if seed.claimed:
            needs.append({PK: thread.pk, SK: seed.row[SK]})
        needs += chunk_keys(thread.pk, seed.row[SK], DATA, seed.row)
    fetched = access.get_many(needs)
    for seed in seeds.values():
        if seed.claimed:
            stored = fetched.get((thread.pk, seed.row[SK]))
            if stored is None or not _stores_value(stored):
                return None
            seed.row = stored
    serde = access.serde
    result: dict[str, DeltaChannelHistory] = {}
    for channel in channels:
        writes: list[PendingWrite] = []
        for owner, entry in wanted[channel]:
            typed = unpack(thread.pk, owner, str(entry.get(CHUNKS_FIELD, "")), entry, fetched)
            if typed is not None:
                writes.append(as_pending(entry, serde.loads_typed(typed)))
        found: DeltaChannelHistory = {"writes": writes}
        if channel in seeds:
            value_row = seeds[channel].row
            typed = unpack(thread.pk, value_row[SK], DATA, value_row, fetched)
            if typed is not None:
                found["seed"] = serde.loads_typed(typed)
        result[channel] = found
    return result
