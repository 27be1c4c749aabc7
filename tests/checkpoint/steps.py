"""Checkpoints written the way LangGraph writes them, without a graph: a step names the
values it changes, gets fresh versions for them and keeps its parent's others."""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple, empty_checkpoint


def config(thread: str, ns: str = "", checkpoint_id: str | None = None, **extra: Any) -> Any:
    """A config naming a thread (and a checkpoint), plus `extra` (the tenant key)."""
    configurable: dict[str, Any] = {"thread_id": thread, "checkpoint_ns": ns, **extra}
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def step(
    saver: BaseCheckpointSaver[Any],
    after: RunnableConfig,
    changed: dict[str, Any],
    metadata: dict[str, Any] | None = None,
    parent: CheckpointTuple | None = None,
    **fields: Any,
) -> RunnableConfig:
    """Put a checkpoint after `after` (its `checkpoint_id`, if any, is the parent) whose
    values are `parent`'s with `changed` applied, each changed channel at a new version;
    `fields` replace the checkpoint's own (`versions_seen`, ...)."""
    checkpoint: Any = {**empty_checkpoint(), **fields}
    values = dict(parent.checkpoint["channel_values"]) if parent else {}
    versions = dict(parent.checkpoint["channel_versions"]) if parent else {}
    new = {name: saver.get_next_version(versions.get(name), None) for name in changed}
    values.update(changed)
    versions.update(new)
    checkpoint["channel_values"] = values
    checkpoint["channel_versions"] = versions
    return saver.put(after, checkpoint, {"source": "loop", "step": 0, **(metadata or {})}, new)


def ids(tuples: Any) -> list[str]:
    """The checkpoint ids of listed tuples, in order."""
    return [t.config["configurable"]["checkpoint_id"] for t in tuples]
