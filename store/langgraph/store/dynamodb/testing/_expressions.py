"""DynamoDB's limits on expression parameters, checked before moto parses a request.

The service refuses (`ValidationException`) any expression string longer than 4 KB
(4,096 bytes of its UTF-8 text as sent: placeholders are not substituted) and any with
more than 300 operators and functions ("Constraints in Amazon DynamoDB", "Expression
parameters"). moto enforces neither, and its recursive parser dies with a
`RecursionError` on an UpdateExpression of a few hundred actions (it deep-copies a tree
nested once per action); here such a request gets the service's answer instead, and moto
parses one within the limits with room for its recursion (`MOTO_DEPTH` frames). moto
checks that no two actions update overlapping paths once per level of that tree, each time
comparing every pair of paths below it: an update of 840 REMOVEs took 40 s.
`quick_overlaps` answers "none" from a set first, and leaves the rare overlap to moto.

Counted as operators: the comparators (`=` `<>` `<` `<=` `>` `>=`, the `=` of a SET action
included), `+` and `-`, `AND` `OR` `NOT` `BETWEEN` `IN`, and every function call
(`if_not_exists(...)`, `attribute_exists(...)`, ...): `SET #a = if_not_exists(#a, :a)`
counts 2.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

from langgraph.store.dynamodb.table.values import MAX_EXPRESSION_BYTES, MAX_EXPRESSION_OPERATORS
from langgraph.store.dynamodb.testing._errors import ValidationError
from moto.core.responses import ActionResult
from moto.dynamodb.responses import DynamoHandler

# Frames moto needs for the deepest expression within the limits (about 1,000 REMOVE
# actions in 4 KB, a dozen frames each), with room for the rest of the stack.
MOTO_DEPTH = 20_000
# The expression parameters of a request body (or of one action of a transaction).
EXPRESSIONS = (
    "UpdateExpression",
    "ConditionExpression",
    "KeyConditionExpression",
    "FilterExpression",
    "ProjectionExpression",
)
_PLACEHOLDER = re.compile(r"[#:][A-Za-z0-9_]+")
_OPERATOR = re.compile(
    r"<>|<=|>=|[=<>+\-]|\b(?:AND|OR|NOT|BETWEEN|IN)\b|\b[A-Za-z_]+\s*\(", re.IGNORECASE
)

__all__ = ["checked", "operator_count"]


def operator_count(expression: str) -> int:
    """How many operators and functions DynamoDB counts in `expression`."""
    return len(_OPERATOR.findall(_PLACEHOLDER.sub(" ", expression)))


def _bodies(body: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The parts of a request that carry expressions: the body, each table of a batch
    read, each action of a transaction."""
    yield body
    for request in (body.get("RequestItems") or {}).values():
        if isinstance(request, dict):
            yield request
    for item in body.get("TransactItems") or []:
        yield from item.values()


def check(body: dict[str, Any]) -> None:
    """Raise the service's `ValidationException` for an expression past a limit."""
    for part in _bodies(body):
        for kind in EXPRESSIONS:
            expression = part.get(kind)
            if not isinstance(expression, str):
                continue
            size = len(expression.encode())
            if size > MAX_EXPRESSION_BYTES:
                raise ValidationError(
                    f"Invalid {kind}: Expression size has exceeded the maximum allowed size; "
                    f"expression size: {size}"
                )
            count = operator_count(expression)
            if count > MAX_EXPRESSION_OPERATORS:
                raise ValidationError(
                    f"Invalid {kind}: The expression contains too many operators; "
                    f"operator count: {count}"
                )


@contextlib.contextmanager
def _room_to_recurse() -> Iterator[None]:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, MOTO_DEPTH))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def checked(original: Callable[[DynamoHandler], ActionResult]) -> Any:
    """A handler action that checks its expressions first."""

    def action(self: DynamoHandler) -> ActionResult:
        check(self.body)
        with _room_to_recurse():
            return original(self)

    return action


def quick_overlaps(original: Callable[[list[str]], list[str]]) -> Callable[[list[str]], list[str]]:
    """Wrap moto's ``find_path_overlaps`` (two paths equal, or one a dotted prefix of the
    other): no overlap is found from a set of the paths; an overlap is moto's to name."""

    def find_path_overlaps(input_list: list[str]) -> list[str]:
        paths = set(input_list)
        overlap = len(paths) < len(input_list) or any(
            path[:at] in paths for path in paths for at, c in enumerate(path) if c == "."
        )
        return original(input_list) if overlap else []

    return find_path_overlaps
