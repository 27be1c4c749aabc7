"""DynamoDB's TTL sweep, which moto never runs on its own."""

from __future__ import annotations

import time
from decimal import Decimal, InvalidOperation
from typing import Any

from langgraph.store.dynamodb.table.ttl import SWEEPER
from langgraph.store.dynamodb.testing import _vector as v
from moto.dynamodb.models import dynamodb_backends

__all__ = ["TTL_USER_IDENTITY", "expire_ttl_items"]

TTL_USER_IDENTITY = SWEEPER
_FIVE_YEARS = 5 * 365 * 24 * 3600


def _expired(value: Any, now: float) -> bool:
    if value is None or value.type != "N":
        return False  # AWS ignores TTL attributes that are not numbers
    try:
        expires = Decimal(value.value)
    except InvalidOperation:
        return False
    # AWS never deletes items whose expiry is more than five years in the past.
    return now - _FIVE_YEARS <= expires < Decimal(repr(now))


def expire_ttl_items(
    table_name: str | None = None,
    *,
    now: float | None = None,
    region: str | None = None,
    account_id: str | None = None,
) -> int:
    """Run DynamoDB's TTL sweep now; returns how many items were deleted.

    Deletes, in every table with TTL ``ENABLED`` (or just ``table_name``), the items whose
    TTL attribute is a number (epoch seconds) in the past (``now`` defaults to
    ``time.time()``) but not more than five years in the past, exactly as AWS's background
    sweep would. Each deletion emits a stream ``REMOVE`` record carrying
    ``userIdentity = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}``, and
    removes the item from every vector index. Works for ``mock_aws`` and for
    ``local_endpoint`` (both keep their state in this process).
    """
    t = time.time() if now is None else now
    deleted = 0
    with v.LOCK:
        for account, reg, table in v.iter_tables(dynamodb_backends):
            if table_name is not None and table.name != table_name:
                continue
            if region is not None and reg != region:
                continue
            if account_id is not None and account != account_id:
                continue
            if table.ttl.get("TimeToLiveStatus") != "ENABLED":
                continue
            attr = table.ttl.get("AttributeName")
            for item in table.all_items():
                if not _expired(item.attrs.get(attr), t):
                    continue
                shard = table.stream_shard
                before = len(shard.items) if shard is not None else 0
                table.delete_item(item.hash_key, item.range_key)
                deleted += 1
                if shard is not None and len(shard.items) > before:
                    shard.items[-1].record["userIdentity"] = dict(TTL_USER_IDENTITY)
    return deleted
