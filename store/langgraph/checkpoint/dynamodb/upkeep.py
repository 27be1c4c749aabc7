"""Whole-thread operations: delete, copy (and write back what `thread_rows` read), count
and list threads; and which rows lead to which (a checkpoint to its run index row and run
link), which `pruning` and `erasure` follow too. Each reads the partitions involved with
Query (never a Scan) and writes with BatchWriteItem, so its cost is O(rows of the
threads)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from langgraph.checkpoint.dynamodb.access import Access
from langgraph.checkpoint.dynamodb.rows import registry_row
from langgraph.store.dynamodb.table.schema import (
    CHECKPOINT,
    EXPIRES_AT,
    PK,
    RUN,
    RUN_LINK,
    SK,
    TTL_MINUTES,
    VALUES,
)
from langgraph.store.dynamodb.table.thread_keys import (
    Thread,
    check_keys,
    checkpoints_prefix,
    is_writes_sk,
    parse_checkpoint_sk,
    parse_run_link_sk,
    registry_pk,
    run_link_sk,
    run_pk,
    run_sk,
)

Key = dict[str, str]


def key_of(row: dict[str, Any]) -> Key:
    """The primary key of a row."""
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
    access.write([], [key_of(r) for r in checkpoints])
    listed = {PK: registry_pk(thread.tenant), SK: thread.thread_id}
    access.write([], [key_of(r) for r in rows if not is_checkpoint(r)] + [listed])
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


def thread_rows(access: Access, thread: Thread) -> list[dict[str, Any]]:
    """Every live row of the thread as stored, in key order, but its run links."""
    return [row for row in access.query(thread.pk) if not is_run_link(row)]


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
