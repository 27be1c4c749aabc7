"""Threads (the checkpointer's short-term memory) to and from JSON Lines, one stored row
per line: `{"tenant": ..., "thread_id": ..., "row": <the row as DynamoDB JSON>}`, binary
values in base64 (`wire`), so a thread comes back byte for byte: checkpoints, channel
values of any type and size (large ones as their chunk rows), pending writes, TTL.

An export reads each thread's partition in key order (`DynamoDBSaver.thread_rows`). An
import checks every line before writing anything, then writes each thread's rows through
`DynamoDBSaver.write_thread_rows`: values before the checkpoints that need them, with the
thread's registry and run index rows, which are derived, not exported. Importing the same
file again rewrites the same rows.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import IO, Any

from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.cli.errors import PartlyDone
from langgraph.store.dynamodb.cli.wire import binary_as, json_object, to_bytes, to_text
from langgraph.store.dynamodb.table import dynamo
from langgraph.store.dynamodb.table.schema import BLOB, CHECKPOINT, CHUNK, PK, SK
from langgraph.store.dynamodb.table.thread_keys import Thread

FIELDS = ("tenant", "thread_id", "row")
ROW_KINDS = (CHECKPOINT, BLOB, CHUNK)
# A tenant's saver: `None` for threads written by a saver without a tenant key.
SaverFor = Callable[[str | None], DynamoDBSaver]


def line_of(tenant: str, thread_id: str, row: dict[str, Any]) -> str:
    """One exported row as a line."""
    wire = binary_as(to_text, dynamo.serialize(row))
    record = {"tenant": tenant, "thread_id": thread_id, "row": wire}
    return json.dumps(record, ensure_ascii=False) + "\n"


def export_threads(
    saver: DynamoDBSaver, tenant: str, thread_ids: Iterable[str], out: IO[str]
) -> int:
    """Write every row of each thread to `out`; returns how many rows. `saver` is bound to
    `tenant` ("" for a saver without a tenant key). A thread without rows raises
    `LookupError` naming it."""
    count = 0
    for thread_id in thread_ids:
        rows = saver.thread_rows(thread_id)
        if not rows:
            raise LookupError(f"No thread {thread_id!r}{_of(tenant)} in {saver.table_name}.")
        for row in rows:
            out.write(line_of(tenant, thread_id, row))
        count += len(rows)
    return count


@dataclass(frozen=True)
class ImportedThreads:
    """What an import wrote."""

    threads: int
    rows: int


def import_threads(saver_for: SaverFor, source: IO[str]) -> ImportedThreads:
    """Write the threads of every line of `source`. Every line is checked first: a bad
    one raises `ValueError` naming its number and nothing is written. A failure while
    writing raises `PartlyDone` naming the threads written (importing again is safe)."""
    threads: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for number, line in enumerate(source, start=1):
        if line.strip():
            try:
                tenant, thread_id, row = _parse(line)
            except ValueError as error:
                problem = str(error).rstrip(".")
                raise ValueError(
                    f"Line {number} is not an exported thread row: {problem}. Nothing was imported."
                ) from None
            threads.setdefault((tenant, thread_id), []).append(row)
    done: list[str] = []
    rows = 0
    for (tenant, thread_id), thread_rows in threads.items():
        try:
            rows += saver_for(tenant or None).write_thread_rows(thread_id, thread_rows)
        except Exception as error:
            written = ", ".join(done) or "none"
            raise PartlyDone(
                f"threads written: {written}; {thread_id!r}{_of(tenant)} may be in part; "
                "importing the same file again is safe: it rewrites them",
                error,
            ) from error
        done.append(repr(thread_id))
    return ImportedThreads(len(threads), rows)


def _parse(line: str) -> tuple[str, str, dict[str, Any]]:
    record = json_object(line)
    if sorted(record) != sorted(FIELDS):
        raise ValueError(f"the fields must be {list(FIELDS)}, got {sorted(record)}")
    tenant, thread_id, wire = record["tenant"], record["thread_id"], record["row"]
    if not isinstance(tenant, str):
        raise ValueError(f"tenant must be a string, got {tenant!r:.60}")
    if not isinstance(thread_id, str) or not thread_id:
        raise ValueError(f"thread_id must be a non-empty string, got {thread_id!r:.60}")
    if not isinstance(wire, dict):
        raise ValueError("row must be an object (a row as DynamoDB JSON)")
    try:
        row = dynamo.deserialize(binary_as(to_bytes, wire))
    except (TypeError, ValueError, KeyError) as error:
        raise ValueError(f"row is not DynamoDB JSON ({error})") from None
    pk = Thread(tenant, thread_id).pk
    if row.get(PK) != pk:
        raise ValueError(f"row's {PK} is {row.get(PK)!r:.80}, not thread {thread_id!r}'s {pk!r}")
    sk = row.get(SK)
    if not isinstance(sk, str) or not sk.startswith(ROW_KINDS):
        raise ValueError(f"row's {SK} {sk!r:.80} is not a checkpoint, value or chunk row")
    return tenant, thread_id, row


def _of(tenant: str) -> str:
    return f" of tenant {tenant!r}" if tenant else ""
