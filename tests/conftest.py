"""Shared fixtures: fake credentials and a region, so nothing can reach real AWS; a
controlled clock."""

from __future__ import annotations

import os
import time

import pytest
from langgraph.store.dynamodb.table import clock as library_clock

from tests.support import FakeClock

os.environ["AWS_ACCESS_KEY_ID"] = "testing"
os.environ["AWS_SECRET_ACCESS_KEY"] = "testing"
os.environ["AWS_SESSION_TOKEN"] = "testing"
os.environ["AWS_DEFAULT_REGION"] = "us-east-1"
os.environ.pop("AWS_PROFILE", None)


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    """A job waiting out other processes' caches (`clock.sleep`: a purge that deleted
    listings writers trust, a reindex that re-pinned) goes on at once: the tests' writers
    that must be waited for run in other processes with a clock of their own."""
    monkeypatch.setattr(library_clock, "sleep", lambda seconds: None)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """Replace the library's clock with one that moves only when the test advances it."""
    fake = FakeClock(float(int(time.time())))
    monkeypatch.setattr(library_clock, "now", fake.now)
    monkeypatch.setattr(library_clock, "monotonic", fake.monotonic)
    monkeypatch.setattr(library_clock, "sleep", fake.advance)
    return fake
