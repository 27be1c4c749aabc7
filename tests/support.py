"""Test support: count the requests a client sends (observed at botocore's boundary)."""

from __future__ import annotations

from collections import Counter
from typing import Any


class RequestCounter:
    """Counts API calls per operation name on one boto3 client."""

    def __init__(self, client: Any) -> None:
        self.calls: Counter[str] = Counter()
        client.meta.events.register("before-call.dynamodb", self._count)

    def _count(self, model: Any, **_: Any) -> None:
        self.calls[model.name] += 1

    def reset(self) -> None:
        self.calls.clear()

    @property
    def total(self) -> int:
        return sum(self.calls.values())


class FakeClock:
    """The library's clock (`langgraph.store.dynamodb.clock`) under a test's control: time
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
