"""Serialize DynamoDB items without re-walking their shape, member by member.

moto turns every response into JSON through the service model, trying a dozen aliases for
each member of each `AttributeValue`: for a Query returning 20 small items that is most of
the request's time. moto's items are already in DynamoDB's wire form (`{"S": ...}`,
`{"M": {...}}`), so an `AttributeValue` made only of JSON-native members (strings,
numbers as strings, booleans, null, and maps, lists and sets of those) is emitted as it is.
Binary members (`B`, `BS`) take moto's path, which base64-encodes them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from moto.core.serialize import BaseJSONSerializer

SERVICES = frozenset({"dynamodb", "dynamodbstreams"})
_BINARY = frozenset({"B", "BS"})


def wire_attribute_values(original: Callable[..., None]) -> Callable[..., None]:
    """Wrap `BaseJSONSerializer._serialize_type_structure` with the pass-through."""

    def serialize_structure(
        self: BaseJSONSerializer, serialized: Any, value: Any, shape: Any, key: str
    ) -> None:
        if (
            key
            and shape.name == "AttributeValue"
            and self.operation_model.service_model.service_name in SERVICES
            and _plain(value)
        ):
            serialized[self.get_serialized_name(shape, key)] = value
            return
        original(self, serialized, value, shape, key)

    return serialize_structure


def _plain(value: Any) -> bool:
    if not isinstance(value, dict) or len(value) != 1:
        return False
    ((kind, inner),) = value.items()
    if kind in _BINARY:
        return False
    if kind == "M":
        return isinstance(inner, dict) and all(_plain(v) for v in inner.values())
    if kind == "L":
        return isinstance(inner, list) and all(_plain(v) for v in inner)
    if kind in ("S", "N"):
        return isinstance(inner, str)
    if kind in ("SS", "NS"):
        return isinstance(inner, list) and all(isinstance(v, str) for v in inner)
    if kind in ("BOOL", "NULL"):
        return isinstance(inner, bool)
    return False
