"""A tenant's model tokens per UTC day, counted on the table (`.x/<tenant>` / `d#<day>`),
against its daily budget (`Limits.daily_tokens`). Each day's row expires two days later."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime, timedelta
from typing import Any

from langgraph.store.dynamodb.extraction.engine.cursor import Cursor, CursorGoneError, transact
from langgraph.store.dynamodb.extraction.engine.keys import day_key
from langgraph.store.dynamodb.table import dynamo
from langgraph.store.dynamodb.table.schema import EXPIRES_AT, PK, TOKENS_USED

KEEP = timedelta(days=2)


def day_of(now: float) -> str:
    """The UTC day of epoch seconds `now`, `yyyy-mm-dd`."""
    return datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d")


def seconds_to_next_day(now: float) -> float:
    """Seconds until the next UTC midnight."""
    moment = datetime.fromtimestamp(now, UTC)
    midnight = (moment + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return (midnight - moment).total_seconds()


class Budget:
    """The daily token counts of one table."""

    def __init__(self, client: Any, table: str) -> None:
        self._client = client
        self._table = table

    def used(self, tenant: str, now: float) -> int:
        """Tokens the tenant used today."""
        answer = self._client.get_item(
            TableName=self._table,
            Key=dynamo.serialize(day_key(tenant, day_of(now))),
            ConsistentRead=True,
        )
        return int(dynamo.deserialize(answer.get("Item", {})).get(TOKENS_USED, 0))

    def count(self, tenant: str, tokens: int, now: float) -> dict[str, Any]:
        """The TransactWriteItems action adding `tokens` to the tenant's count of today
        (it goes with a transaction that checks the cursor: `spend`, or the window's
        record)."""
        expires = datetime.fromtimestamp(now, UTC) + KEEP
        return {
            "Update": {
                "TableName": self._table,
                "Key": dynamo.serialize(day_key(tenant, day_of(now))),
                "UpdateExpression": "ADD #used :tokens SET #expires = :expires",
                "ExpressionAttributeNames": {"#used": TOKENS_USED, "#expires": EXPIRES_AT},
                "ExpressionAttributeValues": dynamo.serialize(
                    {":tokens": tokens, ":expires": int(expires.timestamp())}
                ),
            }
        }

    def spend(self, cursor: Cursor, tokens: int, now: float) -> None:
        """Add `tokens` to the cursor's tenant's count of today while the cursor exists,
        whoever holds it: tokens a run spent count even when its lease lapsed, and a run
        racing a purge recreates no count."""
        if tokens <= 0:
            return
        exists = {
            "ConditionCheck": {
                "TableName": self._table,
                "Key": dynamo.serialize(cursor.key),
                "ConditionExpression": "attribute_exists(#pk)",
                "ExpressionAttributeNames": {"#pk": PK},
            }
        }
        with contextlib.suppress(CursorGoneError):
            transact(self._client, cursor, [exists, self.count(cursor.tenant, tokens, now)])
