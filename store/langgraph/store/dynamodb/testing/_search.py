"""``SearchVectors`` as a request: validation, condition parsing and projection (the
k-NN over a partition is `_vector._Partition.nearest`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np
from langgraph.store.dynamodb.testing._errors import ResourceNotFound, ValidationError
from langgraph.store.dynamodb.testing._vector import (
    MAX_TOP_K,
    MIN_SEARCH_BYTES,
    VectorIndex,
    indexes,
    now,
    partition,
)
from moto.dynamodb.models.dynamo_type import DynamoType, Item

_COND = "Invalid SearchConditionExpression: "
_BAD_COMPARATOR = _COND + "Invalid comparator used in SearchConditionExpression"
_AND = re.compile(r"\s+AND\s+", re.IGNORECASE)
_OPERAND = r"(#[A-Za-z0-9_]+|:[A-Za-z0-9_]+|[A-Za-z_][A-Za-z0-9_]*)"
_TERM = re.compile(rf"^\s*{_OPERAND}\s*=\s*{_OPERAND}\s*$")
_FORBIDDEN = re.compile(
    r"<>|<=|>=|<|>|\b(OR|NOT|BETWEEN|IN|begins_with|contains|attribute_exists|"
    r"attribute_not_exists|attribute_type|size)\b",
    re.IGNORECASE,
)


def _no_index(name: str) -> ValidationError:
    return ValidationError(f"The table does not have the specified index: {name}")


def _strip_parens(expr: str) -> str:
    expr = expr.strip()
    while expr.startswith("(") and expr.endswith(")"):
        depth = 0
        for i, ch in enumerate(expr):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and i < len(expr) - 1:
                return expr
        expr = expr[1:-1].strip()
    return expr


def parse_condition(
    expr: str,
    names: Mapping[str, str],
    values: Mapping[str, Any],
    used_names: set[str],
    used_values: set[str],
) -> list[tuple[str, DynamoType]]:
    """``#a = :x AND b = :y`` -> [(attribute, value)]; equality and AND only."""
    if not expr.strip():
        raise ValidationError(_COND + "The expression can not be empty;")
    if _FORBIDDEN.search(expr):
        raise ValidationError(_BAD_COMPARATOR)
    terms = [_strip_parens(t) for t in _AND.split(_strip_parens(expr))]
    out: list[tuple[str, DynamoType]] = []
    for term in terms:
        m = _TERM.match(term)
        if not m:
            raise ValidationError(_BAD_COMPARATOR)
        left, right = m.group(1), m.group(2)
        if left.startswith(":") and not right.startswith(":"):
            left, right = right, left
        if left.startswith(":") or not right.startswith(":"):
            raise ValidationError(_BAD_COMPARATOR)
        if left.startswith("#"):
            if left not in names:
                raise ValidationError(
                    _COND + "An expression attribute name used in the document path is not "
                    f"defined; attribute name: {left}"
                )
            used_names.add(left)
            attr = names[left]
        else:
            attr = left
        if right not in values:
            raise ValidationError(
                _COND + "An expression attribute value used in expression is not defined; "
                f"attribute value: {right}"
            )
        used_values.add(right)
        out.append((attr, DynamoType(values[right])))
    return out


def parse_projection(expr: str, names: Mapping[str, str], used_names: set[str]) -> list[str]:
    """Top-level attribute names of a ProjectionExpression (nested paths keep their root)."""
    if not expr.strip():
        raise ValidationError("Invalid ProjectionExpression: The expression can not be empty;")
    roots: list[str] = []
    for path in expr.split(","):
        path = path.strip()
        root = re.split(r"[.\[]", path, maxsplit=1)[0].strip()
        if not root:
            raise ValidationError(f'Invalid ProjectionExpression: Syntax error; token: "{path}"')
        if root.startswith("#"):
            if root not in names:
                raise ValidationError(
                    "An expression attribute name used in the document path is not defined; "
                    f"attribute name: {root}"
                )
            used_names.add(root)
            root = names[root]
        roots.append(root)
    return roots


def _project(table: Any, ix: VectorIndex, item: Item, wanted: list[str] | None) -> dict[str, Any]:
    ptype = ix.projection["ProjectionType"]
    if ptype == "ALL":
        allowed = None
    else:
        allowed = set(ix.key_attrs(table)) | {ix.vector_attr}
        if ptype == "INCLUDE":
            allowed |= set(ix.projection.get("NonKeyAttributes") or [])
    attrs = item.to_json()["Attributes"]
    out: dict[str, Any] = {}
    for name, value in attrs.items():
        if allowed is not None and name not in allowed:
            continue
        if wanted is None:
            if name == ix.vector_attr:
                continue
        elif name not in wanted:
            continue
        out[name] = value
    return out


