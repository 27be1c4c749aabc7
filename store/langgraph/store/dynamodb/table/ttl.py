"""TTL arithmetic: expiry stamps, visibility, and when a read refreshes an item.

`expires_at` is epoch seconds (DynamoDB's TTL attribute) rounded up; `ttl_minutes` keeps
the item's own TTL so a refresh slides the expiry by that item's TTL, not the store default.

Refresh rule: a read rewrites the expiry only once at least `REFRESH_FRACTION` of the
item's TTL has elapsed since it was last set, so a hot item costs at most one write per
tenth of its TTL, and every read leaves the item at least 90% of its TTL to live. An
item already past its expiry is never refreshed: DynamoDB's sweep may lag, it must not
come back to life.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from langgraph.store.dynamodb.table.schema import EXPIRES_AT, TTL_MINUTES

# The `userIdentity` of a stream record whose item DynamoDB's TTL sweep deleted
# (DynamoDB Streams API reference, `Record.userIdentity`).
SWEEPER = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}
REFRESH_FRACTION = 0.1
# The TTL range the store accepts, in minutes: from one millisecond to 1,000 years. Both
# ends keep `expires_at` and `ttl_minutes` ordinary DynamoDB numbers and datetimes.
MIN_TTL_MINUTES = 1 / 60_000
MAX_TTL_MINUTES = 1000 * 365 * 24 * 60


def expiry(ttl_minutes: float, at: float) -> int:
    """Epoch second at which an item written at `at` with this TTL expires."""
    return math.ceil(at + ttl_minutes * 60)


def ttl_attributes(ttl_minutes: float | None, at: float) -> dict[str, Any]:
    """The TTL attributes of an item written at `at` (empty when it never expires)."""
    if ttl_minutes is None:
        return {}
    check_ttl(ttl_minutes)
    return {EXPIRES_AT: expiry(ttl_minutes, at), TTL_MINUTES: Decimal(str(ttl_minutes))}


def check_ttl(ttl_minutes: Any, name: str = "ttl") -> None:
    """Raise `ValueError` unless `ttl_minutes` is a number of minutes in the accepted range."""
    if (
        isinstance(ttl_minutes, bool)
        or not isinstance(ttl_minutes, (int, float))
        or not MIN_TTL_MINUTES <= ttl_minutes <= MAX_TTL_MINUTES
    ):
        raise ValueError(
            f"{name} must be a positive number of minutes, from {MIN_TTL_MINUTES:.2g} (one "
            f"millisecond) to {MAX_TTL_MINUTES} (1,000 years), or None for no expiry; got "
            f"{ttl_minutes!r}"
        )


def is_expired(item: dict[str, Any], at: float) -> bool:
    """True once the item's expiry has passed."""
    expires = item.get(EXPIRES_AT)
    return expires is not None and float(expires) <= at


def needs_refresh(item: dict[str, Any], at: float) -> bool:
    """True when a read should slide this item's expiry (see the module rule)."""
    expires, minutes = item.get(EXPIRES_AT), item.get(TTL_MINUTES)
    if expires is None or minutes is None or float(expires) <= at:
        return False  # never bring an expired item back to life
    ttl_seconds = float(minutes) * 60
    elapsed = ttl_seconds - (float(expires) - at)
    return elapsed >= REFRESH_FRACTION * ttl_seconds
