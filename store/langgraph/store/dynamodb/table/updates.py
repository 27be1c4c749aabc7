"""UpdateItem expressions: one builder for every writer that sets, keeps or removes a
row's attributes by name, each name and value behind a placeholder (`#a0`/`:a0`), so any
attribute name is safe (reserved words included) and callers add their own conditions
beside them without a clash."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def update_expression(
    sets: Mapping[str, Any],
    *,
    if_absent: Mapping[str, Any] | None = None,
    removes: Iterable[str] = (),
) -> dict[str, Any]:
    """The expression of an UpdateItem (or of a transaction's Update action), its names
    and its values as given (not serialized): it sets each attribute of `sets` (`#aN =
    :aN`), each of `if_absent` only where the item lacks it (`#kN = if_not_exists(#kN,
    :kN)`), and removes `removes` (`#rN`). Without values it holds no
    `ExpressionAttributeValues` (DynamoDB refuses an empty map)."""
    names: dict[str, str] = {}
    values: dict[str, Any] = {}
    clauses: list[str] = []
    for i, (name, value) in enumerate(sets.items()):
        names[f"#a{i}"], values[f":a{i}"] = name, value
        clauses.append(f"#a{i} = :a{i}")
    for i, (name, value) in enumerate((if_absent or {}).items()):
        names[f"#k{i}"], values[f":k{i}"] = name, value
        clauses.append(f"#k{i} = if_not_exists(#k{i}, :k{i})")
    removed = list(removes)
    names.update({f"#r{i}": name for i, name in enumerate(removed)})
    parts = ["SET " + ", ".join(clauses)] if clauses else []
    if removed:
        parts.append("REMOVE " + ", ".join(f"#r{i}" for i in range(len(removed))))
    expression = " ".join(parts)
    body: dict[str, Any] = {
        "UpdateExpression": expression,
        "ExpressionAttributeNames": names,
    }
    if values:
        body["ExpressionAttributeValues"] = values
    return body
