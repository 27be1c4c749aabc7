"""A candidate memory: what a strategy extracted, with its provenance, and the key the
memory is stored under, derived from its content so the same fact is one key."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Provenance:
    """Where a memory came from: its thread (of its tenant), the checkpoints and messages
    it was extracted from, the strategy, the model and the strategy's prompt version."""

    tenant: str
    thread_id: str
    checkpoint_ids: tuple[str, ...]
    message_ids: tuple[str, ...]
    strategy: str
    model: str
    prompt_version: str

    def as_value(self) -> dict[str, Any]:
        """The provenance as stored in the memory's value (`value["provenance"]`)."""
        return {
            "tenant": self.tenant,
            "thread_id": self.thread_id,
            "checkpoint_ids": list(self.checkpoint_ids),
            "message_ids": list(self.message_ids),
            "strategy": self.strategy,
            "model": self.model,
            "prompt_version": self.prompt_version,
        }


@dataclass(frozen=True)
class Candidate:
    """One memory a strategy proposes: its `content` (JSON, e.g. `{"text": ...}`; the
    store embeds it like any value) and provenance. `key` is derived from the content, unless the
    strategy names one (`fixed_key`: a memory kept in place, such as one summary per
    thread)."""

    content: Mapping[str, Any]
    provenance: Provenance
    fixed_key: str | None = None

    @property
    def key(self) -> str:
        """The memory's key in its namespace (`fixed_key`, else `memory_key`)."""
        return self.fixed_key or memory_key(self.provenance, self.content)

    def value(self) -> dict[str, Any]:
        """The stored value: the content and its provenance."""
        return {**self.content, "provenance": self.provenance.as_value()}


def normalized(text: str) -> str:
    """Text compared for sameness: case, spacing and final punctuation ignored."""
    return " ".join(text.lower().split()).rstrip(".!")


def memory_key(provenance: Provenance, content: Mapping[str, Any]) -> str:
    """A key that depends only on the tenant, the strategy and the content (its text
    normalized): the same fact from any thread, a retry or a replay is the same key, so
    runs that overlap cannot both add it (the write is conditional on the key)."""
    text = content.get("text")
    said = normalized(text) if isinstance(text, str) else json.dumps(content, sort_keys=True)
    source = [provenance.tenant, provenance.strategy, said]
    digest = hashlib.sha256(json.dumps(source, separators=(",", ":")).encode()).hexdigest()
    return f"{provenance.strategy}-{digest[:32]}"
