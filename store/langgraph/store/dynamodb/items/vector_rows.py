"""Extra vector rows: the rows holding vectors 1..n-1 of an item with several embedded
texts (vector 0 is on the item row). Their rules, written once for every writer (the
store's puts, the stream consumer, reindex, TTL refresh):

- keyed by the write that made them (`vector_version`), written before the item row
  points at them;
- each carries a copy of its item's filter attributes (`filter_<field>`, so a filtered
  `SearchVectors` sees it) and expiry (`expires_at`, so the sweep takes it with its
  item): `carried`;
- when the item's carried attributes change without a new write of its vectors (a
  re-put of the same texts, a TTL refresh, a refresh racing a reindex), its rows follow:
  `follow`;
- the rows of a version an item no longer points at are deleted by the writer that
  replaced it: `deletes`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from langgraph.store.dynamodb.items.embedding import vector_row_keys, vector_sort_key
from langgraph.store.dynamodb.table import dynamo
from langgraph.store.dynamodb.table.schema import (
    EXPIRES_AT,
    FILTER_PREFIX,
    ITEM_SK,
    PK,
    SK,
    VECTOR,
    VECTOR_COUNT,
    VECTOR_VERSION,
    WRITTEN_AT,
)


def carried(item: Mapping[str, Any]) -> dict[str, Any]:
    """What an item's extra rows copy from it: its filter attributes and its expiry."""
    return {
        name: value
        for name, value in item.items()
        if (name.startswith(FILTER_PREFIX) and isinstance(value, str)) or name == EXPIRES_AT
    }


def with_carried(item: Mapping[str, Any], copied: Mapping[str, Any]) -> dict[str, Any]:
    """`item` with `copied` in place of the attributes it carried."""
    kept = {name: value for name, value in item.items() if name not in carried(item)}
    return {**kept, **copied}


def extra_rows(
    pk: str,
    sk: str,
    version: str,
    vectors: Sequence[Any],
    copied: Mapping[str, Any],
    written_at: float,
) -> list[dict[str, Any]]:
    """The rows of vectors 1..n-1 of one write (`vectors` are those, as attributes)."""
    return [
        {
            PK: pk,
            SK: vector_sort_key(sk, version, position),
            VECTOR: vector,
            ITEM_SK: sk,
            VECTOR_VERSION: version,
            WRITTEN_AT: int(written_at),
            **copied,
        }
        for position, vector in enumerate(vectors, start=1)
    ]


def current_rows(item: Mapping[str, Any]) -> list[dict[str, str]]:
    """The keys of the extra rows an item row points at (none for 0 or 1 vector)."""
    version = item.get(VECTOR_VERSION)
    if version is None or item.get(VECTOR_COUNT) is None:
        return []
    return vector_row_keys(item[PK], item[SK], version, int(item[VECTOR_COUNT]))


def deletes(keys: Iterable[Mapping[str, str]]) -> list[dict[str, Any]]:
    """BatchWriteItem requests deleting rows."""
    return [{"DeleteRequest": {"Key": dict(key)}} for key in keys]


def follow(
    client: Any,
    table: str,
    item: Mapping[str, Any],
    filter_attributes: Iterable[str],
) -> None:
    """Make the extra rows `item` points at carry its current filter attributes and
    expiry (those of `filter_attributes` it lacks are removed from them). Rows already
    gone are left gone."""
    keys = current_rows(item)
    if not keys:
        return
    copied = carried(item)
    absent = [name for name in (*filter_attributes, EXPIRES_AT) if name not in copied]
    names = {f"#c{i}": name for i, name in enumerate([*copied, *absent])}
    by_name = {name: alias for alias, name in names.items()}
    expression = ""
    if copied:
        expression = "SET " + ", ".join(f"{by_name[n]} = :c{i}" for i, n in enumerate(copied))
    if absent:
        expression += " REMOVE " + ", ".join(by_name[name] for name in absent)
    values = {f":c{i}": value for i, value in enumerate(copied.values())}
    names["#sk"] = SK

    def update(key: Mapping[str, str]) -> None:
        request: dict[str, Any] = {
            "TableName": table,
            "Key": dynamo.serialize(dict(key)),
            "UpdateExpression": expression.strip(),
            "ConditionExpression": "attribute_exists(#sk)",
            "ExpressionAttributeNames": names,
        }
        if values:
            request["ExpressionAttributeValues"] = dynamo.serialize(values)
        try:
            client.update_item(**request)
        except client.exceptions.ConditionalCheckFailedException:
            return

    dynamo.parallel_map(update, keys)
