"""Serialized values in rows: inline when small, split across chunk rows when not.

A value is the serializer's `(type, bytes)`. Its head (`t`, and `v` or `n`) sits in the
row that owns it; past `inline_limit` bytes the bytes go to `n` chunk rows of at most
`CHUNK_BYTES` each (`thread_keys.chunk_sk`), read back in one BatchGetItem and joined
byte for byte. DynamoDB's 400 KB item limit is what forces the split; S3 is never needed.
"""

from __future__ import annotations

from typing import Any

from langgraph.store.dynamodb.table.schema import COUNT, DATA, PK, SK, TYPE
from langgraph.store.dynamodb.table.thread_keys import chunk_sk

# A chunk row: the bytes plus its keys and TTL attributes, well under 400 KB.
CHUNK_BYTES = 350_000


def pack(
    pk: str,
    owner_sk: str,
    field: str,
    typed: tuple[str, bytes],
    inline_limit: int,
    extra: dict[str, Any],
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The head attributes of `typed` and its chunk rows (none when it fits inline);
    `extra` (TTL attributes) goes on every chunk row."""
    kind, data = typed
    if len(data) <= inline_limit:
        return {TYPE: kind, DATA: data}, []
    parts = [data[i : i + CHUNK_BYTES] for i in range(0, len(data), CHUNK_BYTES)]
    rows = [
        {PK: pk, SK: chunk_sk(owner_sk, field, i), DATA: part, **extra}
        for i, part in enumerate(parts)
    ]
    return {TYPE: kind, COUNT: len(parts)}, rows


def chunk_keys(pk: str, owner_sk: str, field: str, head: dict[str, Any]) -> list[dict[str, str]]:
    """The keys of the chunk rows a head refers to (none for an inline value)."""
    return [{PK: pk, SK: chunk_sk(owner_sk, field, i)} for i in range(int(head.get(COUNT, 0)))]


def unpack(
    pk: str, owner_sk: str, field: str, head: dict[str, Any], rows: dict[tuple[str, str], Any]
) -> tuple[str, bytes] | None:
    """The value a head describes, from inline bytes or from the fetched chunk `rows`
    (by key); None when a chunk is missing (expired, or deleted under the reader)."""
    if DATA in head:
        return str(head[TYPE]), bytes(head[DATA])  # boto3's Binary converts itself
    parts = []
    for key in chunk_keys(pk, owner_sk, field, head):
        row = rows.get((key[PK], key[SK]))
        if row is None:
            return None
        parts.append(bytes(row[DATA]))
    return str(head[TYPE]), b"".join(parts)
