"""Item rows: from a `PutOp` to DynamoDB attributes and back to LangGraph items."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import Item, PutOp, SearchItem
from langgraph.store.dynamodb.items.filters import matches
from langgraph.store.dynamodb.table.keys import (
    decode_namespace,
    encode_namespace,
    item_key_of,
    item_sort_key,
    recency_sort_key,
)
from langgraph.store.dynamodb.table.schema import (
    CREATED_AT,
    ITEM_ATTRIBUTES,
    PK,
    RECENCY,
    SK,
    UPDATED_AT,
    VALUE,
)
from langgraph.store.dynamodb.table.ttl import ttl_attributes
from langgraph.store.dynamodb.table.updates import update_expression
from langgraph.store.dynamodb.table.values import check_item_size, decode_value, encode_value

# What reads fetch: an `Item`'s fields plus what TTL refresh and `omit_expired` need. Never
# the vector (4 KB-13 KB per item at 1024 dims) or the embedding bookkeeping.
READ_ATTRIBUTES = (PK, SK, *ITEM_ATTRIBUTES)
READ_NAMES = {f"#r{i}": name for i, name in enumerate(READ_ATTRIBUTES)}
READ_PROJECTION = ", ".join(READ_NAMES)


def key_of(namespace: tuple[str, ...], key: str) -> dict[str, str]:
    """The primary key of an item."""
    return {PK: encode_namespace(namespace), SK: item_sort_key(key)}


def stamp_of(moment: datetime) -> str:
    """A moment as rows store it: ISO 8601 in UTC with microseconds, fixed width, so string
    order is time order (the recency index relies on it)."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def build_row(op: PutOp, at: float) -> dict[str, Any]:
    """The attributes a put writes (without `created_at`, which survives overwrites).
    Raises `ValueError` for a value that is not JSON or an item over 400 KB (counting its
    copy in the recency index, which DynamoDB counts against the same limit)."""
    assert op.value is not None
    stamp = stamp_of(datetime.fromtimestamp(at, UTC))
    row: dict[str, Any] = {
        **key_of(op.namespace, op.key),
        VALUE: encode_value(op.value),
        UPDATED_AT: stamp,
        RECENCY: recency_sort_key(stamp, op.key),
        **ttl_attributes(op.ttl, at),
    }
    check_row_size(row)
    return row


def check_row_size(row: dict[str, Any]) -> None:
    """Raise `ValueError` when a row, with the `created_at` it will carry (and its copy in
    the recency index), exceeds DynamoDB's item size limit."""
    full = {**row, CREATED_AT: row[UPDATED_AT]}
    check_item_size(full, indexed=index_entry(full))


def index_entry(row: dict[str, Any]) -> dict[str, Any]:
    """The recency index's copy of an item row: its keys and `ITEM_ATTRIBUTES`."""
    return {name: row[name] for name in (PK, SK, RECENCY, *ITEM_ATTRIBUTES) if name in row}


def row_matches(row: dict[str, Any], filter: Mapping[str, Any] | None) -> bool:
    """Whether a stored row's value satisfies a search filter (decoded only when needed)."""
    return not filter or matches(decode_value(row[VALUE]), filter)


def to_item(row: dict[str, Any]) -> Item:
    """A stored row as a LangGraph `Item`."""
    return Item(
        value=decode_value(row[VALUE]),
        key=item_key_of(row[SK]),
        namespace=decode_namespace(row[PK]),
        created_at=datetime.fromisoformat(row[CREATED_AT]),
        updated_at=datetime.fromisoformat(row[UPDATED_AT]),
    )


def to_search_item(row: dict[str, Any], score: float | None = None) -> SearchItem:
    """A stored row as a LangGraph `SearchItem`."""
    item = to_item(row)
    return SearchItem(
        namespace=item.namespace,
        key=item.key,
        value=item.value,
        created_at=item.created_at,
        updated_at=item.updated_at,
        score=score,
    )


def update_arguments(row: dict[str, Any], removable: tuple[str, ...]) -> dict[str, Any]:
    """UpdateItem arguments writing `row` whole: every attribute set, `created_at` kept
    when the item exists, and the optional attributes the new row lacks removed."""
    return {
        "Key": {PK: row[PK], SK: row[SK]},
        **update_expression(
            {name: value for name, value in sorted(row.items()) if name not in (PK, SK)},
            if_absent={CREATED_AT: row[UPDATED_AT]},
            removes=[name for name in removable if name not in row],
        ),
    }
