"""A deterministic chat model for the examples: plays back scripted replies (tool calls
included), so the examples run with no LLM. Replace it with a real model in your agent."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage


class ScriptedChatModel(FakeMessagesListChatModel):
    """LangChain's fake chat model, accepting tools so `create_agent` can bind them."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        return self


def call(tool: str, call_id: str, **args: Any) -> AIMessage:
    """A scripted reply that calls `tool` with `args`."""
    return AIMessage("", tool_calls=[{"name": tool, "args": args, "id": call_id}])
