"""The write path: item rows, their extra vector rows, registry upkeep, TTL refreshes."""

from __future__ import annotations

import math
from typing import Any

from botocore.exceptions import ClientError

from . import dynamo
from .embedding import (
    CONTENT_HASH,
    INDEX_PATHS,
    ITEM_SK,
    VECTOR,
    VECTOR_COUNT,
    vector_sort_key,
)
from .index_config import IndexSettings
from .keys import Namespace, decode_namespace
from .registry import Registry
from .rows import CREATED_AT, UPDATED_AT, key_of, update_arguments
from .ttl import EXPIRES_AT, TTL_MINUTES, expiry, needs_refresh, now

# Attributes a put may leave out; an overwrite removes them from the old row.
OPTIONAL_ATTRIBUTES = (EXPIRES_AT, TTL_MINUTES, VECTOR, CONTENT_HASH, VECTOR_COUNT, INDEX_PATHS)

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
        try:
            old_counts = self._write_rows(puts, deletes)
        except Exception:
            # Keep the registry exact for namespaces the failed write left empty.
            self._registry.forget_if_empty(with_ttl)
            raise
        if self._index is not None:
            self._write_vector_rows(puts, deletes, extras, old_counts)
        if deletes:
            self._registry.forget_if_empty(namespace for namespace, _ in deletes)

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
                # it has expired, however late this request lands.
                ConditionExpression=(
                    f"{EXPIRES_AT} = :old AND {TTL_MINUTES} = :ttl AND {EXPIRES_AT} > :now"
                ),
                ExpressionAttributeValues=dynamo.serialize(
                    {
                        ":new": expiry(float(row[TTL_MINUTES]), at),
                        ":old": row[EXPIRES_AT],
                        ":ttl": row[TTL_MINUTES],
                        ":now": math.floor(now()),
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