def search_vectors(backend: Any, body: Mapping[str, Any]) -> dict[str, Any]:
    table_name = str(body.get("TableName", ""))
    if table_name.startswith("arn:"):
        table_name = table_name.split(":table/", 1)[-1].split("/", 1)[0]
    index_name = str(body.get("IndexName", ""))
    top_k = body.get("TopK")
    if not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
        raise ValidationError(
            f"Provided TopK value '{top_k}' is out of valid range. The value must be between "
            "1 and 100 inclusive"
        )
    if table_name not in backend.tables:
        raise ResourceNotFound()
    table = backend.tables[table_name]
    ix = indexes(table).get(index_name)
    t = now()
    if ix is None or ix.status(t) != "ACTIVE":
        raise _no_index(index_name)
    if ix.backfilling(t):
        raise ValidationError(f"Cannot search backfilling vector index: {index_name}")
    if t < ix.active_at + ix.search_lag:
        raise _no_index(index_name)

    raw_vector = body.get("SearchVector") or []
    try:
        query = np.array([float(v["N"]) for v in raw_vector], dtype=np.float32)
    except (KeyError, TypeError, ValueError):
        raise ValidationError("Invalid SearchVector: every element must be a number (N)") from None
    if query.shape[0] != ix.dims:
        raise ValidationError(
            f"Input search vector dimension {query.shape[0]} does not match vector index "
            f"dimension {ix.dims}"
        )

    names: Mapping[str, str] = body.get("ExpressionAttributeNames") or {}
    values: Mapping[str, Any] = body.get("ExpressionAttributeValues") or {}
    used_names: set[str] = set()
    used_values: set[str] = set()
    cond_expr = body.get("SearchConditionExpression")
    conditions: list[tuple[str, DynamoType]] = []
    if cond_expr is not None:
        conditions = parse_condition(str(cond_expr), names, values, used_names, used_values)
    hash_attr = ix.hash_attr
    if hash_attr is not None and not any(a == hash_attr for a, _ in conditions):
        raise ValidationError(
            "SearchConditionExpression must be provided when SearchSchema has a HASH key"
        )
    allowed = set(ix.filter_attrs) | ({hash_attr} if hash_attr else set())
    for attr, _ in conditions:
        if attr not in allowed:
            raise ValidationError(
                _COND + f"Attribute {attr} is not a HASH or INLINE_FILTER attribute of the "
                f"SearchSchema of index {index_name}"
            )
    wanted: list[str] | None = None
    if body.get("ProjectionExpression") is not None:
        wanted = parse_projection(str(body["ProjectionExpression"]), names, used_names)
    unused_names = sorted(set(names) - used_names)
    if unused_names:
        raise ValidationError(
            "Value provided in ExpressionAttributeNames unused in expressions: keys: "
            "{" + ", ".join(unused_names) + "}"
        )
    unused_values = sorted(set(values) - used_values)
    if unused_values:
        raise ValidationError(
            "Value provided in ExpressionAttributeValues unused in expressions: keys: "
            "{" + ", ".join(unused_values) + "}"
        )

    hash_value = next((v for a, v in conditions if a == hash_attr), None)
    hash_values = {v for a, v in conditions if a == hash_attr}
    results: list[dict[str, Any]] = []
    if len(hash_values) <= 1:
        part = partition(backend.tables[table_name], ix, hash_value)
        rows: Any = None
        for attr, value in conditions:
            if attr == hash_attr:
                continue
            sel = part.rows_where(attr, value)
            rows = sel if rows is None else np.intersect1d(rows, sel, assume_unique=True)
        for position, distance in part.nearest(query, rows, top_k):
            item = part.items[position]
            results.append({"Item": _project(table, ix, item, wanted), "Score": distance})

    response: dict[str, Any] = {"SearchResults": results}
    if body.get("ReturnConsumedCapacity") in ("TOTAL", "INDEXES"):
        response["ConsumedCapacity"] = {
            "VectorSearchRequestBytes": max(MIN_SEARCH_BYTES, float(4 * ix.dims))
        }
    return response
