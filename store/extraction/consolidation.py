"""The step between extraction and the write: what each candidate does to the memories a
tenant already has. A `Consolidator` returns one `Decision` per candidate; the extractor
applies them (ledger row, store write, cursor) so every decision keeps the exactly-once and
erasure guarantees.

`AddEach`, the default, adds every candidate at its provenance key: the same messages
extracted twice rewrite the same memory. Consolidators that search the memories already
known (and decisions that update or supersede them) plug in here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from langchain_core.language_models import BaseChatModel
from langgraph.store.base import BaseStore

from .candidates import Candidate
from .strategy import Strategy


@dataclass(frozen=True)
class Add:
    """Store the candidate as a new memory, at its key in `namespace`."""

    candidate: Candidate
    namespace: tuple[str, ...]


@dataclass(frozen=True)
class NoOp:
    """Write nothing for the candidate (`reason`, e.g. "already known as <key>")."""

    candidate: Candidate
    reason: str


Decision = Add | NoOp


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
    ) -> list[Decision]: ...


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
