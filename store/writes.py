"""The write path: item rows, their extra vector rows, registry upkeep, TTL refreshes."""

from __future__ import annotations

import math
from typing import Any

from botocore.exceptions import ClientError

from . import clock, dynamo
from .embedding import (
    CONTENT_HASH,
    INDEX_PATHS,
    ITEM_SK,
    PENDING,
    REVISION,
    VECTOR,
    VECTOR_COUNT,
    vector_sort_key,
)
from .errors import raise_if_collection_full
from .index_config import IndexSettings
from .keys import Namespace, decode_namespace
from .registry import Registry
from .rows import CREATED_AT, UPDATED_AT, key_of, update_arguments
from .ttl import EXPIRES_AT, TTL_MINUTES, expiry, needs_refresh

# Attributes a put may leave out; an overwrite removes them from the old row.
OPTIONAL_ATTRIBUTES = (
    EXPIRES_AT,
    TTL_MINUTES,
    VECTOR,
    CONTENT_HASH,
    VECTOR_COUNT,
    INDEX_PATHS,
    PENDING,
)
# Stream mode keeps `vector_count` (the consumer cleans up the extra rows it counts).
CHANGED_CONTENT_REMOVES = (EXPIRES_AT, TTL_MINUTES, VECTOR, INDEX_PATHS)
SAME_CONTENT_REMOVES = (EXPIRES_AT, TTL_MINUTES)
MAX_PENDING_ATTEMPTS = 6

ItemKey = tuple[Namespace, str]
RowKey = tuple[str, str]


