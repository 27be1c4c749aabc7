"""Serialize DynamoDB items without re-walking their shape, member by member.

moto turns every response into JSON through the service model, trying a dozen aliases for
each member of each `AttributeValue`: for a Query returning 20 small items that is most of
the request's time, and for a Query of 150 checkpoint rows (binary members, maps of
pending writes) about 2 ms a row, so a thread's history read slowed with the rows it
returned. moto's items are already in DynamoDB's wire form (`{"S": ...}`, `{"M": {...}}`),
so an `AttributeValue` is emitted as it is, its binary members (`B`, `BS`) base64-encoded
as moto's own path encodes them; anything of another form takes moto's path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from moto.core.serialize import BaseJSONSerializer

SERVICES = frozenset({"dynamodb", "dynamodbstreams"})


def wire_attribute_values(original: Callable[..., None]) -> Callable[..., None]:
    """Wrap `BaseJSONSerializer._serialize_type_structure` with the pass-through."""

    def serialize_structure(
        self: BaseJSONSerializer, serialized: Any, value: Any, shape: Any, key: str
    ) -> None:
        if (
            key
            and shape.name == "AttributeValue"
            and self.operation_model.service_model.service_name in SERVICES
        ):
            wire = _wire(value, self._base64)
            if wire is not None:
                serialized[self.get_serialized_name(shape, key)] = wire
                return
        original(self, serialized, value, shape, key)

    return serialize_structure


def _wire(value: Any, encode: Callable[[str | bytes], str]) -> Any:
    """`value` as JSON, binaries base64-encoded by `encode`; None if it is not an
    attribute value of a form this knows."""
    if not isinstance(value, dict) or len(value) != 1:
        return None
    ((kind, inner),) = value.items()
    if kind in ("S", "N"):
        return value if isinstance(inner, str) else None
    if kind == "B":
        return {kind: encode(inner)} if isinstance(inner, (str, bytes)) else None
    if kind == "M":
        if not isinstance(inner, dict):
            return None
        members = {name: _wire(member, encode) for name, member in inner.items()}
        return None if None in members.values() else {kind: members}
    if kind == "L":
        if not isinstance(inner, list):
            return None
        items = [_wire(member, encode) for member in inner]
        return None if None in items else {kind: items}
    if kind in ("SS", "NS"):
        return value if isinstance(inner, list) and all(isinstance(v, str) for v in inner) else None
    if kind == "BS":
        if not isinstance(inner, list) or not all(isinstance(v, (str, bytes)) for v in inner):
            return None
        return {kind: [encode(v) for v in inner]}
    if kind in ("BOOL", "NULL"):
        return value if isinstance(inner, bool) else None
    return None
