"""How the checkpointer talks to its table: the client, the settings every operation
shares, and the errors DynamoDB's answers become."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.store.dynamodb.table import clock, dynamo
from langgraph.store.dynamodb.table.creation import keys_must_match
from langgraph.store.dynamodb.table.errors import (
    COLLECTION_FULL,
    access_must_be_granted,
    table_must_exist,
)
from langgraph.store.dynamodb.table.schema import CP, PK, SK
from langgraph.store.dynamodb.table.thread_keys import Thread
from langgraph.store.dynamodb.table.ttl import is_expired, ttl_attributes

# How errors name the checkpointer.
SAVER = "DynamoDBSaver"
# TransactWriteItems takes at most 100 actions (and 4 MB: a put sends at most
# `puts.SPLIT_BYTES` in one).
TRANSACT_LIMIT = 100
# Why a transaction may be cancelled and succeed when sent again.
_TRANSIENT_REASONS = frozenset(
    {"TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded"}
)


class ThreadFullError(RuntimeError):
    """A write was refused because its thread reached DynamoDB's 10 GB item-collection
    limit (the table has a local secondary index)."""


@dataclass(frozen=True)
class Access:
    """The client and settings of one saver."""

    client: Any
    table: str
    serde: SerializerProtocol
    consistent: bool
    ttl_minutes: float | None
    refresh_on_read: bool

    def ttl(self) -> dict[str, Any]:
        """TTL attributes for a row written now (none without a default TTL)."""
        return dict(ttl_attributes(self.ttl_minutes, clock.now()))

    @contextlib.contextmanager
    def guard(self, thread: Thread | None = None) -> Iterator[None]:
        """DynamoDB errors worded for the saver (missing table, denied action, a table
        with another key schema), and a full item collection as `ThreadFullError` naming
        the thread."""
        try:
            with (
                table_must_exist(self.client, self.table, owner="saver"),
                access_must_be_granted(self.table),
                keys_must_match(self.client, self.table, SAVER),
            ):
                yield
        except ClientError as error:
            code = error.response.get("Error", {}).get("Code")
            reasons = error.response.get("CancellationReasons") or []
            # A transaction names the limit among its cancellation reasons, without the
            # "Exception" suffix (TransactWriteItems API reference).
            full = {COLLECTION_FULL, COLLECTION_FULL.removesuffix("Exception")}
            if thread is not None and (code in full or any(r.get("Code") in full for r in reasons)):
                raise ThreadFullError(
                    f"DynamoDB refused a write to {thread}: the thread reached the 10 GB "
                    "item-collection limit DynamoDB enforces per partition key on tables with "
                    "a local secondary index. Prune it (saver.prune([thread_id])) or start a "
                    "new thread."
                ) from error
            raise

    def query(
        self,
        pk: str,
        prefix: str | None = None,
        *,
        below: str | None = None,
        checkpoints_only: bool = False,
        expired_too: bool = False,
        **kwargs: Any,
    ) -> Iterator[dict[str, Any]]:
        """Every live row of partition `pk` whose sort key starts with `prefix` (and is
        at most `below`), deserialized, following pages lazily; rows past their expiry are
        skipped (unless `expired_too`: deleting a thread deletes those too), and with
        `checkpoints_only` so are rows holding only pending writes."""
        names = {"#pk": PK}
        values: dict[str, Any] = {":pk": {"S": pk}}
        condition = "#pk = :pk"
        if below is not None:
            condition += " AND #sk BETWEEN :lo AND :hi"
            names["#sk"] = SK
            values.update({":lo": {"S": prefix or ""}, ":hi": {"S": below}})
        elif prefix:
            condition += " AND begins_with(#sk, :prefix)"
            names["#sk"] = SK
            values[":prefix"] = {"S": prefix}
        if checkpoints_only:
            kwargs["FilterExpression"] = "attribute_exists(#cp)"
            names["#cp"] = CP
        now = clock.now()
        for row in dynamo.query(
            self.client,
            TableName=self.table,
            KeyConditionExpression=condition,
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
            ConsistentRead=self.consistent,
            **kwargs,
        ):
            if expired_too or not is_expired(row, now):
                yield row

    def get_many(self, keys: Sequence[dict[str, str]]) -> dict[tuple[str, str], dict[str, Any]]:
        """The live rows among `keys`, by (PK, SK)."""
        if not keys:
            return {}
        now = clock.now()
        rows = dynamo.batch_get(self.client, self.table, keys, consistent=self.consistent)
        return {(r[PK], r[SK]): r for r in rows if not is_expired(r, now)}

    def write(self, puts: Sequence[dict[str, Any]], deletes: Sequence[dict[str, str]]) -> None:
        """Put and delete rows with BatchWriteItem (no ordering between them)."""
        requests = [{"PutRequest": {"Item": row}} for row in puts] + [
            {"DeleteRequest": {"Key": {PK: k[PK], SK: k[SK]}}} for k in deletes
        ]
        if requests:
            dynamo.batch_write(self.client, self.table, requests)

    def update(self, body: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """One UpdateItem (an Update action's body); returns the attributes the response
        holds (per `ReturnValues`), deserialized."""
        ((_, wire),) = _actions([{"Update": body}])
        response = self.client.update_item(TableName=self.table, **wire, **kwargs)
        found: dict[str, Any] = dynamo.deserialize(response.get("Attributes", {}))
        return found

    def transact(self, actions: Sequence[dict[str, Any]]) -> None:
        """Apply up to `TRANSACT_LIMIT` actions atomically, retried on conflicts and
        throttling (each action is idempotent)."""
        items = [{kind: {"TableName": self.table, **body}} for kind, body in _actions(actions)]
        dynamo.retrying(self._transact_once, items)

    def _transact_once(self, items: list[dict[str, Any]]) -> None:
        try:
            self.client.transact_write_items(TransactItems=items)
        except ClientError as error:
            if error.response["Error"]["Code"] != "TransactionCanceledException":
                raise
            reasons = error.response.get("CancellationReasons") or []
            codes = {r.get("Code") for r in reasons} - {"None", None}
            if codes and codes <= _TRANSIENT_REASONS:
                # Retryable as a whole: `dynamo.retrying` retries this code.
                error.response["Error"]["Code"] = "TransactionConflictException"
            raise


def _actions(actions: Sequence[dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
    for action in actions:
        ((kind, body),) = action.items()
        if kind == "Put":
            yield kind, {**body, "Item": dynamo.serialize(body["Item"])}
        else:
            body = dict(body)
            body["Key"] = dynamo.serialize(body["Key"])
            if "ExpressionAttributeValues" in body:
                body["ExpressionAttributeValues"] = dynamo.serialize(
                    body["ExpressionAttributeValues"]
                )
            yield kind, body
