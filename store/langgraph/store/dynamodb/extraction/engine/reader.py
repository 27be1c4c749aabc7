"""A thread's new messages, read through the checkpointer (`DynamoDBSaver.get_tuple`: the
newest checkpoint and its channel values), and the window of them sent per model call."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from langchain_core.messages import BaseMessage
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import CheckpointTuple
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.extraction.engine.config import Limits
from langgraph.store.dynamodb.extraction.strategies.transcript import Message

MESSAGES = "messages"


@dataclass(frozen=True)
class Seen:
    """One checkpoint as the walk back needs it: its id, time and message ids."""

    checkpoint_id: str
    at: float
    message_ids: frozenset[str]


@dataclass(frozen=True)
class ThreadState:
    """A thread's newest checkpoint: its id, when it was written (epoch seconds), its
    messages and the string values of its metadata (the run's `configurable` keys)."""

    checkpoint_id: str
    written_at: float
    messages: tuple[Message, ...]
    values: dict[str, str] = field(default_factory=dict)
    # The newest checkpoints read with it, newest first (`Seen`), and whether they reach
    # back to the thread's first.
    recent: tuple[Seen, ...] = ()
    complete: bool = False

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
    *,
    recent: bool = False,
) -> ThreadState | None:
    """The thread's newest checkpoint (or `checkpoint_id`), None when it has none; with
    `recent`, read with the few before it in the same requests (`said_times` starts from
    them)."""
    config = thread_config(saver, tenant, thread_id)
    if recent and checkpoint_id is None:
        page = list(saver.list(config, limit=FIRST_PAGE))
        if not page:
            return None
        state = _state(page[0], channel)
        seen = tuple(_seen(found, channel) for found in page)
        return replace(state, recent=seen, complete=len(page) < FIRST_PAGE)
    if checkpoint_id is not None:
        config["configurable"]["checkpoint_id"] = checkpoint_id
    found = saver.get_tuple(config)
    return None if found is None else _state(found, channel)


def _state(found: CheckpointTuple, channel: str) -> ThreadState:
    checkpoint = found.checkpoint
    cp_id = str(checkpoint["id"])
    raw = checkpoint["channel_values"].get(channel) or []
    messages = tuple(
        _message(m, index, cp_id) for index, m in enumerate(raw) if isinstance(m, BaseMessage)
    )
    values = {k: v for k, v in (found.metadata or {}).items() if isinstance(v, str)}
    return ThreadState(cp_id, _epoch(checkpoint.get("ts")), messages, values)


def _seen(found: CheckpointTuple, channel: str) -> Seen:
    raw = found.checkpoint["channel_values"].get(channel) or []
    ids = frozenset(_id(m, i) for i, m in enumerate(raw) if isinstance(m, BaseMessage))
    return Seen(str(found.checkpoint["id"]), _epoch(found.checkpoint.get("ts")), ids)


# Checkpoints read per page of the walk back (`said_times`): the first page, read with
# the thread, covers a turn of an agent that calls a tool (input, model, tool, model) and
# the checkpoint before it.
FIRST_PAGE = 6
LATER_PAGES = 16


class History:
    """A thread's checkpoints newest first, as the walk back needs them (`Seen`): those
    read with its state, then older pages, each read when first needed and kept, so the
    strategies of one run walk the thread once."""

    def __init__(
        self, saver: DynamoDBSaver, tenant: str, thread_id: str, state: ThreadState, channel: str
    ) -> None:
        self._read = list(state.recent)
        self._more: Iterator[Seen] | None = None
        if not state.complete:
            self._more = _older(saver, tenant, thread_id, state, channel)

    def __iter__(self) -> Iterator[Seen]:
        index = 0
        while True:
            if index == len(self._read):
                found = next(self._more, None) if self._more is not None else None
                if found is None:
                    self._more = None
                    return
                self._read.append(found)
            yield self._read[index]
            index += 1


def said_times(history: History, message_ids: Sequence[str]) -> dict[str, float]:
    """When each message was said: the time of the oldest checkpoint holding it, walking
    the thread's checkpoints back from the newest until one holds none of them (a window
    of many turns reads further back)."""
    wanted = set(message_ids)
    said: dict[str, float] = {}
    for seen in history:
        held = seen.message_ids & wanted
        if not held:
            break
        said.update(dict.fromkeys(held, seen.at))
    return said


def _older(
    saver: DynamoDBSaver, tenant: str, thread_id: str, state: ThreadState, channel: str
) -> Iterator[Seen]:
    """The checkpoints before those read with `state` (all of them, from the newest,
    when it has none), newest first, a page at a time."""
    config = thread_config(saver, tenant, thread_id)
    oldest = state.recent[-1].checkpoint_id if state.recent else None
    limit = LATER_PAGES if state.recent else FIRST_PAGE
    while True:
        before = None
        if oldest is not None:
            before = thread_config(saver, tenant, thread_id)
            before["configurable"]["checkpoint_id"] = oldest
        page = list(saver.list(config, before=before, limit=limit))
        yield from (_seen(found, channel) for found in page)
        if len(page) < limit:
            return
        oldest, limit = str(page[-1].checkpoint["id"]), LATER_PAGES


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


def _id(message: BaseMessage, index: int) -> str:
    return message.id or f"index-{index}"


def _message(message: BaseMessage, index: int, checkpoint_id: str) -> Message:
    return Message(
        message_id=_id(message, index),
        role=message.type,
        text=message.text,
        checkpoint_id=checkpoint_id,
    )


def _epoch(stamp: Any) -> float:
    return datetime.fromisoformat(stamp).timestamp() if isinstance(stamp, str) else 0.0
