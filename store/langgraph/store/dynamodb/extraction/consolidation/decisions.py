"""The step between extraction and the write: what each candidate does to the memories a
tenant already has. A `Consolidator` returns one `Decision` per candidate; the extractor
applies them (ledger row, store write, cursor) so every decision keeps the exactly-once and
erasure guarantees.

`NearestConsolidator` (nearest.py), the default, decides against the nearest memories
already known (add, update, supersede, no-op); `AddEach`, the opt-out, adds every
candidate at its key: the same text extracted twice, from any thread, is one memory with
a source per conversation, but two wordings of one fact are two memories.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from langgraph.store.base import BaseStore, Item
from langgraph.store.dynamodb.extraction.strategies.candidates import Candidate
from langgraph.store.dynamodb.extraction.strategies.errors import MalformedAnswerError
from langgraph.store.dynamodb.extraction.strategies.model_call import ATTEMPTS, Extracted
from langgraph.store.dynamodb.extraction.strategies.strategy import Strategy

if TYPE_CHECKING:
    # Annotations only: the chat model stack loads once a model is called (model_call).
    from langchain_core.language_models import BaseChatModel


@dataclass(frozen=True)
class Add:
    """Store the candidate as a new memory, at its key in `namespace`."""

    candidate: Candidate
    namespace: tuple[str, ...]


@dataclass(frozen=True)
class NoOp:
    """Write nothing new for the candidate (`reason`, e.g. "already known as <key>"); the
    memory at `key` that already says it, when named, gains the candidate's conversation as
    a source."""

    candidate: Candidate
    reason: str
    key: str | None = None


class Consolidator(Protocol):
    """Decides, for candidates of one strategy about one thread, what each does. `store`
    reads the memories already in `namespace` (writes are the extractor's); `model` is
    the strategy's chat model, for a consolidator that asks one."""

    def decide(
        self,
        candidates: Sequence[Candidate],
        namespace: tuple[str, ...],
        strategy: Strategy,
        store: BaseStore,
        model: BaseChatModel,
    ) -> Sequence[Decision]: ...


class AddEach:
    """Adds every candidate (no model call, no read)."""

    def decide(
        self,
        candidates: Sequence[Candidate],
        namespace: tuple[str, ...],
        strategy: Strategy,
        store: BaseStore,
        model: BaseChatModel,
    ) -> list[Decision]:
        return [Add(candidate, namespace) for candidate in candidates]


@dataclass(frozen=True)
class Update:
    """Revise the memory at `key` in place with the candidate's content (`content`, when
    the consolidation merged it, else the candidate's): a conditional write on the version
    `read`, redone on a fresh read when another write came first. The version it replaces
    is kept in the memory's `revisions`."""

    candidate: Candidate
    namespace: tuple[str, ...]
    key: str
    read: Item | None
    content: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Supersede:
    """Add the candidate as a new memory and mark the memory at `key` (kept, never
    deleted) as superseded by it, with when; default recall then hides the old one."""

    candidate: Candidate
    namespace: tuple[str, ...]
    key: str
    read: Item


Decision = Add | NoOp | Update | Supersede


def consolidate(
    consolidator: Consolidator,
    extracted: Extracted,
    namespace: tuple[str, ...],
    strategy: Strategy,
    store: BaseStore,
    model: BaseChatModel,
) -> tuple[Sequence[Decision], str | None]:
    """The decisions for a window's candidates, the consolidator asked again once after a
    malformed answer; after two, no decision (nothing is written) and the reason."""
    if not extracted.candidates:
        return [], extracted.problem
    reason = ""
    for _ in range(ATTEMPTS):
        try:
            return consolidator.decide(
                extracted.candidates, namespace, strategy, store, model
            ), extracted.problem
        except MalformedAnswerError as error:
            reason = str(error)
    return [], (
        f"consolidation: malformed answer twice ({reason}); nothing was written for "
        f"{len(extracted.candidates)} candidates (replay the thread to try again)"
    )
