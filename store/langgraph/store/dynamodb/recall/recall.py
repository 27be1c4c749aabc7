"""Recall: the memories the strategies formed that are most relevant to a query, for the
model's context. One store batch (one round trip: every namespace's search runs in it),
current memories only unless `history` is asked for, cut to a token budget. Reads only:
recall never waits for an extraction.

`recall` is the plain function (for `StateGraph` nodes); `recall.middleware` wraps it
for LangChain's `create_agent`."""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from langgraph.store.base import BaseStore, Item, SearchItem, SearchOp
from langgraph.store.dynamodb.recall.fields import (
    CURRENT_ONLY,
    STATUS,
    SUPERSEDED,
    SUPERSEDED_AT,
    TEXT,
)
from langgraph.store.dynamodb.recall.templates import fill

logger = logging.getLogger(__name__)
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class RecallSource:
    """Where one strategy's memories are: a namespace template (as in the strategy's
    config, e.g. `("memories", "{tenant}", "{user_id}", "facts")`), how many to fetch and
    a label for the context."""

    namespace: tuple[str, ...]
    limit: int = 5
    label: str = "Memories"

    def filled(self, values: Mapping[str, str]) -> tuple[str, ...] | None:
        """The template filled with `values`; None when one it names is missing."""
        try:
            return fill(self.namespace, values)
        except KeyError:
            return None


@dataclass(frozen=True)
class Recalled:
    """One recalled memory: its source label, text, score and the item itself."""

    label: str
    text: str
    score: float | None
    item: Item


def tokens(text: str) -> int:
    """An approximate token count (four characters a token)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def recall(
    store: BaseStore,
    sources: Sequence[RecallSource],
    values: Mapping[str, str],
    query: str,
    *,
    max_tokens: int = 400,
    history: bool = False,
) -> list[Recalled]:
    """The most relevant memories for `query` from each source (templates filled with
    `values`: tenant, user id, ...), best first, as many as fit in `max_tokens`, each text
    once (two strategies that extracted the same sentence show it once, from the better
    match, and spend the budget once). With `history`, superseded memories too (marked).
    A store error propagates; see `recall_or_nothing` for the hot path."""
    namespaces = [(s, s.filled(values)) for s in sources]
    usable = [(s, ns) for s, ns in namespaces if ns is not None]
    if not usable or not query.strip():
        return []
    ops = [
        SearchOp(ns, filter=None if history else CURRENT_ONLY, limit=s.limit, query=query)
        for s, ns in usable
    ]
    results = store.batch(ops)
    found: list[Recalled] = []
    for (source, _), items in zip(usable, results, strict=True):
        for item in items if isinstance(items, list) else []:
            if isinstance(item, SearchItem):
                found.append(Recalled(source.label, _text(item), item.score, item))
    found.sort(key=lambda r: -(r.score or 0.0))
    kept, used, seen = [], 0, set()
    for recalled in found:
        cost = tokens(recalled.text)
        if normalized(recalled.text) in seen or used + cost > max_tokens:
            continue
        kept.append(recalled)
        seen.add(normalized(recalled.text))
        used += cost
    return kept


def normalized(text: str) -> str:
    """`text` as recall compares it: case, runs of whitespace and a final full stop
    ignored."""
    return " ".join(text.casefold().split()).removesuffix(".")


def recall_or_nothing(
    store: BaseStore | None,
    sources: Sequence[RecallSource],
    values: Mapping[str, str],
    query: str,
    **options: int | bool,
) -> list[Recalled]:
    """`recall`, degraded to no memories (with a logged warning) when there is no store or
    it fails: a turn never fails because memory is unavailable."""
    if store is None:
        logger.warning("Recall skipped: the agent has no store")
        return []
    try:
        return recall(store, sources, values, query, **options)  # type: ignore[arg-type]
    except Exception as error:
        logger.warning("Recall skipped, the turn goes on without memories: %r", error)
        return []


def render(recalled: Sequence[Recalled]) -> str:
    """The memories as a context block, grouped by label ("" when there are none)."""
    if not recalled:
        return ""
    lines = ["What you remember about this user (from earlier conversations):"]
    for label in dict.fromkeys(r.label for r in recalled):
        lines.append(f"{label}:")
        lines += [f"- {r.text}" for r in recalled if r.label == label]
    return "\n".join(lines)


def _text(item: Item) -> str:
    text = str(item.value.get(TEXT, ""))
    if item.value.get(STATUS) == SUPERSEDED:
        return f"{text} (no longer true since {item.value.get(SUPERSEDED_AT, '?')})"
    return text
