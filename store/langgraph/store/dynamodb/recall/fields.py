"""The fields extraction adds to a memory's value, beside the strategy's content and
`provenance`: named once here. Default recall and consolidation read only memories whose
`status` is `CURRENT`; `HISTORY` shows the superseded ones too."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

TEXT = "text"
STATUS = "status"
CURRENT = "current"
SUPERSEDED = "superseded"
SUPERSEDED_BY = "superseded_by"
SUPERSEDED_AT = "superseded_at"
# The key of the memory a superseding memory replaced.
SUPERSEDES = "supersedes"
# Earlier versions of an updated memory, oldest first: `{"content": ..., "provenance": ...}`.
REVISIONS = "revisions"
CONTENT = "content"
PROVENANCE = "provenance"
CORRECTION = "correction"
# Every conversation that stated a memory: `{thread_id: {"said_at": [t, n], "message_ids":
# [...]}}`, `t` the epoch seconds of the thread's checkpoint its run read and `n` the place
# of the newest message stating it in the thread. A memory goes when no source remains.
SOURCES = "sources"
# When the newest remaining source said it (`[t, n]`): of two contradicting memories, the
# one said last is current.
SAID_AT = "said_at"
# Revisions kept per memory (older ones are dropped: a memory's value stays small).
MAX_REVISIONS = 20
# The filter of memories default recall and consolidation see.
CURRENT_ONLY: dict[str, Any] = {STATUS: CURRENT}
# Fields that describe a memory's history rather than its content.
BOOKKEEPING = (
    STATUS,
    SUPERSEDED_BY,
    SUPERSEDED_AT,
    SUPERSEDES,
    REVISIONS,
    PROVENANCE,
    SOURCES,
    SAID_AT,
)


def content_of(value: dict[str, Any]) -> dict[str, Any]:
    """A memory's content: its value without provenance and history."""
    return {k: v for k, v in value.items() if k not in BOOKKEEPING}


def thread_of(value: Mapping[str, Any]) -> str | None:
    """The thread a memory's current version (or one of its revisions) came from."""
    provenance = value.get(PROVENANCE)
    return provenance.get("thread_id") if isinstance(provenance, Mapping) else None
