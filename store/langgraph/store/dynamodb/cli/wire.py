"""Items as DynamoDB JSON with binary values in base64, as on the wire: what the state
file of `serve --state` and a thread export hold, so any DynamoDB client can read them."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from typing import Any


def to_text(data: Any) -> str:
    """A binary value (bytes, or boto3's `Binary`) as base64 text."""
    return base64.b64encode(bytes(data)).decode()


def to_bytes(text: Any) -> bytes:
    """Inverse of `to_text`; `ValueError` for text that is not base64."""
    try:
        return base64.b64decode(str(text), validate=True)
    except binascii.Error as error:
        raise ValueError(f"binary value {text!r:.40} is not base64 ({error})") from None


def binary_as(convert: Callable[[Any], Any], item: dict[str, Any]) -> dict[str, Any]:
    """An item (DynamoDB JSON) with every binary value, at any depth, converted."""

    def value(attribute: Any) -> Any:
        if not (isinstance(attribute, dict) and len(attribute) == 1):
            raise ValueError(f"{attribute!r:.60} is not a DynamoDB JSON value")
        ((kind, inner),) = attribute.items()
        if kind == "B":
            return {kind: convert(inner)}
        if kind == "BS" and isinstance(inner, list):
            return {kind: [convert(element) for element in inner]}
        if kind == "M" and isinstance(inner, dict):
            return {kind: {name: value(child) for name, child in inner.items()}}
        if kind == "L" and isinstance(inner, list):
            return {kind: [value(child) for child in inner]}
        return attribute  # any other shape: the endpoint validates it

    return {name: value(attribute) for name, attribute in item.items()}


def json_object(line: str) -> dict[str, Any]:
    """One line of an export as a JSON object, or a `ValueError` saying why it is not."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError) as error:
        raise ValueError(f"not JSON ({error})") from None
    if not isinstance(record, dict):
        raise ValueError(f"a JSON object is expected, got {type(record).__name__}")
    return record
