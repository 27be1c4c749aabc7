"""The evaluation harness takes any LangChain chat model (`--model module:factory`): here
one that is not Bedrock's (a plain `BaseChatModel` answering tool calls with the
deterministic extractor), on one conversation. The harness counts its calls and tokens
from the model's usage and scores what it formed. Not a benchmark: no time is asserted."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.store.dynamodb.testing import mock_aws
from langgraph.store.dynamodb.testing._converse import _answer

from bench.memory_eval import load_factory, report, run
from bench.memory_eval_set import evaluation_set


class ToolCallingModel(BaseChatModel):
    """Not Bedrock: answers the tool it is bound to, as the emulation's Converse would."""

    @property
    def _llm_type(self) -> str:
        return "offline-tool-calling"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable[Any, BaseMessage]:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools])

    def _generate(
        self, messages: list[BaseMessage], *args: Any, tools: Any = (), **kwargs: Any
    ) -> ChatResult:
        (tool,) = [t["function"] for t in tools]
        text = "\n".join(str(m.content) for m in messages[1:])
        args_ = _answer(tool["name"], tool["parameters"], text)
        call = {"name": tool["name"], "args": args_, "id": uuid.uuid4().hex}
        prompt = sum(len(str(m.content)) for m in messages) // 4
        usage = {"input_tokens": prompt, "output_tokens": 10, "total_tokens": prompt + 10}
        message = AIMessage("", tool_calls=[call], usage_metadata=usage)  # type: ignore[arg-type]
        return ChatResult(generations=[ChatGeneration(message=message)])


def offline_model() -> BaseChatModel:
    """The factory `--model tests.bench.test_memory_eval:offline_model` names."""
    return ToolCallingModel()


def test_the_harness_runs_any_langchain_chat_model() -> None:
    factory = load_factory("tests.bench.test_memory_eval:offline_model")
    assert factory is not None
    with mock_aws():
        result = run(factory, evaluation_set()[:1])
    assert result["calls"] and all(i > 0 and o == 10 for i, o in result["calls"])
    extracted = result["extracted"]
    assert extracted["recall@5"] == 1.0 and extracted["newest_wins"] == 1.0
    assert extracted["stale_lost"] == 0 and extracted["duplicates_per_100"] == 0.0
    text = report(result, "offline tool-calling model")
    assert "not a language model's" in text and "median prompt" in text
