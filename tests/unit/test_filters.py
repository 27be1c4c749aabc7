from __future__ import annotations

from typing import Any

import pytest
from langgraph.store.dynamodb.items.filters import matches, validate_filter

VALUE = {"n": 5, "f": 0.5, "s": "beta", "b": True, "nested": {"a": 1, "b": {"c": "x"}}, "l": [1, 2]}


@pytest.mark.parametrize(
    ("filter", "expected"),
    [
        ({"n": 5}, True),
        ({"n": 6}, False),
        ({"n": 5.0}, True),
        ({"b": True}, True),
        ({"b": 1}, False),
        ({"nested": {"a": 1}}, True),
        ({"nested": {"b": {"c": "x"}}}, True),
        ({"nested": {"b": {"c": "y"}}}, False),
        ({"l": [1, 2]}, True),
        ({"l": [1]}, False),
        ({"missing": 1}, False),
        ({"n": {"$eq": 5}}, True),
        ({"n": {"$ne": 5}}, False),
        ({"missing": {"$ne": 5}}, True),
        ({"n": {"$gt": 4}}, True),
        ({"n": {"$gt": 5}}, False),
        ({"n": {"$gte": 5}}, True),
        ({"n": {"$lt": 5}}, False),
        ({"n": {"$lte": 5}}, True),
        ({"f": {"$gt": 0.25, "$lt": 0.75}}, True),
        ({"s": {"$gt": "alpha"}}, True),
        ({"s": {"$lt": "alpha"}}, False),
        ({"s": {"$gt": 1}}, False),
        ({"missing": {"$gt": 1}}, False),
        ({"b": {"$gt": 0}}, False),
        ({"nested": {"a": {"$gte": 1}}}, True),
        ({"n": 5, "s": "beta"}, True),
        ({"n": 5, "s": "gamma"}, False),
    ],
)
def test_operators(filter: dict[str, Any], expected: bool) -> None:
    validate_filter(filter)
    assert matches(VALUE, filter) is expected


def test_unknown_operator_is_rejected_before_io() -> None:
    with pytest.raises(ValueError, match=r"\$regex"):
        validate_filter({"s": {"$regex": "b.*"}})
