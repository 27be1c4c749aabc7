"""Lambda's event filtering as the emulation's stream delivery and the consumer apply
it: no pattern lets every record through, and numeric ranges include their bounds."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.store.dynamodb.stream.event_filter import matches_filter

RECORD: dict[str, Any] = {"eventName": "INSERT", "dynamodb": {"SizeBytes": 5}}


@pytest.mark.parametrize("patterns", [None, [], {"Filters": []}])
def test_without_a_pattern_every_record_passes(patterns: Any) -> None:
    assert matches_filter(RECORD, patterns)


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ([">=", 5, "<=", 5], True),
        ([">", 5], False),
        (["<", 5], False),
        (["=", 5], True),
        ([">=", 1, "<=", 4], False),
    ],
)
def test_numeric_ranges_include_their_bounds(rule: list[Any], expected: bool) -> None:
    pattern = {"dynamodb": {"SizeBytes": [{"numeric": rule}]}}
    assert matches_filter(RECORD, [pattern]) is expected
