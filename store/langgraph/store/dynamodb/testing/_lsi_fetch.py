"""Reads of a local secondary index fetch what it does not project, as DynamoDB does.

A Query or Scan of a local secondary index that asks for attributes the index does not
project (a ``ProjectionExpression``/``AttributesToGet`` naming them, or
``Select=ALL_ATTRIBUTES``) gets them from the table ("fetching"); moto 5.2.5 drops them.
While such a request runs on a thread, local secondary indexes project nothing away and the
request's own projection applies. Global secondary indexes never fetch.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

from moto.dynamodb.models.dynamo_type import Item
from moto.dynamodb.models.table import LocalSecondaryIndex

_state = threading.local()

__all__ = ["fetching", "project"]


@contextlib.contextmanager
def fetching(body: dict[str, Any]) -> Iterator[None]:
    """While a request with this body runs, let local secondary indexes fetch."""
    wants = body.get("IndexName") and (
        body.get("ProjectionExpression")
        or body.get("AttributesToGet")
        or body.get("Select") == "ALL_ATTRIBUTES"
    )
    previous = getattr(_state, "on", False)
    _state.on = bool(wants)
    try:
        yield
    finally:
        _state.on = previous


def project(original: Callable[[LocalSecondaryIndex, Item], Item]) -> Any:
    """Wrap ``LocalSecondaryIndex.project`` to keep every attribute while fetching."""

    def project(self: LocalSecondaryIndex, item: Item) -> Item:
        return item if getattr(_state, "on", False) else original(self, item)

    return project
