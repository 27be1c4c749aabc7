"""Test support: count the requests a client sends and the items DynamoDB read to answer
them (observed at botocore's boundary), and read a table whole."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any


class RequestCounter:
    """Counts API calls per operation name on one boto3 client, and per operation the
    items read (a Query's or Scan's `ScannedCount`: what DynamoDB bills, before filters).
    Thread-safe: the store and the saver send from their own pools."""

    def __init__(self, client: Any) -> None:
        self._lock = threading.Lock()
        self.calls: Counter[str] = Counter()
        self.scanned: Counter[str] = Counter()
        self.queries: list[dict[str, Any]] = []
        client.meta.events.register("before-parameter-build.dynamodb.Query", self._query)
        client.meta.events.register("before-call.dynamodb", self._count)
        client.meta.events.register("after-call.dynamodb", self._read)

    def _query(self, params: dict[str, Any], **_: Any) -> None:
        with self._lock:
            self.queries.append(dict(params))

    def _count(self, model: Any, **_: Any) -> None:
        with self._lock:
            self.calls[model.name] += 1

    def _read(self, model: Any, parsed: Any, **_: Any) -> None:
        with self._lock:
            self.scanned[model.name] += int(parsed.get("ScannedCount", 0))

    def reset(self) -> None:
        self.calls.clear()
        self.scanned.clear()
        self.queries.clear()

    @property
    def total(self) -> int:
        return sum(self.calls.values())


class FakeClock:
    """The library's clock (`langgraph.store.dynamodb.table.clock`) under a test's control: time
    moves only when `advance` is called. Starts at the current whole second."""

    def __init__(self, start: float) -> None:
        self.wall = start
        self.elapsed = 0.0

    def now(self) -> float:
        return self.wall

    def monotonic(self) -> float:
        return self.elapsed

    def advance(self, seconds: float) -> None:
        self.wall += seconds
        self.elapsed += seconds


def scan_table(client: Any, table: str) -> list[dict[str, Any]]:
    """Every row of a table (wire format), following pagination."""
    rows: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {"TableName": table, "ConsistentRead": True}
    while True:
        response = client.scan(**kwargs)
        rows.extend(response.get("Items", []))
        if "LastEvaluatedKey" not in response:
            return rows
        kwargs["ExclusiveStartKey"] = response["LastEvaluatedKey"]
