"""`list_namespaces` semantics: prefix/suffix conditions with `*`, max_depth, paging."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple, Protocol

from langgraph.store.dynamodb.table.keys import Namespace

WILDCARD = "*"


class MatchCondition(Protocol):
    """What a listing reads of a condition: LangGraph's `MatchCondition` (its ops live in
    `langgraph.store.base`, which imports langchain_core), or a `Prefix`."""

    @property
    def match_type(self) -> str: ...

    @property
    def path(self) -> Sequence[str]: ...


class Prefix(NamedTuple):
    """A prefix condition, for a listing without LangGraph's ops (the command line's `ls`)."""

    path: Namespace
    match_type: str = "prefix"


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


class Page:
    """One page of `list_namespaces`, filled from namespaces offered in sorted order: it
    applies the conditions, truncates to `max_depth` and de-duplicates as it goes, asks
    whether a namespace is alive only when it would be returned, and is `full` once it
    holds `offset + limit` answers, so the reader can stop there."""

    def __init__(
        self,
        conditions: Sequence[MatchCondition],
        max_depth: int | None,
        limit: int,
        offset: int,
    ) -> None:
        self.conditions = list(conditions)
        self.max_depth = max_depth
        self.limit = limit
        self.offset = offset
        self._found: list[Namespace] = []

    @property
    def full(self) -> bool:
        return len(self._found) >= self.offset + self.limit

    @property
    def result(self) -> list[Namespace]:
        return self._found[self.offset : self.offset + self.limit]

    def wants(self, group: Namespace) -> bool:
        """Whether namespaces starting with `group` (a registry group) could still add an
        answer: not when a prefix condition rules its labels out, nor when every one of
        them truncates to the answer already last found."""
        for condition in self.conditions:
            if condition.match_type == "prefix" and not all(
                p in (WILDCARD, g) for p, g in zip(condition.path, group, strict=False)
            ):
                return False
        depth = self.max_depth
        return not (
            depth is not None
            and depth <= len(group)
            and self._found
            and self._found[-1] == group[:depth]
        )

    def offer(self, namespace: Namespace, alive: Callable[[], bool]) -> None:
        """Consider the next namespace (each no smaller than the last)."""
        if self.full or not all(condition_matches(c, namespace) for c in self.conditions):
            return
        shown = namespace[: self.max_depth] if self.max_depth is not None else namespace
        if self._found and self._found[-1] == shown:
            return
        if alive():
            self._found.append(shown)
