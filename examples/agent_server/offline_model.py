"""The graph's chat model without an LLM (`AGENT_MODEL=fake`): fixed rules in place of
Claude, so the Agent Server example and its memory run offline."""

from __future__ import annotations

import re
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

REMEMBER = re.compile(r"^remember:\s*(?P<text>.+)$", re.IGNORECASE | re.DOTALL)


class OfflineMemoryModel(BaseChatModel):
    """ "Remember: <fact>" calls `save_memory` with the fact; any other message calls
    `recall` with it as the query; a tool's result comes back as the reply."""

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **_: Any
    ) -> ChatResult:
        last = messages[-1]
        if isinstance(last, ToolMessage):
            reply = AIMessage(str(last.content))
        else:
            text = str(last.content).strip()
            found = REMEMBER.match(text)
            name, args = (
                ("save_memory", {"text": found["text"]}) if found else ("recall", {"query": text})
            )
            reply = AIMessage(
                "", tool_calls=[{"name": name, "args": args, "id": f"call-{len(messages)}"}]
            )
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def bind_tools(self, tools: Any, **kwargs: Any) -> OfflineMemoryModel:
        return self

    @property
    def _llm_type(self) -> str:
        return "offline-memory-rules"
