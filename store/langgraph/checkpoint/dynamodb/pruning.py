"""What a thread no longer needs, deleted: `prune`'s keep_latest (every checkpoint but
each namespace's latest and the ancestors its delta channels replay from, with the values
and chunks no kept row refers to) and `delete_for_runs` (the checkpoints runs wrote, found
through the run index). Each reads with Query and deletes with BatchWriteItem, in an
order a rerun after a crash completes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langgraph.checkpoint.dynamodb.access import Access
from langgraph.checkpoint.dynamodb.depths import COUNTERS
from langgraph.checkpoint.dynamodb.loading import (
    checkpoints_collecting,
    inline_values,
    split,
    value_rows,
)
from langgraph.checkpoint.dynamodb.payloads import chunk_keys, unpack
from langgraph.checkpoint.dynamodb.upkeep import (
    Key,
    is_checkpoint,
    is_run_link,
    is_writes,
    key_of,
    linked_run,
    run_keys,
)
from langgraph.checkpoint.dynamodb.write_rows import pending_writes
from langgraph.store.dynamodb.table import clock
from langgraph.store.dynamodb.table.schema import (
    CHUNKS_FIELD,
    CP,
    DATA,
    MD,
    PARENT,
    PK,
    RUN,
    SK,
    TYPE,
)
from langgraph.store.dynamodb.table.thread_keys import (
    Thread,
    checkpoint_sk,
    checkpoints_prefix,
    parse_checkpoint_sk,
    parse_run_sk,
    run_link_sk,
    run_pk,
    writes_sk,
)
from langgraph.store.dynamodb.table.ttl import is_expired

STRATEGIES = ("keep_latest", "delete")


def check_strategy(strategy: str) -> None:
    """Raise `ValueError` for a prune strategy the saver does not know."""
    if strategy not in STRATEGIES:
        raise ValueError(
            f"Unknown prune strategy {strategy!r}; use one of {', '.join(STRATEGIES)}. "
            "Nothing was deleted."
        )


def prune_keep_latest(access: Access, thread: Thread) -> int:
    """Keep the latest checkpoint of each checkpoint namespace with its writes and the
    values it needs, plus the ancestors (with their writes) a channel whose value the
    latest does not store replays from (LangGraph's `DeltaChannel`), back to the one
    that stores it; delete every other row of the thread (older checkpoints, their values
    and writes, chunks no kept row refers to). Returns rows deleted."""
    rows = list(access.query(thread.pk, expired_too=True))
    by_key = {(r[PK], r[SK]): r for r in rows}
    latest: dict[str, dict[str, Any]] = {}
    now = clock.now()
    for row in rows:
        if is_checkpoint(row) and CP in row and not is_expired(row, now):
            ns, _ = parse_checkpoint_sk(row[SK])
            latest[ns] = row  # rows come in key order: the last one per namespace wins
    keep: set[tuple[str, str]] = set()
    for ns, row in latest.items():
        for kept, checkpoint in _chain(access, ns, row, by_key):
            written = by_key.get((kept[PK], writes_sk(kept[SK])))
            for owner in [kept] + ([written] if written else []):
                keep.add((owner[PK], owner[SK]))
                keep.update(_chunks_of(owner))
            keep.update(_values_of(ns, kept, checkpoint, by_key))
    survivors = [by_key[k] for k in keep if k in by_key and is_checkpoint(by_key[k])]
    still_used = {(k[PK], k[SK]) for k in run_keys(thread, survivors)}
    keep.update((r[PK], r[SK]) for r in rows if is_run_link(r) and _leads_to(thread, r, still_used))
    doomed = [r for r in rows if (r[PK], r[SK]) not in keep]
    # Checkpoints (and writes rows) before the rows they lead to, so a rerun after a
    # crash finds those.
    owners = [r for r in doomed if is_checkpoint(r) or is_writes(r)]
    access.write([], [key_of(r) for r in owners])
    # Run index rows before the links naming them, so a rerun after a crash finds them.
    access.write([], [k for k in run_keys(thread, doomed) if (k[PK], k[SK]) not in still_used])
    access.write([], [key_of(r) for r in doomed if not (is_checkpoint(r) or is_writes(r))])
    return len(doomed)


def _leads_to(thread: Thread, link: dict[str, Any], runs: set[tuple[str, str]]) -> bool:
    key = linked_run(thread, link)
    return (key[PK], key[SK]) in runs


def _chain(
    access: Access, ns: str, row: dict[str, Any], by_key: dict[tuple[str, str], Any]
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """`row` and the ancestors needed to rebuild its delta channels that it stores no
    value for (back to the one storing their snapshot), each with its checkpoint."""
    chain: list[tuple[dict[str, Any], dict[str, Any]]] = []
    waiting: set[str] | None = None
    current: dict[str, Any] | None = row
    while current is not None:
        row = current
        typed = unpack(row[PK], row[SK], CP, row[CP], by_key)
        if typed is None:
            break
        checkpoint = access.serde.loads_typed(typed)
        chain.append((row, checkpoint))
        stored = set(inline_values(row)) | {
            channel
            for channel, sk in value_rows(row, checkpoint).items()
            if _stores_value(by_key.get((row[PK], sk)))
        }
        if waiting is None:
            waiting = _delta_channels(access, row, by_key) - stored
        else:
            waiting -= stored
        parent = row.get(PARENT)
        if not waiting or not parent:
            break
        current = by_key.get((row[PK], checkpoint_sk(ns, str(parent))))
    return chain


def _delta_channels(
    access: Access, row: dict[str, Any], by_key: dict[tuple[str, str], Any]
) -> set[str]:
    """The `DeltaChannel`s of a checkpoint: those LangGraph counts updates since their
    last snapshot for, in the metadata (`counters_since_delta_snapshot`)."""
    typed = unpack(row[PK], row[SK], MD, row[MD], by_key)
    metadata = access.serde.loads_typed(typed) if typed else {}
    return set(metadata.get(COUNTERS) or {})


def _stores_value(head: dict[str, Any] | None) -> bool:
    return head is not None and head.get(TYPE) != "empty"


def _values_of(
    ns: str,
    row: dict[str, Any],
    checkpoint: dict[str, Any],
    by_key: dict[tuple[str, str], Any],
) -> set[tuple[str, str]]:
    """The value rows (and their chunks) a checkpoint refers to."""
    found: set[tuple[str, str]] = set()
    for sk in value_rows(row, checkpoint).values():
        blob = (row[PK], sk)
        found.add(blob)
        if blob in by_key:
            found.update((k[PK], k[SK]) for k in chunk_keys(*blob, DATA, by_key[blob]))
    return found


def _chunks_of(row: dict[str, Any]) -> set[tuple[str, str]]:
    """The chunk rows of a checkpoint row or a writes row."""
    pk, sk = row[PK], row[SK]
    keys = chunk_keys(pk, sk, CP, row.get(CP, {})) + chunk_keys(pk, sk, MD, row.get(MD, {}))
    for owner, entry in pending_writes(row):
        if CHUNKS_FIELD in entry:
            keys += chunk_keys(pk, owner, str(entry[CHUNKS_FIELD]), entry)
    return {(k[PK], k[SK]) for k in keys}


def delete_for_runs(access: Access, tenant: str, run_ids: Sequence[str]) -> int:
    """Delete the checkpoints the runs wrote (found through each run's index partition:
    the thread namespaces a run wrote in, read for the run's checkpoints; or, from earlier
    versions, a row per checkpoint), with their pending writes, the index rows, then the
    threads' links to them; channel values stay, as later checkpoints may share them
    (`prune` collects those no checkpoint needs)."""
    doomed: list[Key] = []
    links: list[Key] = []
    checkpoint_keys: list[Key] = []
    found: list[dict[str, Any]] = []
    writes: dict[tuple[str, str], dict[str, Any]] = {}
    for run_id in dict.fromkeys(run_ids):
        for row in access.query(run_pk(tenant, run_id), expired_too=True):
            thread_id, ns, checkpoint_id = parse_run_sk(row[SK])
            doomed.append(key_of(row))
            pk = Thread(tenant, thread_id).pk
            if checkpoint_id is not None:
                sk = checkpoint_sk(ns, checkpoint_id)
                checkpoint_keys += [{PK: pk, SK: sk}, {PK: pk, SK: writes_sk(sk)}]
                continue
            links.append({PK: pk, SK: run_link_sk(run_id, ns)})
            listed = checkpoints_collecting(access.query(pk, checkpoints_prefix(ns)), writes)
            found += [r for r in listed if r.get(RUN) == run_id]
    checkpoints, known = split(access.get_many(checkpoint_keys).values())
    writes.update(known)
    found += checkpoints
    rows = found + [writes[k] for k in ((r[PK], r[SK]) for r in found) if k in writes]
    access.write([], [key_of(r) for r in rows])
    chunks = [{PK: pk, SK: sk} for row in rows for pk, sk in _chunks_of(row)]
    access.write([], chunks + doomed)
    access.write([], links)
    return len(rows)
