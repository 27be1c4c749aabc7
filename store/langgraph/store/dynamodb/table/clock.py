"""The library's clock, in one place so that tests can control time.

Callers look these functions up on this module at call time (`clock.now()`), so a test
replaces them with `monkeypatch.setattr(clock, "now", ...)` instead of sleeping.
"""

from __future__ import annotations

import time


def now() -> float:
    """Wall-clock epoch seconds: TTL expiry and registry stamps are compared against
    DynamoDB's wall clock."""
    return time.time()


def monotonic() -> float:
    """Seconds on a clock that never jumps back: how long a process trusts its cache."""
    return time.monotonic()


def sleep(seconds: float) -> None:
    """Wait `seconds` (a job waiting out other processes' caches)."""
    time.sleep(seconds)
