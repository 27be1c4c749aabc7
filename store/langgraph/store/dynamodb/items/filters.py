"""Value filters for search: equality (nested dicts, lists) and `$eq $ne $gt $gte $lt $lte`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

OPERATORS = frozenset({"$eq", "$ne", "$gt", "$gte", "$lt", "$lte"})


def validate_filter(filter: Mapping[str, Any] | None) -> None:
    """Raise `ValueError` for an operator the store does not support, before any I/O."""
    if not filter:
        return
    if not isinstance(filter, Mapping):
        raise ValueError(f"filter must be a dict, got {type(filter).__name__}")
    for condition in filter.values():
        _validate_condition(condition)


def _validate_condition(condition: Any) -> None:
    if isinstance(condition, Mapping):
        if _is_operator_dict(condition):
            unknown = sorted(set(condition) - OPERATORS)
            if unknown:
                raise ValueError(
                    f"Unsupported filter operator(s) {unknown}; supported: {sorted(OPERATORS)}"
                )
        else:
            for child in condition.values():
                _validate_condition(child)


def matches(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    """True when every top-level condition of `filter` holds for `value` (AND)."""
    if not filter:
        return True
    return all(_matches(value.get(field), condition) for field, condition in filter.items())


def _is_operator_dict(condition: Mapping[str, Any]) -> bool:
    return any(isinstance(k, str) and k.startswith("$") for k in condition)


def _matches(actual: Any, condition: Any) -> bool:
    if isinstance(condition, Mapping):
        if _is_operator_dict(condition):
            return all(_apply(actual, op, operand) for op, operand in condition.items())
        return isinstance(actual, Mapping) and all(
            _matches(actual.get(k), v) for k, v in condition.items()
        )
    return _equal(actual, condition)


def _equal(actual: Any, expected: Any) -> bool:
    if isinstance(expected, (list, tuple)):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(_equal(a, e) for a, e in zip(actual, expected, strict=True))
        )
    if isinstance(expected, Mapping):
        return _matches(actual, expected)
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(actual, bool) and isinstance(expected, bool) and actual is expected
    return bool(actual == expected)


def _ordered(actual: Any, operand: Any) -> tuple[Any, Any] | None:
    """Both sides when they compare meaningfully (numbers with numbers, str with str)."""
    numbers = (int, float)
    if (
        isinstance(actual, numbers)
        and isinstance(operand, numbers)
        and not isinstance(actual, bool)
        and not isinstance(operand, bool)
    ):
        return actual, operand
    if isinstance(actual, str) and isinstance(operand, str):
        return actual, operand
    return None


def _apply(actual: Any, operator: str, operand: Any) -> bool:
    if operator == "$eq":
        return _equal(actual, operand)
    if operator == "$ne":
        return not _equal(actual, operand)
    pair = _ordered(actual, operand)
    if pair is None:
        return False
    left, right = pair
    if operator == "$gt":
        return bool(left > right)
    if operator == "$gte":
        return bool(left >= right)
    if operator == "$lt":
        return bool(left < right)
    if operator == "$lte":
        return bool(left <= right)
    raise ValueError(f"Unsupported filter operator {operator!r}; supported: {sorted(OPERATORS)}")
