"""The write path: item rows, their extra vector rows, registry upkeep, TTL refreshes.

Extra vector rows are keyed by the write that made them (`vector_version`), and a put
writes them *before* its item row: whatever order concurrent writers interleave in, the
item row that lands last points at rows that already exist, and no writer ever overwrites
another's rows. A writer then deletes the rows of the version it replaced (the old version
comes back from the item write itself, so only the writer that replaced a version deletes
it). Rows left by a failed or superseded write are never read (readers match the item's
version) and are collected by `SemanticSearch` once old.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from botocore.exceptions import ClientError
from langgraph.store.dynamodb.items import vector_rows
from langgraph.store.dynamodb.items.embedding import vector_row_keys
from langgraph.store.dynamodb.items.index_config import IndexSettings
from langgraph.store.dynamodb.items.registry import Registry
from langgraph.store.dynamodb.items.rows import key_of, update_arguments
from langgraph.store.dynamodb.items.vector_rows import carried
from langgraph.store.dynamodb.table import clock, dynamo
from langgraph.store.dynamodb.table.errors import raise_if_collection_full
from langgraph.store.dynamodb.table.keys import Namespace, decode_namespace
from langgraph.store.dynamodb.table.schema import (
    CONTENT_HASH,
    CREATED_AT,
    EXPIRES_AT,
    INDEX_PATHS,
    PENDING,
    PK,
    SK,
    TTL_MINUTES,
    UPDATED_AT,
    VECTOR,
    VECTOR_COUNT,
    VECTOR_VERSION,
)
from langgraph.store.dynamodb.table.ttl import expiry, needs_refresh

logger = logging.getLogger(__name__)

# Attributes a put may leave out; an overwrite removes them from the old row.
OPTIONAL_ATTRIBUTES = (
    EXPIRES_AT,
    TTL_MINUTES,
    VECTOR,
    CONTENT_HASH,
    VECTOR_COUNT,
    VECTOR_VERSION,
    INDEX_PATHS,
    PENDING,
)
# Stream mode keeps `vector_count` and `vector_version` (the consumer deletes the extra
# rows they name once it has written the new ones).
CHANGED_CONTENT_REMOVES = (EXPIRES_AT, TTL_MINUTES, VECTOR, INDEX_PATHS)
SAME_CONTENT_REMOVES = (EXPIRES_AT, TTL_MINUTES)
MAX_PENDING_ATTEMPTS = 6

ItemKey = tuple[Namespace, str]
RowKey = tuple[str, str]
# The vector rows an item had before a write replaced or deleted it: (version, count).
OldVectors = dict[RowKey, tuple[str, int]]
# Puts made only if the item is still the version a caller read: its stored `updated_at`
# (None: only if the item does not exist).
Expected = dict[RowKey, str | None]


class ChangedSinceReadError(Exception):
    """A conditional put found the item changed (or created, or deleted) since it was
    read; nothing was written. Read it again and redo the change."""


class Writer:
    """Applies a batch's final puts and deletes to one table."""

    def __init__(
        self, client: Any, table: str, registry: Registry, index: IndexSettings | None
    ) -> None:
        self._client = client
        self._table = table
        self._registry = registry
        self._index = index
        self._filters: tuple[str, ...] = index.filter_attributes if index else ()
        self._optional = OPTIONAL_ATTRIBUTES + self._filters

    def write(
        self,
        puts: list[dict[str, Any]],
        deletes: list[ItemKey],
        extras: dict[RowKey, list[Any]],
        at: float,
        expected: Expected | None = None,
    ) -> None:
        """Register the namespaces written to, write new vector rows, then item rows (one
        UpdateItem for a single put, else BatchWriteItem), delete replaced vector rows, and
        mark emptied namespaces. Whatever fails, the namespaces the write may have emptied
        are checked, so the registry stays exact. With `expected` (one put only) the item
        row is written only if still the version read, else `ChangedSinceReadError`."""
        if expected and (len(puts) != 1 or deletes):
            raise ValueError("a conditional put writes exactly one item")
        expected = expected or {}
        with_ttl: dict[Namespace, bool] = {}
        for row in puts:
            namespace = key_namespace(row)
            with_ttl[namespace] = with_ttl.get(namespace, False) or EXPIRES_AT in row
        emptied = {namespace for namespace, _ in deletes}
        self._registry.ensure(with_ttl)
        pending = [row for row in puts if PENDING in row]
        direct = [row for row in puts if PENDING not in row]
        old: OldVectors = {}
        try:
            if self._index is not None:
                self._write_vector_rows(direct, extras, at)
            if direct or deletes:
                old = self._write_rows(direct, deletes, expected)
            dynamo.parallel_map(lambda row: self._put_pending(row, expected), pending)
        except ClientError as error:
            self._forget_after_failure(set(with_ttl) | emptied)
            if error.response["Error"]["Code"] == "ConditionalCheckFailedException":
                raise ChangedSinceReadError("the item changed since it was read") from None
            raise_if_collection_full(error, with_ttl)
            raise
        except BaseException:
            self._forget_after_failure(set(with_ttl) | emptied)
            raise
        if self._index is not None:
            self._delete_replaced_vector_rows(direct, old)
        if emptied:
            self._registry.forget_if_empty(emptied)

    def _forget_after_failure(self, namespaces: set[Namespace]) -> None:
        try:
            self._registry.forget_if_empty(namespaces)
        except Exception:
            logger.exception("Could not re-check namespaces after a failed write")

    def _put_pending(self, row: dict[str, Any], expected: Expected) -> None:
        """Stream mode: one UpdateItem, no embedding. New or changed content writes the row
        with its pending marker and drops the stale vector; the same content (an identical
        re-put, a change outside the embedded fields) only updates the value and keeps the
        vectors, so it is never re-embedded, and its extra vector rows follow its new
        filter attributes and expiry. A lost race between the two (another writer in
        between) is retried."""
        same_row = {name: value for name, value in row.items() if name != PENDING}
        changed = update_arguments(row, CHANGED_CONTENT_REMOVES + self._filters)
        same = update_arguments(same_row, SAME_CONTENT_REMOVES + self._filters)
        digest = row[CONTENT_HASH]
        version = _version_condition(expected, row, changed, same)
        for _ in range(MAX_PENDING_ATTEMPTS):
            new = f"(attribute_not_exists(#ch) OR #ch <> :ch){version}"
            if self._conditional_update(changed, digest, new) is not None:
                return
            old = self._conditional_update(same, digest, f"#ch = :ch{version}", returns="ALL_OLD")
            if version and old is None:
                raise ChangedSinceReadError("the item changed since it was read")
            if old is not None:
                if carried(old) != carried(same_row):  # only then do its rows need to move
                    item = vector_rows.with_carried(old, carried(same_row))
                    vector_rows.follow(self._client, self._table, item, self._filters)
                return
        raise RuntimeError(
            f"Gave up writing item {row[SK]!r} of {row[PK]!r} after "
            f"{MAX_PENDING_ATTEMPTS} rounds of concurrent overwrites; retry the put."
        )

    def _conditional_update(
        self, args: dict[str, Any], digest: str, condition: str, *, returns: str = "NONE"
    ) -> dict[str, Any] | None:
        """Apply `args` if `condition` on the stored content hash holds: the item as
        `returns` asks for it ({} for NONE), or None when the condition failed."""
        try:
            response = self._client.update_item(
                TableName=self._table,
                Key=dynamo.serialize(args["Key"]),
                UpdateExpression=args["UpdateExpression"],
                ConditionExpression=condition,
                ExpressionAttributeNames={**args["ExpressionAttributeNames"], "#ch": CONTENT_HASH},
                ExpressionAttributeValues=dynamo.serialize(
                    {**args["ExpressionAttributeValues"], ":ch": digest}
                ),
                ReturnValues=returns,
            )
        except ClientError as error:
            if error.response["Error"]["Code"] == "ConditionalCheckFailedException":
                return None
            raise
        return dynamo.deserialize(response.get("Attributes", {}))

    def refresh(self, rows: list[dict[str, Any]], at: float) -> None:
        """Slide the expiry of read rows (and their extra vector rows) by their own TTL, per
        the rule in `table.ttl`. Best effort: a failure is logged and never fails the read."""
        due = {(r[PK], r[SK]): r for r in rows if needs_refresh(r, at)}
        dynamo.parallel_map(lambda row: self._refresh_one(row, at), list(due.values()))

    def _refresh_one(self, row: dict[str, Any], at: float) -> None:
        new_expiry = expiry(float(row[TTL_MINUTES]), at)
        try:
            updated = self._client.update_item(
                TableName=self._table,
                Key=dynamo.serialize({PK: row[PK], SK: row[SK]}),
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
                        ":new": new_expiry,
                        ":old": row[EXPIRES_AT],
                        ":ttl": row[TTL_MINUTES],
                        ":now": math.floor(clock.now()),
                    }
                ),
                # The item's extra vector rows slide with it. Reads through the recency
                # index (and `get`) do not fetch the vector bookkeeping: this answer does,
                # at no extra request.
                ReturnValues="ALL_NEW",
            )
            item = dynamo.deserialize(updated["Attributes"])
            vector_rows.follow(self._client, self._table, item, self._filters)
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                logger.warning("TTL refresh of %s/%s failed: %s", row[PK], row[SK], error)
        except Exception as error:  # a refresh is best effort: never fail the read
            logger.warning("TTL refresh of %s/%s failed: %r", row[PK], row[SK], error)

    def _write_rows(
        self, puts: list[dict[str, Any]], deletes: list[ItemKey], expected: Expected
    ) -> OldVectors:
        """Write item rows; returns the vector rows (version, count) each overwritten or
        deleted item had (only with an index)."""
        returns = {"ReturnValues": "UPDATED_OLD"} if self._index else {}
        if len(puts) == 1 and not deletes:
            args = update_arguments(puts[0], self._optional)
            version = _version_condition(expected, puts[0], args)
            key = args.pop("Key")
            response = self._client.update_item(
                TableName=self._table,
                Key=dynamo.serialize(key),
                UpdateExpression=args["UpdateExpression"],
                **({"ConditionExpression": version.removeprefix(" AND ")} if version else {}),
                ExpressionAttributeNames=args["ExpressionAttributeNames"],
                ExpressionAttributeValues=dynamo.serialize(args["ExpressionAttributeValues"]),
                **returns,
            )
            old = dynamo.deserialize(response.get("Attributes", {}))
            # UPDATED_OLD leaves out attributes the update did not change.
            old.setdefault(VECTOR_COUNT, puts[0].get(VECTOR_COUNT))
            return _old_vectors([{**key, **old}])
        if len(deletes) == 1 and not puts:
            key = key_of(*deletes[0])
            response = self._client.delete_item(
                TableName=self._table,
                Key=dynamo.serialize(key),
                **({"ReturnValues": "ALL_OLD"} if self._index else {}),
            )
            return _old_vectors([{**key, **dynamo.deserialize(response.get("Attributes", {}))}])
        previous = self._previous(puts, deletes)
        requests: list[dict[str, Any]] = [
            {
                "PutRequest": {
                    "Item": {
                        **row,
                        CREATED_AT: previous.get((row[PK], row[SK]), {}).get(
                            CREATED_AT, row[UPDATED_AT]
                        ),
                    }
                }
            }
            for row in puts
        ]
        requests += [{"DeleteRequest": {"Key": key_of(*key)}} for key in deletes]
        dynamo.batch_write(self._client, self._table, requests)
        return _old_vectors(list(previous.values()))

    def _previous(
        self, puts: list[dict[str, Any]], deletes: list[ItemKey]
    ) -> dict[RowKey, dict[str, Any]]:
        """`created_at` (and, with an index, the vector rows) of the items about to be
        overwritten or deleted: one BatchGetItem per 100 keys."""
        keys = [{PK: row[PK], SK: row[SK]} for row in puts]
        names = {"#c": CREATED_AT}
        if self._index is not None:
            keys += [key_of(*key) for key in deletes]
            names["#n"] = VECTOR_COUNT
            names["#v"] = VECTOR_VERSION
        if not keys:
            return {}
        found = dynamo.batch_get(
            self._client,
            self._table,
            keys,
            consistent=True,
            projection=", ".join((PK, SK, *names)),
            names=names,
        )
        return {(row[PK], row[SK]): row for row in found}

    def _write_vector_rows(
        self, puts: list[dict[str, Any]], extras: dict[RowKey, list[Any]], at: float
    ) -> None:
        """Write each put's vectors 1..n-1 as rows of its own version (`vector_rows`)."""
        requests = [
            {"PutRequest": {"Item": extra}}
            for row in puts
            if extras.get((row[PK], row[SK]))
            for extra in vector_rows.extra_rows(
                row[PK], row[SK], row[VECTOR_VERSION], extras[(row[PK], row[SK])], carried(row), at
            )
        ]
        if requests:
            dynamo.batch_write(self._client, self._table, requests)

    def _delete_replaced_vector_rows(self, puts: list[dict[str, Any]], old: OldVectors) -> None:
        """Delete the vector rows of the versions this write replaced. Best effort: rows
        left behind are never read and are collected later (see `SemanticSearch`)."""
        written = {(row[PK], row[SK]): row.get(VECTOR_VERSION) for row in puts}
        requests = vector_rows.deletes(
            key
            for (pk, sk), (version, count) in old.items()
            # A retried write may report its own version as the old one: keep it.
            if version != written.get((pk, sk))
            for key in vector_row_keys(pk, sk, version, count)
        )
        try:
            dynamo.batch_write(self._client, self._table, requests)
        except Exception as error:
            logger.warning("Could not delete %d replaced vector rows: %r", len(requests), error)


def key_namespace(row: dict[str, Any]) -> Namespace:
    """The namespace an item row belongs to."""
    return decode_namespace(row[PK])


def _old_vectors(rows: list[dict[str, Any]]) -> OldVectors:
    return {
        (r[PK], r[SK]): (r[VECTOR_VERSION], int(r[VECTOR_COUNT]))
        for r in rows
        if VECTOR_VERSION in r and r.get(VECTOR_COUNT) is not None
    }


def _version_condition(expected: Expected, row: dict[str, Any], *updates: dict[str, Any]) -> str:
    """The clause (`" AND ..."`) a conditional put adds to `updates`' conditions, with its
    names and values added to them ("" for an unconditional put)."""
    key = (row[PK], row[SK])
    if key not in expected:
        return ""
    stamp = expected[key]
    for args in updates:
        args["ExpressionAttributeNames"]["#read"] = UPDATED_AT if stamp else PK
        if stamp:
            args["ExpressionAttributeValues"][":read"] = stamp
    return " AND #read = :read" if stamp else " AND attribute_not_exists(#read)"
