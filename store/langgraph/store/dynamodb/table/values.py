"""Value codec: JSON values stored as exact text, checked before any write; DynamoDB's
item size rule (shared with the emulation, so both agree on the limit)."""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeSerializer

# DynamoDB's item size limit is 400 KB = 409,600 bytes, counted with the rules of the
# Developer Guide, "Item sizes and formats" (https://docs.aws.amazon.com/amazondynamodb/
# latest/developerguide/CapacityUnitCalculations.html):
# - an item's size is the sum, over its attributes, of the UTF-8 length of the attribute
#   name and the size of the value;
# - String: UTF-8 bytes. Binary: raw bytes. Boolean and Null: 1 byte;
# - Number: 1 byte per two significant digits (leading and trailing zeros trimmed) plus
#   1 byte; we add 1 more for a negative sign, so we never under-count;
# - List and Map: 3 bytes plus, per element, its size and 1 byte (a Map element also
#   counts its key's UTF-8 length);
# - Sets: the sum of their elements' sizes.
MAX_ITEM_BYTES = 400 * 1024
# DynamoDB's limits on one expression (UpdateExpression, ConditionExpression, ...): its
# text in UTF-8 bytes, and its operators and functions ("Expression parameters").
MAX_EXPRESSION_BYTES = 4096
MAX_EXPRESSION_OPERATORS = 300
# Deepest nesting of dicts and lists a value may have (the top-level dict is level 1), like
# many JSON APIs: decoding and filtering stay far from Python's recursion limit.
MAX_DEPTH = 64

_serializer = TypeSerializer()


def _check(value: Any, path: str, depth: int) -> None:
    if value is None or isinstance(value, (bool, int, str)):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(
                f"Value at {path} is {value!r}; JSON has no NaN or infinity. Store a finite "
                "number or null."
            )
        return
    if isinstance(value, (dict, list)) and depth > MAX_DEPTH:
        raise ValueError(
            f"Value at {path} is nested deeper than {MAX_DEPTH} levels of dicts and lists; "
            "flatten it (e.g. store the deep part as a JSON string)."
        )
    if isinstance(value, dict):
        for key, child in value.items():
            if not isinstance(key, str):
                raise ValueError(
                    f"Value at {path} has a {type(key).__name__} key {key!r}; JSON object keys "
                    "must be strings."
                )
            _check(child, f"{path}.{key}", depth + 1)
        return
    if isinstance(value, list):
        for index, child in enumerate(value):
            _check(child, f"{path}[{index}]", depth + 1)
        return
    raise ValueError(
        f"Value at {path} is a {type(value).__name__} ({value!r:.80}), which is not JSON. "
        "Store only dict, list, str, int, float, bool and None (convert tuples to lists, "
        "sets to sorted lists, bytes to base64 text)."
    )


def encode_value(value: Any) -> str:
    """Return the exact JSON text of a value, or raise `ValueError` if it is not JSON."""
    if not isinstance(value, dict):
        raise ValueError(f"A stored value must be a dict, got {type(value).__name__}.")
    _check(value, "$", 1)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def decode_value(text: str) -> dict[str, Any]:
    """Inverse of `encode_value`."""
    decoded: dict[str, Any] = json.loads(text)
    return decoded


def check_item_size(attributes: dict[str, Any], *, indexed: dict[str, Any] | None = None) -> None:
    """Raise `ValueError` when an item would exceed DynamoDB's 400 KB limit. On a table with
    a local secondary index the limit covers the item plus its `indexed` copy."""
    size = item_size(attributes) + (item_size(indexed) if indexed else 0)
    if size > MAX_ITEM_BYTES:
        counted = " with its copy in the recency index" if indexed else ""
        raise ValueError(
            f"Item{counted} is {size} bytes; DynamoDB's item size limit is {MAX_ITEM_BYTES} "
            "bytes (400 KB). Store large content elsewhere (e.g. S3) and keep a reference."
        )


def item_size(attributes: Mapping[str, Any]) -> int:
    """DynamoDB's size of an item given as Python values (see the rule above)."""
    return sum(
        len(name.encode()) + attribute_size(_serializer.serialize(value))
        for name, value in attributes.items()
    )


def attribute_size(value: Any) -> int:
    """DynamoDB's size of one attribute value, in wire shape (`{"S": "text"}`) or as any
    object with the same `type` and `value` (moto's `DynamoType`)."""
    if isinstance(value, dict):
        ((kind, data),) = value.items()
    else:
        kind, data = value.type, value.value
    if kind == "S":
        return len(data.encode())
    if kind == "N":
        return number_size(data)
    if kind == "B":
        return len(base64.b64decode(data)) if isinstance(data, str) else len(data)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "L":
        return 3 + sum(1 + attribute_size(child) for child in data)
    if kind == "M":
        return 3 + sum(1 + len(k.encode()) + attribute_size(v) for k, v in data.items())
    if kind == "SS":
        return sum(len(s.encode()) for s in data)
    if kind == "NS":
        return sum(number_size(n) for n in data)
    if kind == "BS":
        return sum(attribute_size({"B": b}) for b in data)
    raise ValueError(f"Unknown DynamoDB attribute type {kind!r}")


def number_size(text: str) -> int:
    """Size of a DynamoDB number: 1 byte per two significant digits, plus 1 (plus 1 when
    negative)."""
    sign, digits, _ = Decimal(text).as_tuple()
    significant = "".join(map(str, digits)).strip("0") or "0"
    return (len(significant) + 1) // 2 + 1 + sign