class Writer:
    """Applies a batch's final puts and deletes to one table."""

    def __init__(
        self, client: Any, table: str, registry: Registry, index: IndexSettings | None
    ) -> None:
        self._client = client
        self._table = table
        self._registry = registry
        self._index = index
        self._optional = OPTIONAL_ATTRIBUTES + (index.filter_attributes if index else ())

    def write(
        self,
        puts: list[dict[str, Any]],
        deletes: list[ItemKey],
        extras: dict[RowKey, list[Any]],
    ) -> None:
        """Register the namespaces written to, write item rows (one UpdateItem for a single
        put, else BatchWriteItem), then extra vector rows, then mark emptied namespaces."""
        with_ttl: dict[Namespace, bool] = {}
        for row in puts:
            namespace = key_namespace(row)
            with_ttl[namespace] = with_ttl.get(namespace, False) or EXPIRES_AT in row
        self._registry.ensure(with_ttl)
        pending = [row for row in puts if PENDING in row]
        direct = [row for row in puts if PENDING not in row]
        old_counts: dict[RowKey, int] = {}
        try:
            if direct or deletes:
                old_counts = self._write_rows(direct, deletes)
            dynamo.parallel_map(self._put_pending, pending)
        except Exception as error:
            # Keep the registry exact for namespaces the failed write left empty.
            self._registry.forget_if_empty(with_ttl)
            if isinstance(error, ClientError):
                raise_if_collection_full(error, with_ttl)
            raise
        if self._index is not None:
            try:
                self._write_vector_rows(direct, deletes, extras, old_counts)
            except ClientError as error:
                raise_if_collection_full(error, with_ttl)
                raise
        if deletes:
            self._registry.forget_if_empty(namespace for namespace, _ in deletes)

    def _put_pending(self, row: dict[str, Any]) -> None:
        """Stream mode: one UpdateItem, no embedding. New or changed content writes the row
        with its pending marker, drops the stale vector and bumps the revision; the same
        content (an identical re-put, a change outside the embedded fields) only updates
        the value and keeps the vector, so it is never re-embedded. A lost race between
        the two (another writer in between) is retried."""
        filters = self._index.filter_attributes if self._index else ()
        same_row = {name: value for name, value in row.items() if name != PENDING}
        for _ in range(MAX_PENDING_ATTEMPTS):
            for attempt in (self._changed_content, self._same_content):
                if attempt(row, same_row, filters):
                    return
        raise RuntimeError(
            f"Gave up writing item {row['SK']!r} of {row['PK']!r} after "
            f"{MAX_PENDING_ATTEMPTS} rounds of concurrent overwrites; retry the put."
        )

    def _changed_content(
        self, row: dict[str, Any], _: dict[str, Any], filters: tuple[str, ...]
    ) -> bool:
        args = update_arguments(
            row,
            CHANGED_CONTENT_REMOVES + filters,
            also_set=("#rev = if_not_exists(#rev, :zero) + :one",),
        )
        args["ExpressionAttributeNames"]["#rev"] = REVISION
        args["ExpressionAttributeValues"].update({":zero": 0, ":one": 1})
        return self._conditional_update(
            args, row[CONTENT_HASH], "attribute_not_exists(#ch) OR #ch <> :ch"
        )

    def _same_content(
        self, row: dict[str, Any], same_row: dict[str, Any], filters: tuple[str, ...]
    ) -> bool:
        args = update_arguments(same_row, SAME_CONTENT_REMOVES + filters)
        return self._conditional_update(args, row[CONTENT_HASH], "#ch = :ch")

    def _conditional_update(self, args: dict[str, Any], digest: str, condition: str) -> bool:
        """Apply `args` if `condition` on the stored content hash holds (False if not)."""
        try:
            self._client.update_item(
                TableName=self._table,
                Key=dynamo.serialize(args["Key"]),
                UpdateExpression=args["UpdateExpression"],
                ConditionExpression=condition,
                ExpressionAttributeNames={**args["ExpressionAttributeNames"], "#ch": CONTENT_HASH},
                ExpressionAttributeValues=dynamo.serialize(
                    {**args["ExpressionAttributeValues"], ":ch": digest}
                ),
            )
        except ClientError as error:
            if error.response["Error"]["Code"] == "ConditionalCheckFailedException":
                return False
            raise
        return True

    def refresh(self, rows: list[dict[str, Any]], at: float) -> None:
        """Slide the expiry of read rows by their own TTL, per the rule in `store.ttl`."""
        due = {(r["PK"], r["SK"]): r for r in rows if needs_refresh(r, at)}
        dynamo.parallel_map(lambda row: self._refresh_one(row, at), list(due.values()))

    def _refresh_one(self, row: dict[str, Any], at: float) -> None:
        try:
            self._client.update_item(
                TableName=self._table,
                Key=dynamo.serialize({"PK": row["PK"], "SK": row["SK"]}),
                UpdateExpression=f"SET {EXPIRES_AT} = :new",
                # Only the version we read (a concurrent put or delete wins), and never once
                # it has expired, however late this request lands. An item still waiting
                # for the stream consumer is left alone (it was just written), so a
                # refresh never looks like a write that needs embedding.
                ConditionExpression=(
                    f"{EXPIRES_AT} = :old AND {TTL_MINUTES} = :ttl AND {EXPIRES_AT} > :now "
                    f"AND attribute_not_exists({PENDING})"
                ),
                ExpressionAttributeValues=dynamo.serialize(
                    {
                        ":new": expiry(float(row[TTL_MINUTES]), at),
                        ":old": row[EXPIRES_AT],
                        ":ttl": row[TTL_MINUTES],
                        ":now": math.floor(clock.now()),
                    }
                ),
            )
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise

    def _write_rows(self, puts: list[dict[str, Any]], deletes: list[ItemKey]) -> dict[RowKey, int]:
        """Write item rows; returns how many vectors each overwritten or deleted item had
        (only with an index, to clean up its extra vector rows)."""
        returns = {"ReturnValues": "UPDATED_OLD"} if self._index else {}
        if len(puts) == 1 and not deletes:
            args = update_arguments(puts[0], self._optional)
            key = args.pop("Key")
            response = self._client.update_item(
                TableName=self._table,
                Key=dynamo.serialize(key),
                UpdateExpression=args["UpdateExpression"],
                ExpressionAttributeNames=args["ExpressionAttributeNames"],
                ExpressionAttributeValues=dynamo.serialize(args["ExpressionAttributeValues"]),
                **returns,
            )
            return _old_counts([{**key, **dynamo.deserialize(response.get("Attributes", {}))}])
        if len(deletes) == 1 and not puts:
            key = key_of(*deletes[0])
            response = self._client.delete_item(
                TableName=self._table,
                Key=dynamo.serialize(key),
                **({"ReturnValues": "ALL_OLD"} if self._index else {}),
            )
            return _old_counts([{**key, **dynamo.deserialize(response.get("Attributes", {}))}])
        previous = self._previous(puts, deletes)
        requests: list[dict[str, Any]] = [
            {
                "PutRequest": {
                    "Item": {
                        **row,
                        CREATED_AT: previous.get((row["PK"], row["SK"]), {}).get(
                            CREATED_AT, row[UPDATED_AT]
                        ),
                    }
                }
            }
            for row in puts
        ]
        requests += [{"DeleteRequest": {"Key": key_of(*key)}} for key in deletes]
        dynamo.batch_write(self._client, self._table, requests)
        return _old_counts(list(previous.values()))

    def _previous(
        self, puts: list[dict[str, Any]], deletes: list[ItemKey]
    ) -> dict[RowKey, dict[str, Any]]:
        """`created_at` (and, with an index, `vector_count`) of the items about to be
        overwritten or deleted: one BatchGetItem per 100 keys."""
        keys = [{"PK": row["PK"], "SK": row["SK"]} for row in puts]
        names = {"#c": CREATED_AT}
        if self._index is not None:
            keys += [key_of(*key) for key in deletes]
            names["#n"] = VECTOR_COUNT
        if not keys:
            return {}
        found = dynamo.batch_get(
            self._client,
            self._table,
            keys,
            consistent=True,
            projection="PK, SK, " + ", ".join(names),
            names=names,
        )
        return {(row["PK"], row["SK"]): row for row in found}

    def _write_vector_rows(
        self,
        puts: list[dict[str, Any]],
        deletes: list[ItemKey],
        extras: dict[RowKey, list[Any]],
        old_counts: dict[RowKey, int],
    ) -> None:
        """Write each item's vectors 1..n-1 as rows tagged with the item's content hash
        (readers ignore rows whose hash no longer matches) and delete surplus old ones."""
        requests: list[dict[str, Any]] = []
        filter_attributes = self._index.filter_attributes if self._index else ()
        wanted = {(row["PK"], row["SK"]): row for row in puts}
        for key in deletes:
            item_key = key_of(*key)
            wanted[(item_key["PK"], item_key["SK"])] = {}
        for (pk, sk), row in wanted.items():
            for position, vector in enumerate(extras.get((pk, sk), []), start=1):
                item = {
                    "PK": pk,
                    "SK": vector_sort_key(sk, position),
                    VECTOR: vector,
                    ITEM_SK: sk,
                    CONTENT_HASH: row[CONTENT_HASH],
                    **{name: row[name] for name in filter_attributes if name in row},
                }
                requests.append({"PutRequest": {"Item": item}})
            new_count = max(1, int(row.get(VECTOR_COUNT, 0)))
            for position in range(new_count, old_counts.get((pk, sk), 0)):
                stale = {"PK": pk, "SK": vector_sort_key(sk, position)}
                requests.append({"DeleteRequest": {"Key": stale}})
        if requests:
            dynamo.batch_write(self._client, self._table, requests)


def key_namespace(row: dict[str, Any]) -> Namespace:
    """The namespace an item row belongs to."""
    return decode_namespace(row["PK"])


def _old_counts(rows: list[dict[str, Any]]) -> dict[RowKey, int]:
    return {(r["PK"], r["SK"]): int(r[VECTOR_COUNT]) for r in rows if VECTOR_COUNT in r}
