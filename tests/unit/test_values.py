from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langgraph.store.dynamodb.table.values import check_item_size, decode_value, encode_value

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@given(st.dictionaries(st.text(max_size=8), json_values, max_size=5))
def test_json_values_round_trip_exactly(value: dict[str, Any]) -> None:
    decoded = decode_value(encode_value(value))
    assert decoded == value
    assert json.dumps(decoded, sort_keys=True) == json.dumps(value, sort_keys=True)


def test_types_survive() -> None:
    decoded = decode_value(encode_value({"score": 0.1, "n": 3, "big": 2**53 + 1, "f": 1.0}))
    assert decoded == {"score": 0.1, "n": 3, "big": 2**53 + 1, "f": 1.0}
    assert type(decoded["score"]) is float and type(decoded["n"]) is int
    assert type(decoded["f"]) is float


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"x": math.nan}, "NaN"),
        ({"x": math.inf}, "infinity"),
        ({"x": {1, 2}}, "set"),
        ({"x": b"raw"}, "bytes"),
        ({"x": (1, 2)}, "tuple"),
        ({"x": object()}, "not JSON"),
        ({"x": {1: "a"}}, "keys must be strings"),
        ({"deep": [{"x": [math.nan]}]}, r"\$\.deep\[0\]\.x\[0\]"),
    ],
)
def test_non_json_values_are_rejected_with_the_path(value: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        encode_value(value)


def test_non_dict_value_is_rejected() -> None:
    with pytest.raises(ValueError, match="must be a dict"):
        encode_value([1, 2])


def test_item_size_limit_names_size_and_limit() -> None:
    check_item_size({"value": "x" * (409_600 - 100)})  # DynamoDB's 400 KB
    with pytest.raises(
        ValueError, match=r"409605 bytes; DynamoDB's item size limit is 409600 bytes"
    ):
        check_item_size({"value": "x" * 409_600})
