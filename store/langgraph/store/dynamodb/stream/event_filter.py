"""Lambda event filtering for DynamoDB stream records, as event source mappings apply it.

The stream consumer classifies the records it is given with the same patterns its mapping
filters with (so the two cannot drift apart), and the emulation's stream delivery drops
records with it before batching.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["matches_any", "matches_filter", "parse_patterns"]


def parse_patterns(filter_patterns: Any) -> list[dict[str, Any]]:
    """Patterns given as dicts, JSON strings or a ``FilterCriteria`` dict, as a list."""
    if filter_patterns is None:
        return []
    if isinstance(filter_patterns, Mapping) and "Filters" in filter_patterns:
        filter_patterns = [f["Pattern"] for f in filter_patterns["Filters"]]
    elif isinstance(filter_patterns, Mapping | str):
        filter_patterns = [filter_patterns]
    out: list[dict[str, Any]] = []
    for p in filter_patterns:
        pattern = json.loads(p) if isinstance(p, str) else p
        if not isinstance(pattern, Mapping):
            raise ValueError(f"filter pattern must be a JSON object, got {pattern!r}")
        out.append(dict(pattern))
    return out


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _numeric(spec: Sequence[Any], x: Any) -> bool:
    if not _is_number(x):
        return False
    ops = {
        "=": lambda a, b: a == b,
        "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b,
        ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b,
    }
    return all(ops[spec[i]](x, spec[i + 1]) for i in range(0, len(spec), 2))


def _leaf(rules: Sequence[Any], present: bool, value: Any) -> bool:
    values = value if isinstance(value, list) else [value]
    for rule in rules:
        if isinstance(rule, Mapping):
            if "exists" in rule:
                if bool(rule["exists"]) == present:
                    return True
                continue
            if not present:
                continue
            if "prefix" in rule:
                if any(isinstance(x, str) and x.startswith(rule["prefix"]) for x in values):
                    return True
            elif "suffix" in rule:
                if any(isinstance(x, str) and x.endswith(rule["suffix"]) for x in values):
                    return True
            elif "equals-ignore-case" in rule:
                want = str(rule["equals-ignore-case"]).lower()
                if any(isinstance(x, str) and x.lower() == want for x in values):
                    return True
            elif "anything-but" in rule:
                ab = rule["anything-but"]
                if isinstance(ab, Mapping) and "prefix" in ab:
                    ok = all(
                        not (isinstance(x, str) and x.startswith(ab["prefix"])) for x in values
                    )
                elif isinstance(ab, list):
                    ok = all(x not in ab for x in values)
                else:
                    ok = all(x != ab for x in values)
                if ok:
                    return True
            elif "numeric" in rule:
                if any(_numeric(rule["numeric"], x) for x in values):
                    return True
            else:
                raise ValueError(f"unsupported filter rule {dict(rule)!r}")
        elif present and rule in values:
            return True
    return False


def _match(pattern: Mapping[str, Any], data: Any) -> bool:
    for key, rule in pattern.items():
        present = isinstance(data, Mapping) and key in data
        value = data[key] if present else None
        if isinstance(rule, Mapping):
            if not present or not isinstance(value, Mapping) or not _match(rule, value):
                return False
        elif isinstance(rule, list):
            if not _leaf(rule, present, value):
                return False
        else:
            raise ValueError(f"filter pattern values must be objects or arrays, got {rule!r}")
    return True


def matches_filter(record: Mapping[str, Any], filter_patterns: Any) -> bool:
    """Lambda event filtering: does ``record`` match any of the patterns (none: all match)?

    Patterns are dicts or JSON strings (or a Lambda ``FilterCriteria`` dict). Supported rules:
    exact values, ``exists``, ``prefix``, ``suffix``, ``equals-ignore-case``,
    ``anything-but`` (value, list, or ``{"prefix": ...}``) and ``numeric``.
    """
    return matches_any(parse_patterns(filter_patterns), record)


def matches_any(patterns: Sequence[Mapping[str, Any]], record: Mapping[str, Any]) -> bool:
    """Does ``record`` match one of the parsed ``patterns`` (none: all match)?"""
    return not patterns or any(_match(p, record) for p in patterns)
