"""Memories to and from JSON Lines, one memory per line: `namespace` (list of labels),
`key`, `value` (object), `created_at` and `updated_at` (ISO 8601), and when set,
`ttl_minutes` with `expires_at` (epoch seconds) and `index` (false: never embedded, or the
paths embedded instead of the table's fields).

An export reads each namespace's item rows in key order (a Query of its partition, paged
by `LastEvaluatedKey`), which writes cannot reorder: a memory updated meanwhile appears
once, with its old or new value. An import checks every line before writing anything,
puts the memories through the store (embedding, namespace registry, size checks), then
gives each its exported timestamps and expiry. Vectors are not exported: the importing
store embeds again with its own model. A store without a vector index does not record a
put's `index` choice, so its export cannot carry it.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import IO, Any, Literal

from botocore.exceptions import ClientError
from langgraph.store.base import PutOp
from langgraph.store.dynamodb.basestore.store import DynamoDBStore
from langgraph.store.dynamodb.cli.errors import PartlyDone
from langgraph.store.dynamodb.cli.status import MAX_NAMESPACES
from langgraph.store.dynamodb.cli.wire import json_object
from langgraph.store.dynamodb.items.rows import build_row, key_of, stamp_of
from langgraph.store.dynamodb.table import clock, dynamo
from langgraph.store.dynamodb.table.keys import (
    Namespace,
    decode_namespace,
    encode_namespace,
    item_key_of,
    recency_sort_key,
    validate_op,
)
from langgraph.store.dynamodb.table.schema import (
    CREATED_AT,
    EXPIRES_AT,
    INDEX_PATHS,
    ITEM_ATTRIBUTES,
    ITEM_PREFIX,
    PK,
    RECENCY,
    SK,
    TTL_MINUTES,
    UPDATED_AT,
    VALUE,
)
from langgraph.store.dynamodb.table.ttl import is_expired
from langgraph.store.dynamodb.table.updates import update_expression
from langgraph.store.dynamodb.table.values import decode_value, encode_value

PAGE = 500
FIELDS = (
    "namespace",
    "key",
    "value",
    "created_at",
    "updated_at",
    "ttl_minutes",
    "expires_at",
    "index",
)
# What an export reads of an item row: never the vectors or the embedding bookkeeping.
_EXPORTED = {"#pk": PK, "#sk": SK, **{f"#a{i}": a for i, a in enumerate(ITEM_ATTRIBUTES)}}
_EXPORTED["#paths"] = INDEX_PATHS


@dataclass(frozen=True)
class Memory:
    """One line of an export."""

    namespace: Namespace
    key: str
    value: dict[str, Any]
    created_at: str | None = None
    updated_at: str | None = None
    ttl_minutes: float | None = None
    expires_at: int | None = None
    index: Literal[False] | list[str] | None = None

    def line(self) -> str:
        fields = {name: getattr(self, name) for name in FIELDS}
        fields["namespace"] = list(self.namespace)
        kept = {name: value for name, value in fields.items() if value is not None}
        return json.dumps(kept, ensure_ascii=False) + "\n"

    def put(self) -> PutOp:
        return PutOp(self.namespace, self.key, self.value, index=self.index, ttl=self.ttl_minutes)


@dataclass(frozen=True)
class Imported:
    """What an import wrote, and how many lines had expired by then (not written)."""

    written: int
    expired: int


def export_lines(store: DynamoDBStore, prefix: Namespace, out: IO[str]) -> int:
    """Write every memory under `prefix` to `out`, a namespace at a time, each in key
    order; returns how many. Memories past their expiry are left out, as reads hide them."""
    now = clock.now()
    count = 0
    for namespace in _namespaces(store, prefix):
        for row in _item_rows(store, namespace):
            if not is_expired(row, now):
                out.write(_memory_of(row).line())
                count += 1
    return count


def _namespaces(store: DynamoDBStore, prefix: Namespace) -> list[Namespace]:
    """Every namespace under `prefix`, in one listing (pages by offset would shift under
    namespaces created or removed meanwhile)."""
    found = store.list_namespaces(prefix=prefix or None, limit=MAX_NAMESPACES)
    if len(found) == MAX_NAMESPACES:
        raise ValueError(
            f"More than {MAX_NAMESPACES:,} namespaces under {'.'.join(prefix) or 'the store'}: "
            "export longer prefixes, one at a time."
        )
    return found


def _item_rows(store: DynamoDBStore, namespace: Namespace) -> Iterator[dict[str, Any]]:
    """The item rows of one namespace in key order, strongly consistent."""
    return dynamo.query(
        store.client,
        TableName=store.table_name,
        KeyConditionExpression="#pk = :pk AND begins_with(#sk, :items)",
        ProjectionExpression=", ".join(_EXPORTED),
        ExpressionAttributeNames=_EXPORTED,
        ExpressionAttributeValues=dynamo.serialize(
            {":pk": encode_namespace(namespace), ":items": ITEM_PREFIX}
        ),
        ConsistentRead=True,
    )


def _memory_of(row: dict[str, Any]) -> Memory:
    paths = row.get(INDEX_PATHS)
    return Memory(
        namespace=decode_namespace(row[PK]),
        key=item_key_of(row[SK]),
        value=decode_value(row[VALUE]),
        created_at=row[CREATED_AT],
        updated_at=row[UPDATED_AT],
        ttl_minutes=_number(row[TTL_MINUTES]) if TTL_MINUTES in row else None,
        expires_at=int(row[EXPIRES_AT]) if EXPIRES_AT in row else None,
        index=None if paths is None else list(paths) or False,
    )


def _number(value: Decimal) -> float:
    return int(value) if value == value.to_integral_value() else float(value)


def import_lines(store: DynamoDBStore, source: IO[str]) -> Imported:
    """Put every line's memory into `store` with its exported timestamps, TTL and index
    choice. Every line is checked first: a bad one raises `ValueError` naming its number
    and nothing is written. A failure while writing raises `PartlyDone` saying how many
    were written (running the import again is safe: it rewrites them). Lines whose expiry
    has passed are counted, not written."""
    with contextlib.ExitStack() as stack:
        if not source.seekable():  # a pipe: spool it for the second pass
            spool = stack.enter_context(tempfile.TemporaryFile("w+"))
            shutil.copyfileobj(source, spool)
            spool.seek(0)
            source = spool
        start = source.tell()
        now = clock.now()
        total = expired = 0
        for _, memory in _memories(source, now):
            total += 1
            expired += _expired(memory, now)
        source.seek(start)
        batch: list[Memory] = []
        done = Progress(total - expired)
        for number, memory in _memories(source, now):
            if not _expired(memory, now):
                batch.append(memory)
            if len(batch) == PAGE:
                done.write(store, batch, number)
                batch = []
        if batch:
            done.write(store, batch, number)
    return Imported(done.written, expired)


def _expired(memory: Memory, now: float) -> bool:
    return memory.expires_at is not None and memory.expires_at <= now


@dataclass
class Progress:
    """How far an import got: `written` memories, every one up to line `line`."""

    total: int
    written: int = 0
    line: int = 0

    def write(self, store: DynamoDBStore, batch: list[Memory], last_line: int) -> None:
        """Put `batch` (up to `last_line`) and restore its timestamps and expiry."""
        try:
            store.batch([memory.put() for memory in batch])
            dynamo.parallel_map(lambda memory: _restore(store, memory), batch)
        except Exception as error:
            raise PartlyDone(
                f"{self.written:,} of {self.total:,} memories, every one up to line "
                f"{self.line}, were written, and some of the next {len(batch)} may have "
                "been; running the same import again is safe: it rewrites them",
                error,
            ) from error
        self.written += len(batch)
        self.line = last_line


def _restore(store: DynamoDBStore, memory: Memory) -> None:
    """Give an imported memory its exported timestamps and expiry (the put stamped it
    now): one UpdateItem, on condition that it still holds the value just put, so a
    concurrent write wins."""
    restored: dict[str, Any] = {}
    if memory.updated_at is not None and memory.created_at is not None:
        restored[CREATED_AT] = memory.created_at
        restored[UPDATED_AT] = memory.updated_at
        restored[RECENCY] = recency_sort_key(memory.updated_at, memory.key)
    if memory.expires_at is not None:
        restored[EXPIRES_AT] = memory.expires_at
    if not restored:
        return
    update = update_expression(restored)
    try:
        store.client.update_item(
            TableName=store.table_name,
            Key=dynamo.serialize(key_of(memory.namespace, memory.key)),
            UpdateExpression=update["UpdateExpression"],
            ConditionExpression="#value = :value",
            ExpressionAttributeNames={**update["ExpressionAttributeNames"], "#value": VALUE},
            ExpressionAttributeValues=dynamo.serialize(
                {**update["ExpressionAttributeValues"], ":value": encode_value(memory.value)}
            ),
        )
    except ClientError as error:
        if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
            raise


def _memories(lines: IO[str], now: float) -> Iterator[tuple[int, Memory]]:
    """Every non-blank line (numbered) as a checked `Memory`; `ValueError` naming the first
    bad one."""
    for number, line in enumerate(lines, start=1):
        if line.strip():
            try:
                yield number, _parse(line, now)
            except ValueError as error:
                problem = str(error).rstrip(".")
                raise ValueError(
                    f"Line {number} is not an exported memory: {problem}. Nothing was imported."
                ) from None


def _parse(line: str, now: float) -> Memory:
    record = json_object(line)
    if "thread_id" in record and "row" in record:
        raise ValueError(
            "it is a thread's row (a `threads export` line): import it with "
            "`dynamodb-memory threads import`"
        )
    unknown = sorted(set(record) - set(FIELDS))
    if unknown:
        raise ValueError(f"unknown field(s) {unknown}; known: {list(FIELDS)}")
    namespace, key, value = record.get("namespace"), record.get("key"), record.get("value")
    if not isinstance(namespace, list) or not all(isinstance(label, str) for label in namespace):
        raise ValueError(f"namespace must be a list of labels (strings), got {namespace!r:.80}")
    if not isinstance(key, str):
        raise ValueError(f"key must be a string, got {json.dumps(key):.80}")
    if not isinstance(value, dict):
        raise ValueError(f"value must be a JSON object, got {json.dumps(value):.80}")
    memory = Memory(
        namespace=tuple(namespace),
        key=key,
        value=value,
        created_at=_stamp(record, "created_at"),
        updated_at=_stamp(record, "updated_at"),
        ttl_minutes=_ttl(record),
        expires_at=_expires_at(record),
        index=_index(record),
    )
    op = memory.put()
    validate_op(op)
    build_row(op, now)  # the value's JSON, the item size and the TTL, as a put checks them
    return memory


def _stamp(record: dict[str, Any], name: str) -> str | None:
    """A timestamp in the stored form; `created_at` and `updated_at` come together."""
    other = "updated_at" if name == "created_at" else "created_at"
    text = record.get(name)
    if (text is None) != (record.get(other) is None):
        raise ValueError("created_at and updated_at go together: give both or neither")
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text) if isinstance(text, str) else None
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise ValueError(f"{name} must be an ISO 8601 time with its UTC offset, got {text!r:.60}")
    return stamp_of(moment)


def _ttl(record: dict[str, Any]) -> float | None:
    minutes = record.get("ttl_minutes")
    if minutes is not None and (isinstance(minutes, bool) or not isinstance(minutes, int | float)):
        raise ValueError(f"ttl_minutes must be a number of minutes, got {minutes!r:.60}")
    return minutes


def _expires_at(record: dict[str, Any]) -> int | None:
    expires = record.get("expires_at")
    if expires is None:
        return None
    if isinstance(expires, bool) or not isinstance(expires, int):
        raise ValueError(f"expires_at must be epoch seconds (an integer), got {expires!r:.60}")
    if record.get("ttl_minutes") is None:
        raise ValueError("expires_at needs ttl_minutes (the TTL a read slides it by)")
    return expires


def _index(record: dict[str, Any]) -> Literal[False] | list[str] | None:
    index = record.get("index")
    if index is None or index is False:
        return index
    if isinstance(index, list) and index and all(isinstance(p, str) and p for p in index):
        return index
    raise ValueError(f"index must be false or a list of paths, got {json.dumps(index):.60}")
