"""Whole-thread operations: delete, copy, prune, and deleting what runs wrote. Each reads
the partitions involved with Query (never a Scan) and writes with BatchWriteItem, so its
cost is O(rows of the threads)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from langgraph.checkpoint.dynamodb.access import Access
from langgraph.checkpoint.dynamodb.loading import (
    checkpoints_collecting,
    inline_values,
    split,
    value_rows,
)
from langgraph.checkpoint.dynamodb.payloads import chunk_keys, unpack
from langgraph.checkpoint.dynamodb.rows import registry_row
from langgraph.checkpoint.dynamodb.write_rows import pending_writes
from langgraph.store.dynamodb.table import clock
from langgraph.store.dynamodb.table.schema import (
    CHECKPOINT,
    CHUNKS_FIELD,
    CP,
    DATA,
    EXPIRES_AT,
    MD,
    PARENT,
    PK,
    RUN,
    RUN_LINK,
    SK,
    TTL_MINUTES,
    TYPE,
    VALUES,
)
from langgraph.store.dynamodb.table.thread_keys import (
    Thread,
    check_keys,
    checkpoint_sk,
    checkpoints_prefix,
    is_writes_sk,
    parse_checkpoint_sk,
    parse_run_link_sk,
    parse_run_sk,
    registry_pk,
    run_link_sk,
    run_pk,
    run_sk,
    writes_sk,
)
from langgraph.store.dynamodb.table.ttl import is_expired

STRATEGIES = ("keep_latest", "delete")
Key = dict[str, str]


def check_strategy(strategy: str) -> None:
    """Raise `ValueError` for a prune strategy the saver does not know."""
    if strategy not in STRATEGIES:
        raise ValueError(
            f"Unknown prune strategy {strategy!r}; use one of {', '.join(STRATEGIES)}. "
            "Nothing was deleted."
        )


def _key(row: dict[str, Any]) -> Key:
    return {PK: row[PK], SK: row[SK]}


def run_key(thread: Thread, row: dict[str, Any]) -> Key:
    """The run index row that leads to a checkpoint row: its run's row for the thread's
    namespace (one per checkpoint for rows of earlier versions, which hold no values)."""
    ns, checkpoint_id = parse_checkpoint_sk(row[SK])
    return {
        PK: run_pk(thread.tenant, str(row[RUN])),
        SK: run_sk(thread.thread_id, ns, None if VALUES in row else checkpoint_id),
    }


def run_keys(thread: Thread, rows: Sequence[dict[str, Any]]) -> list[Key]:
    """The run index rows the checkpoint rows among `rows` lead to, and those the run
    links among them name, each once."""
    found = [run_key(thread, r) for r in rows if is_checkpoint(r) and RUN in r]
    found += [linked_run(thread, r) for r in rows if is_run_link(r)]
    return list({(k[PK], k[SK]): k for k in found}.values())


def run_link_key(thread: Thread, row: dict[str, Any]) -> Key | None:
    """The run link of a checkpoint row (None for rows of earlier versions: their run
    index rows name the checkpoint, and no link names those)."""
    if RUN not in row or VALUES not in row:
        return None
    ns, _ = parse_checkpoint_sk(row[SK])
    return {PK: thread.pk, SK: run_link_sk(str(row[RUN]), ns)}


def linked_run(thread: Thread, link: dict[str, Any]) -> Key:
    """The run index row a run link names."""
    run_id, ns = parse_run_link_sk(link[SK])
    return {PK: run_pk(thread.tenant, run_id), SK: run_sk(thread.thread_id, ns)}


def is_checkpoint(row: dict[str, Any]) -> bool:
    """A checkpoint row (not its writes row)."""
    return str(row[SK]).startswith(CHECKPOINT) and not is_writes_sk(str(row[SK]))


def is_writes(row: dict[str, Any]) -> bool:
    return is_writes_sk(str(row[SK]))


def is_run_link(row: dict[str, Any]) -> bool:
    return str(row[SK]).startswith(RUN_LINK)


def delete_thread(access: Access, thread: Thread) -> int:
    """Delete every row of `thread`, its run index rows and its registry row, in an order
    that a rerun after a crash completes: the run index rows first (only the checkpoint
    rows and run links lead to them), then the checkpoints (so a concurrent reader never sees one
    without its values), then the values and the registry row. Returns the thread's rows
    deleted."""
    rows = list(access.query(thread.pk, expired_too=True))
    checkpoints = [r for r in rows if is_checkpoint(r)]
    access.write([], run_keys(thread, rows))
    access.write([], [_key(r) for r in checkpoints])
    listed = {PK: registry_pk(thread.tenant), SK: thread.thread_id}
    access.write([], [_key(r) for r in rows if not is_checkpoint(r)] + [listed])
    return len(rows)


def copy_thread(access: Access, source: Thread, target: Thread) -> int:
    """Copy every live row of `source` to `target` (values and chunks first, checkpoint
    rows last), with run index rows for the copies and a registry row; returns how many
    rows were copied (0 for a thread that does not exist: nothing is written)."""
    return write_thread(access, target, list(access.query(source.pk)))


def write_thread(access: Access, target: Thread, rows: Sequence[dict[str, Any]]) -> int:
    """Write `rows` (a thread's rows, as read from its partition) into `target`: values
    and chunks first, checkpoint rows last, with run index rows for the checkpoints and a
    registry row, so a reader never sees a checkpoint before its values; the saver's TTL,
    if any, replaces the rows' own. Run links among `rows` are not copied: the target's
    are made from its checkpoints. Returns how many rows were written (none for none; a
    row given twice counts once)."""
    rows = [row for row in rows if not is_run_link(row)]
    if not rows:
        return 0
    ttl = access.ttl()
    # A row given twice (a file holding it twice) is written once, as given last:
    # BatchWriteItem refuses two requests for one key.
    moved = list({row[SK]: {**row, PK: target.pk, **ttl} for row in rows}.values())
    _check_target_keys(target, moved)
    checkpoints = [r for r in moved if is_checkpoint(r)]
    listed = ttl or _longest_expiry(moved)
    links = [{**key, **listed} for key in _run_links(target, checkpoints)]
    access.write([r for r in moved if not is_checkpoint(r)] + links, [])
    runs = [{**key, **listed} for key in run_keys(target, checkpoints)]
    access.write(checkpoints + runs + [registry_row(target, listed)], [])
    return len(moved)


def _run_links(thread: Thread, checkpoints: Sequence[dict[str, Any]]) -> list[Key]:
    """The run links of checkpoint rows, each once."""
    keys = (run_link_key(thread, row) for row in checkpoints)
    return list({(k[PK], k[SK]): k for k in keys if k is not None}.values())


def _check_target_keys(target: Thread, rows: Sequence[dict[str, Any]]) -> None:
    """Raise `KeyTooLongError` before any write when a row of `target` (its rows, run
    index rows, registry row) would have a key DynamoDB refuses."""
    what = f"the copy into {target}"
    check_keys(target.pk, [str(r[SK]) for r in rows], what)
    check_keys(registry_pk(target.tenant), [target.thread_id], f"{what}, its registry row")
    checkpoints = [r for r in rows if is_checkpoint(r)]
    links = [key[SK] for key in _run_links(target, checkpoints)]
    check_keys(target.pk, links, f"{what}, its run links (run id, namespace)")
    for key in run_keys(target, checkpoints):
        check_keys(key[PK], [key[SK]], f"{what}, its run index row (run id, thread id)")


def _longest_expiry(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """TTL attributes that outlive every row, when every row expires (none otherwise): a
    thread copied without the saver's TTL stays listed exactly as long as its rows live."""
    if not rows or any(EXPIRES_AT not in r for r in rows):
        return {}
    last = max(rows, key=lambda r: int(r[EXPIRES_AT]))
    return {k: last[k] for k in (EXPIRES_AT, TTL_MINUTES) if k in last}


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
    access.write([], [_key(r) for r in owners])
    # Run index rows before the links naming them, so a rerun after a crash finds them.
    access.write([], [k for k in run_keys(thread, doomed) if (k[PK], k[SK]) not in still_used])
    access.write([], [_key(r) for r in doomed if not (is_checkpoint(r) or is_writes(r))])
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
    return set(metadata.get("counters_since_delta_snapshot") or {})


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
            doomed.append(_key(row))
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
    access.write([], [_key(r) for r in rows])
    chunks = [{PK: pk, SK: sk} for row in rows for pk, sk in _chunks_of(row)]
    access.write([], chunks + doomed)
    access.write([], links)
    return len(rows)


def count_checkpoints(access: Access, thread: Thread, checkpoint_ns: str | None) -> int:
    """How many live checkpoints `thread` has (in `checkpoint_ns`, or in all for None):
    a Query of its checkpoint rows, which never reads the channel values."""
    return sum(
        1 for _ in access.query(thread.pk, checkpoints_prefix(checkpoint_ns), checkpoints_only=True)
    )


def threads(access: Access, tenant: str, limit: int | None = None) -> list[Thread]:
    """The threads registered under `tenant`, in thread id order (the first `limit`:
    pages of the registry past them are never read)."""
    rows = itertools.islice(access.query(registry_pk(tenant)), limit)
    return [Thread(tenant, str(r[SK])) for r in rows]
