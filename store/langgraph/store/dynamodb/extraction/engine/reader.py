"""A thread's new messages, read through the checkpointer (`DynamoDBSaver.get_tuple`: the
newest checkpoint and its channel values), and the window of them sent per model call."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from langchain_core.messages import BaseMessage
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.extraction.engine.config import Limits
from langgraph.store.dynamodb.extraction.strategies.transcript import Message

MESSAGES = "messages"


@dataclass(frozen=True)
class ThreadState:
    """A thread's newest checkpoint: its id, when it was written (epoch seconds), its
    messages and the string values of its metadata (the run's `configurable` keys)."""

    checkpoint_id: str
    written_at: float
    messages: tuple[Message, ...]
    values: dict[str, str] = field(default_factory=dict)

    def after(self, message_id: str | None) -> tuple[Message, ...]:
        """The messages after `message_id` (all when None, or when it is no longer in the
        thread: memory keys derive from message ids, so reading one twice rewrites it)."""
        if message_id is None:
            return self.messages
        for index, message in enumerate(self.messages):
            if message.message_id == message_id:
                return self.messages[index + 1 :]
        return self.messages


def thread_config(saver: DynamoDBSaver, tenant: str, thread_id: str) -> RunnableConfig:
    """The config that names a thread of a tenant to `saver`."""
    configurable: dict[str, Any] = {"thread_id": thread_id, "checkpoint_ns": ""}
    if saver.tenant_key is not None:
        configurable[saver.tenant_key] = tenant
    elif tenant:
        raise ValueError(
            f"tenant {tenant!r} named, but the saver has no tenant_key: its threads have no "
            "tenant (pass tenant='')"
        )
    return {"configurable": configurable}


def read_thread(
    saver: DynamoDBSaver,
    tenant: str,
    thread_id: str,
    checkpoint_id: str | None = None,
    channel: str = MESSAGES,
) -> ThreadState | None:
    """The thread's newest checkpoint (or `checkpoint_id`), None when it has none."""
    config = thread_config(saver, tenant, thread_id)
    if checkpoint_id is not None:
        config["configurable"]["checkpoint_id"] = checkpoint_id
    found = saver.get_tuple(config)
    if found is None:
        return None
    checkpoint = found.checkpoint
    cp_id = str(checkpoint["id"])
    raw = checkpoint["channel_values"].get(channel) or []
    messages = tuple(
        _message(m, index, cp_id) for index, m in enumerate(raw) if isinstance(m, BaseMessage)
    )
    values = {k: v for k, v in (found.metadata or {}).items() if isinstance(v, str)}
    return ThreadState(cp_id, _epoch(checkpoint.get("ts")), messages, values)


def window(messages: Sequence[Message], limits: Limits) -> tuple[Message, ...]:
    """The oldest messages that fit the caps (at least one)."""
    taken: list[Message] = []
    tokens = 0
    for message in messages[: limits.max_window_messages]:
        tokens += count_tokens(message)
        if taken and tokens > limits.max_window_tokens:
            break
        taken.append(message)
    return tuple(taken)


def count_tokens(message: Message) -> int:
    """Approximate tokens of a message (LangChain's count, about 4 characters a token)."""
    return int(count_tokens_approximately([(message.role, message.text)]))


def _message(message: BaseMessage, index: int, checkpoint_id: str) -> Message:
    return Message(
        message_id=message.id or f"index-{index}",
        role=message.type,
        text=message.text,
        checkpoint_id=checkpoint_id,
    )


def _epoch(stamp: Any) -> float:
    return datetime.fromisoformat(stamp).timestamp() if isinstance(stamp, str) else 0.0
