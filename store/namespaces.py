"""`list_namespaces` semantics: prefix/suffix conditions with `*`, max_depth, paging."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from langgraph.store.base import MatchCondition

from .keys import Namespace

WILDCARD = "*"


def literal_prefix(conditions: Sequence[MatchCondition]) -> Namespace:
    """The labels every match must start with: a prefix condition up to its first `*`."""
    for condition in conditions:
        if condition.match_type == "prefix":
            labels: list[str] = []
            for label in condition.path:
                if label == WILDCARD:
                    break
                labels.append(label)
            return tuple(labels)
    return ()


def condition_matches(condition: MatchCondition, namespace: Namespace) -> bool:
    """Whether `namespace` satisfies one prefix or suffix condition."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        window = namespace[: len(path)]
    elif condition.match_type == "suffix":
        window = namespace[len(namespace) - len(path) :]
    else:
        raise ValueError(f"Unsupported match type {condition.match_type!r}: use prefix or suffix")
    return all(p in (WILDCARD, n) for p, n in zip(path, window, strict=True))


def select(
    namespaces: Iterable[Namespace],
    conditions: Sequence[MatchCondition],
    max_depth: int | None,
    limit: int,
    offset: int,
) -> list[Namespace]:
    """Apply conditions, truncate to `max_depth`, de-duplicate, sort, then page."""
    kept = {
        ns[:max_depth] if max_depth is not None else ns
        for ns in namespaces
        if all(condition_matches(c, ns) for c in conditions)
    }
    return sorted(kept)[offset : offset + limit]
