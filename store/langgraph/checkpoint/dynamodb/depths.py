"""What one saver remembers of the checkpoints it read or wrote so that their history is
read in one Query: each checkpoint's distance to its delta channels' snapshots, as
LangGraph's metadata gives it (immutable, like the metadata). LangGraph reads or writes a
checkpoint before it asks for its history (`history`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import CheckpointMetadata, get_checkpoint_id
from langgraph.store.dynamodb.table.thread_keys import Thread, checkpoint_sk

# Checkpoints whose distance to their delta channels' snapshots a saver remembers.
DEPTHS_KEPT = 4096
# LangGraph's metadata key for a delta channel's (updates, supersteps) since its snapshot.
COUNTERS = "counters_since_delta_snapshot"


def depth(metadata: Mapping[str, Any], channels: Sequence[str] | None = None) -> int | None:
    """How many ancestors back the checkpoint with `metadata` finds the last snapshot of
    every channel of `channels` (all its delta channels for None), or None if unknown."""
    counters = metadata.get(COUNTERS)
    if not isinstance(counters, Mapping) or not counters:
        return None
    names = list(counters) if channels is None else list(channels)
    steps = [counters.get(name) for name in names]
    if any(not isinstance(s, list | tuple) or len(s) != 2 for s in steps):
        return None
    return max(int(s[1]) for s in steps if s is not None)


@dataclass
class Depths:
    """The distances of the last `DEPTHS_KEPT` checkpoints that have delta channels."""

    _found: dict[tuple[str, str], int] = field(default_factory=dict)

    def remember(
        self, thread: Thread, config: RunnableConfig, metadata: CheckpointMetadata
    ) -> None:
        """Keep the distance of the checkpoint `config` names, if its metadata gives one."""
        found = depth(metadata)
        if found is None:
            return
        if len(self._found) >= DEPTHS_KEPT:
            self._found.pop(next(iter(self._found)))
        self._found[_key(thread, config, config["configurable"]["checkpoint_id"])] = found

    def of(self, thread: Thread, config: RunnableConfig) -> int | None:
        """The distance of the checkpoint `config` names, if remembered (None for a config
        naming no checkpoint id: the namespace's latest)."""
        checkpoint_id = get_checkpoint_id(config)
        if not checkpoint_id:
            return None
        return self._found.get(_key(thread, config, checkpoint_id))


def _key(thread: Thread, config: RunnableConfig, checkpoint_id: str) -> tuple[str, str]:
    ns = config["configurable"].get("checkpoint_ns", "")
    return (thread.pk, checkpoint_sk(ns, checkpoint_id))
