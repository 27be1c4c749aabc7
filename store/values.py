"""Value codec: JSON values stored as exact text, checked before any write."""

from __future__ import annotations

import json
import math
from typing import Any

# DynamoDB's item size limit, counted as UTF-8 bytes of attribute names and values.
MAX_ITEM_BYTES = 400 * 1024


def _check(value: Any, path: str) -> None:
    if value is None or isinstance(value, (bool, int, str)):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(
                f"Value at {path} is {value!r}; JSON has no NaN or infinity. Store a finite "
                "number or null."
            )
        return
    if isinstance(value, dict):
        for key, child in value.items():
            if not isinstance(key, str):
                raise ValueError(
                    f"Value at {path} has a {type(key).__name__} key {key!r}; JSON object keys "
                    "must be strings."
                )
            _check(child, f"{path}.{key}")
        return
    if isinstance(value, list):
        for index, child in enumerate(value):
            _check(child, f"{path}[{index}]")
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
    _check(value, "$")
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


def item_size(attributes: dict[str, Any]) -> int:
    """Approximate DynamoDB item size: names plus values, numbers at their text length."""
    return sum(len(name.encode()) + _size(value) for name, value in attributes.items())


def _size(value: Any) -> int:
    if isinstance(value, str):
        return len(value.encode())
    if isinstance(value, bool) or value is None:
        return 1
    if isinstance(value, (int, float)):
        return len(str(value))
    if isinstance(value, (list, tuple)):
        return 3 + sum(1 + _size(v) for v in value)
    if isinstance(value, dict):
        return 3 + sum(1 + len(k.encode()) + _size(v) for k, v in value.items())
    return len(str(value))
