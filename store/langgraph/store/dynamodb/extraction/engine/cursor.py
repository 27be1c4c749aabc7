"""The cursor of one strategy on one thread: how far the thread is processed, under a
lease. Every change is one conditional UpdateItem, so two runners never both hold a
thread, a runner whose lease lapsed cannot move the cursor, and no write moves it back:
an advance names the count of advances it read (`CURSOR_ADVANCES`).

A purge deletes cursors; a runner that finds its cursor gone (`CursorGoneError`) stops and
undoes what it wrote, so an extraction racing a purge leaves nothing behind."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from botocore.exceptions import ClientError
from langgraph.store.dynamodb.extraction.engine.keys import (
    cursor_key,
    cursors_prefix,
    parse_cursor_sk,
    tenant_pk,
)
from langgraph.store.dynamodb.table import dynamo
from langgraph.store.dynamodb.table.schema import (
    CURSOR_ADVANCES,
    CURSOR_CHECKPOINT,
    CURSOR_FORGETS,
    CURSOR_FORGOTTEN,
    CURSOR_LAG,
    CURSOR_MESSAGE,
    CURSOR_PENDING,
    CURSOR_STRATEGY,
    LAST_ERROR,
    LAST_RUN_AT,
    LEASE_OWNER,
    LEASE_UNTIL,
    MEMORY_COUNT,
    PK,
    SK,
    TENANT,
    THREAD_ID,
)

CONDITION_FAILED = "ConditionalCheckFailedException"


class CursorGoneError(RuntimeError):
    """The cursor was deleted (a purge) while a run held it."""


class LeaseLostError(RuntimeError):
    """Another runner holds or moved the cursor: this run's lease lapsed. `row` is the
    cursor as it is."""

    def __init__(self, message: str, row: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.row = row or {}


@dataclass(frozen=True)
class Cursor:
    """A cursor as read: the checkpoint processed through and the last message processed
    (None: nothing yet), its count of advances, its lease, the last run and error, the
    memories formed and the messages left after the last run; the window recorded and
    not yet applied (`pending`: `Pending.dumps`), how many times the thread was forgotten
    and the last message it had then."""

    tenant: str
    thread_id: str
    strategy: str
    checkpoint_id: str | None = None
    message_id: str | None = None
    advances: int = 0
    lease_owner: str | None = None
    lease_until: float | None = None
    last_run_at: float | None = None
    last_error: str | None = None
    memory_count: int = 0
    lag: int = 0
    pending: str | None = None
    forgets: int = 0
    forgotten_message: str | None = None

    @property
    def key(self) -> dict[str, str]:
        return cursor_key(self.tenant, self.thread_id, self.strategy)


def _cursor(tenant: str, row: dict[str, Any]) -> Cursor:
    thread_id, strategy = parse_cursor_sk(str(row[SK]))

    def number(name: str) -> float | None:
        return float(row[name]) if name in row else None

    return Cursor(
        tenant=tenant,
        thread_id=thread_id,
        strategy=strategy,
        checkpoint_id=row.get(CURSOR_CHECKPOINT),
        message_id=row.get(CURSOR_MESSAGE),
        advances=int(row.get(CURSOR_ADVANCES, 0)),
        lease_owner=row.get(LEASE_OWNER),
        lease_until=number(LEASE_UNTIL),
        last_run_at=number(LAST_RUN_AT),
        last_error=row.get(LAST_ERROR),
        memory_count=int(row.get(MEMORY_COUNT, 0)),
        lag=int(row.get(CURSOR_LAG, 0)),
        pending=row.get(CURSOR_PENDING),
        forgets=int(row.get(CURSOR_FORGETS, 0)),
        forgotten_message=row.get(CURSOR_FORGOTTEN),
    )


class Cursors:
    """The cursors of one table (`client` a DynamoDB client)."""

    def __init__(self, client: Any, table: str) -> None:
        self._client = client
        self._table = table

    def acquire(
        self, tenant: str, thread_id: str, strategy: str, owner: str, until: float, now: float
    ) -> Cursor | None:
        """Lease the cursor to `owner` until `until` (creating it at the start), or None
        while another runner's lease is live."""
        key = cursor_key(tenant, thread_id, strategy)
        try:
            answer = self._client.update_item(
                TableName=self._table,
                Key=dynamo.serialize(key),
                UpdateExpression=(
                    "SET #owner = :owner, #until = :until, #tenant = :tenant, "
                    "#thread = :thread, #strategy = :strategy"
                ),
                ConditionExpression=(
                    "attribute_not_exists(#owner) OR #until < :now OR #owner = :owner"
                ),
                ExpressionAttributeNames={
                    "#owner": LEASE_OWNER,
                    "#until": LEASE_UNTIL,
                    "#tenant": TENANT,
                    "#thread": THREAD_ID,
                    "#strategy": CURSOR_STRATEGY,
                },
                ExpressionAttributeValues=dynamo.serialize(
                    {
                        ":owner": owner,
                        ":until": _decimal(until),
                        ":now": _decimal(now),
                        ":tenant": tenant,
                        ":thread": thread_id,
                        ":strategy": strategy,
                    }
                ),
                ReturnValues="ALL_NEW",
            )
        except ClientError as error:
            if error.response["Error"]["Code"] == CONDITION_FAILED:
                return None
            raise
        return _cursor(tenant, dynamo.deserialize(answer["Attributes"]))

    def advance(
        self,
        cursor: Cursor,
        owner: str,
        *,
        checkpoint_id: str | None,
        message_id: str | None,
        memories: int,
        lag: int,
        error: str | None,
        now: float,
        release: bool = False,
    ) -> Cursor:
        """Move the cursor on from what `cursor` read, record the run (and its error, or
        clear the last one), keep the lease or, with `release`, end it in the same write.
        `LeaseLostError` when another runner holds or moved it; `CursorGoneError` when it
        was deleted."""
        names = {
            "#owner": LEASE_OWNER,
            "#advances": CURSOR_ADVANCES,
            "#count": MEMORY_COUNT,
            "#ran": LAST_RUN_AT,
            "#lag": CURSOR_LAG,
        }
        values: dict[str, Any] = {
            ":owner": owner,
            ":zero": 0,
            ":one": 1,
            ":memories": memories,
            ":ran": _decimal(now),
            ":lag": lag,
        }
        sets = [
            "#advances = if_not_exists(#advances, :zero) + :one",
            "#count = if_not_exists(#count, :zero) + :memories",
            "#ran = :ran",
            "#lag = :lag",
        ]
        removes: list[str] = []
        _set_or_remove(
            (
                ("#checkpoint", CURSOR_CHECKPOINT, checkpoint_id),
                ("#message", CURSOR_MESSAGE, message_id),
                ("#error", LAST_ERROR, error),
            ),
            names,
            values,
            sets,
            removes,
        )
        names["#pending"] = CURSOR_PENDING
        removes.append("#pending")
        if release:
            names["#until"] = LEASE_UNTIL
            removes += ["#owner", "#until"]
        expression = "SET " + ", ".join(sets) + " REMOVE " + ", ".join(removes)
        if cursor.advances:
            condition = "#owner = :owner AND #advances = :read"
            values[":read"] = cursor.advances
        else:
            condition = "#owner = :owner AND attribute_not_exists(#advances)"
        try:
            row = self._update(cursor, expression, condition, names, values)
        except LeaseLostError as lost:
            # The same advance, applied once already (a retry after a lost answer)?
            row = lost.row
            applied = (
                row.get(LEASE_OWNER) == (None if release else owner)
                and int(row.get(CURSOR_ADVANCES, 0)) == cursor.advances + 1
                and row.get(CURSOR_CHECKPOINT) == checkpoint_id
                and row.get(CURSOR_MESSAGE) == message_id
            )
            if not applied:
                raise
        return _cursor(cursor.tenant, row)

    def stage(self, cursor: Cursor, owner: str, pending: str, actions: list[Any]) -> Cursor:
        """Record a window (`pending`) on the cursor with the TransactWriteItems `actions`
        (its ledger rows), in one request, while `owner` holds the cursor unmoved:
        `CursorGoneError` / `LeaseLostError` as `advance`."""
        values: dict[str, Any] = {":owner": owner, ":pending": pending}
        if cursor.advances:
            values[":read"] = cursor.advances
        update = {
            "Update": {
                "TableName": self._table,
                "Key": dynamo.serialize(cursor.key),
                "UpdateExpression": "SET #pending = :pending",
                "ConditionExpression": _held(cursor),
                "ExpressionAttributeNames": {
                    "#pk": PK,
                    "#owner": LEASE_OWNER,
                    "#advances": CURSOR_ADVANCES,
                    "#pending": CURSOR_PENDING,
                },
                "ExpressionAttributeValues": dynamo.serialize(values),
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            }
        }
        transact(self._client, cursor, [update, *actions])
        return replace(cursor, pending=pending)

    def forget(
        self,
        tenant: str,
        thread_id: str,
        strategy: str,
        checkpoint_id: str | None,
        message_id: str | None,
        now: float,
    ) -> None:
        """Move the cursor to the thread's last message (`message_id`) for good, taking it
        from any run holding it (whose next write under the lease fails and, seeing
        `forgets` grown, undoes its share): the messages before it are never extracted
        again, even by a replay."""
        names = {
            "#owner": LEASE_OWNER,
            "#until": LEASE_UNTIL,
            "#pending": CURSOR_PENDING,
            "#error": LAST_ERROR,
            "#advances": CURSOR_ADVANCES,
            "#forgets": CURSOR_FORGETS,
            "#count": MEMORY_COUNT,
            "#lag": CURSOR_LAG,
            "#ran": LAST_RUN_AT,
            "#tenant": TENANT,
            "#thread": THREAD_ID,
            "#strategy": CURSOR_STRATEGY,
        }
        values: dict[str, Any] = {
            ":zero": 0,
            ":one": 1,
            ":ran": _decimal(now),
            ":tenant": tenant,
            ":thread": thread_id,
            ":strategy": strategy,
        }
        sets = [
            "#advances = if_not_exists(#advances, :zero) + :one",
            "#forgets = if_not_exists(#forgets, :zero) + :one",
            "#count = :zero",
            "#lag = :zero",
            "#ran = :ran",
            "#tenant = :tenant",
            "#thread = :thread",
            "#strategy = :strategy",
        ]
        removes = ["#owner", "#until", "#pending", "#error"]
        _set_or_remove(
            (
                ("#checkpoint", CURSOR_CHECKPOINT, checkpoint_id),
                ("#message", CURSOR_MESSAGE, message_id),
                ("#forgotten", CURSOR_FORGOTTEN, message_id),
            ),
            names,
            values,
            sets,
            removes,
        )
        self._client.update_item(
            TableName=self._table,
            Key=dynamo.serialize(cursor_key(tenant, thread_id, strategy)),
            UpdateExpression="SET " + ", ".join(sets) + " REMOVE " + ", ".join(removes),
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=dynamo.serialize(values),
        )

    def remove(self, keys: list[dict[str, str]]) -> None:
        """Delete cursors, whoever holds them (their thread is gone)."""
        dynamo.batch_write(
            self._client, self._table, [{"DeleteRequest": {"Key": key}} for key in keys]
        )

    def read(self, cursor: Cursor) -> Cursor | None:
        """The cursor as it is now (None: deleted)."""
        answer = self._client.get_item(
            TableName=self._table, Key=dynamo.serialize(cursor.key), ConsistentRead=True
        )
        found = answer.get("Item")
        return _cursor(cursor.tenant, dynamo.deserialize(found)) if found else None

    def read_many(self, keys: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str, str], Cursor]:
        """The cursors that exist among `(tenant, thread, strategy)`, read at once."""
        wanted = {(t, th, s): cursor_key(t, th, s) for t, th, s in keys}
        by_key = {(k[PK], k[SK]): w for w, k in wanted.items()}
        rows = dynamo.batch_get(self._client, self._table, wanted.values(), consistent=True)
        found = {}
        for row in rows:
            tenant, thread_id, strategy = by_key[(row[PK], row[SK])]
            found[(tenant, thread_id, strategy)] = _cursor(tenant, row)
        return found

    def release(self, cursor: Cursor, owner: str) -> None:
        """End `owner`'s lease (nothing when it already lapsed or the cursor is gone)."""
        with contextlib.suppress(LeaseLostError, CursorGoneError):
            self._update(
                cursor,
                "REMOVE #owner, #until",
                "#owner = :owner",
                {"#owner": LEASE_OWNER, "#until": LEASE_UNTIL},
                {":owner": owner},
            )

    def delete(self, cursor: Cursor, owner: str) -> None:
        """Delete a cursor `owner` holds (its thread is gone)."""
        try:
            self._client.delete_item(
                TableName=self._table,
                Key=dynamo.serialize(cursor.key),
                ConditionExpression="#owner = :owner",
                ExpressionAttributeNames={"#owner": LEASE_OWNER},
                ExpressionAttributeValues=dynamo.serialize({":owner": owner}),
            )
        except ClientError as error:
            if error.response["Error"]["Code"] != CONDITION_FAILED:
                raise

    def of_tenant(self, tenant: str, thread_id: str | None = None) -> Iterator[Cursor]:
        """The tenant's cursors (of one thread, or all), in thread order."""
        rows = dynamo.query(
            self._client,
            TableName=self._table,
            KeyConditionExpression="#pk = :pk AND begins_with(#sk, :prefix)",
            ExpressionAttributeNames={"#pk": PK, "#sk": SK},
            ExpressionAttributeValues=dynamo.serialize(
                {":pk": tenant_pk(tenant), ":prefix": cursors_prefix(thread_id)}
            ),
            ConsistentRead=True,
        )
        for row in rows:
            yield _cursor(tenant, row)

    def _update(
        self,
        cursor: Cursor,
        expression: str,
        condition: str,
        names: dict[str, str],
        values: dict[str, Any],
    ) -> dict[str, Any]:
        names = {**names, "#pk": PK}
        condition = f"attribute_exists(#pk) AND {condition}"
        try:
            answer = self._client.update_item(
                TableName=self._table,
                Key=dynamo.serialize(cursor.key),
                UpdateExpression=expression,
                ConditionExpression=condition,
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=dynamo.serialize(values),
                ReturnValues="ALL_NEW",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as error:
            if error.response["Error"]["Code"] != CONDITION_FAILED:
                raise
            found: Any = dict(error.response).get("Item")
            if found is None:
                raise CursorGoneError(f"the cursor of {cursor.strategy} was deleted") from None
            raise LeaseLostError(
                f"another runner holds or moved the cursor of {cursor.strategy}",
                dynamo.deserialize(found),
            ) from None
        return dynamo.deserialize(answer["Attributes"])


def _set_or_remove(
    fields: Iterable[tuple[str, str, Any]],
    names: dict[str, str],
    values: dict[str, Any],
    sets: list[str],
    removes: list[str],
) -> None:
    """Add each `(placeholder, attribute, value)` to an update: set to `value`, or
    removed when it is None."""
    for name, attribute, value in fields:
        names[name] = attribute
        if value is None:
            removes.append(name)
        else:
            sets.append(f"{name} = :{name[1:]}")
            values[f":{name[1:]}"] = value


def _decimal(seconds: float) -> Decimal:
    return Decimal(str(round(seconds, 6)))


def _held(cursor: Cursor) -> str:
    """The condition that `:owner` holds `cursor` and it has not moved since it was read
    (`:read` advances)."""
    moved = "#advances = :read" if cursor.advances else "attribute_not_exists(#advances)"
    return f"attribute_exists(#pk) AND #owner = :owner AND {moved}"


def under_lease(client: Any, table: str, cursor: Cursor, owner: str, actions: list[Any]) -> None:
    """Apply TransactWriteItems `actions` only while `owner` holds `cursor` (one request):
    `CursorGoneError` when it was deleted, `LeaseLostError` when another runner holds it."""
    check = {
        "ConditionCheck": {
            "TableName": table,
            "Key": dynamo.serialize(cursor.key),
            "ConditionExpression": "#owner = :owner",
            "ExpressionAttributeNames": {"#owner": LEASE_OWNER},
            "ExpressionAttributeValues": dynamo.serialize({":owner": owner}),
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }
    }
    transact(client, cursor, [check, *actions])


def transact(client: Any, cursor: Cursor, actions: list[Any]) -> None:
    """TransactWriteItems whose first action guards the cursor: its failure becomes
    `CursorGoneError` (no cursor) or `LeaseLostError`."""
    try:
        client.transact_write_items(TransactItems=actions)
    except ClientError as error:
        reasons = error.response.get("CancellationReasons") or []
        if not reasons or reasons[0].get("Code") != "ConditionalCheckFailed":
            raise
        if "Item" not in reasons[0]:
            raise CursorGoneError(f"the cursor of {cursor.strategy} was deleted") from None
        raise LeaseLostError(
            f"another runner holds the cursor of {cursor.strategy}",
            dynamo.deserialize(dict(reasons[0]["Item"])),
        ) from None
