"""What a strategy reads: a thread's new messages since its cursor, with the values the
thread was run with (its tenant, thread id, and the `configurable` keys LangGraph copies
into each checkpoint's metadata, such as `user_id`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Message:
    """One message of a thread: its id (LangGraph's message id), role (`human`, `ai`,
    `tool`, `system`), text, and the checkpoint it was read from."""

    message_id: str
    role: str
    text: str
    checkpoint_id: str


@dataclass(frozen=True)
class Transcript:
    """The window of new messages a strategy is given, oldest first, capped by the
    config's window (`ExtractionConfig.max_window_messages`, `max_window_tokens`).

    `values` fill the strategy's namespace template: `tenant`, `thread_id` and the
    thread's string metadata (`user_id`, ...)."""

    tenant: str
    thread_id: str
    messages: tuple[Message, ...]
    values: Mapping[str, str] = field(default_factory=dict)

    @property
    def checkpoint_ids(self) -> tuple[str, ...]:
        """The checkpoints the messages were read from, oldest first, each once."""
        return tuple(dict.fromkeys(m.checkpoint_id for m in self.messages))

    def render(self) -> str:
        """The messages as `[<message id>] <role>: <text>` lines (newlines in a text
        become spaces), the form the built-in prompts quote."""
        return "\n".join(
            f"[{m.message_id}] {m.role}: {' '.join(m.text.split())}" for m in self.messages
        )
