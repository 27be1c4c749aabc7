"""A chat model that plays back scripted replies, tool calls included, so an agent with
tools runs offline and deterministically (in tests and in the examples)."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage


class ScriptedChatModel(FakeMessagesListChatModel):
    """LangChain's fake chat model that accepts tools, so `create_agent` can bind them:
    each call returns the next scripted message (`responses`), cycling at the end."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        return self


def tool_call(tool: str, call_id: str, **args: Any) -> AIMessage:
    """A scripted reply that calls `tool` with `args`."""
    return AIMessage("", tool_calls=[{"name": tool, "args": args, "id": call_id}])
