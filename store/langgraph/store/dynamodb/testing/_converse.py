"""Bedrock runtime ``Converse``, which moto lacks: the models of
`extraction.strategies.chat_models.CHAT_MODELS`, answered by the deterministic extractor
(`testing.extractor`) when the request offers a tool whose input has a `memories` array,
else with a short text. Latency: `EmulatorSettings.converse_latency`."""

from __future__ import annotations

import json
import math
import time
import uuid
from typing import Any

from langgraph.store.dynamodb.extraction.strategies.chat_models import is_known
from langgraph.store.dynamodb.testing._bedrock import BedrockValidationError
from langgraph.store.dynamodb.testing._settings import current_settings
from langgraph.store.dynamodb.testing.extractor import (
    consolidate,
    extract_episodes,
    extract_facts,
    extract_preferences,
    extract_summary,
    fill_schema,
)
from moto.bedrockruntime.responses import BedrockRuntimeResponse
from moto.core.responses import ActionResult

MEMORIES = "memories"
DECISIONS = "decisions"
# The tool a custom strategy with its own schema offers (extraction.strategies.custom).
CUSTOM_TOOL = "CustomMemories"
CHARS_PER_TOKEN = 4


def _texts(messages: list[dict[str, Any]]) -> list[str]:
    return [block["text"] for m in messages for block in m.get("content", []) if "text" in block]


def _tool(request: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The tool to answer with and its input schema: the one the request forces, else the
    first whose input schema has a `memories` or `decisions` property."""
    config = request.get("toolConfig") or {}
    forced = (config.get("toolChoice") or {}).get("tool", {}).get("name")
    for tool in config.get("tools", []):
        spec = tool.get("toolSpec", {})
        schema = spec.get("inputSchema", {}).get("json", {})
        if isinstance(schema, str):
            schema = json.loads(schema)
        answers = {MEMORIES, DECISIONS} & set(schema.get("properties", {}))
        if answers and forced in (None, spec.get("name")):
            return str(spec["name"]), schema
    return None


def _answer(tool: str, schema: dict[str, Any], text: str) -> dict[str, Any]:
    """What the deterministic extractor answers for the strategy (or consolidation) the
    tool belongs to, by the tool's name: a custom strategy's schema is filled, any other
    tool gets the semantic facts."""
    if DECISIONS in schema.get("properties", {}):
        return {DECISIONS: consolidate(text)}
    by_tool = {
        "Facts": extract_facts,
        "Preferences": extract_preferences,
        "SessionSummary": extract_summary,
        "Episodes": extract_episodes,
    }
    if tool == CUSTOM_TOOL:
        return {MEMORIES: fill_schema(schema, text)}
    return {MEMORIES: by_tool.get(tool, extract_facts)(text)}


def converse(model_id: str, request: dict[str, Any]) -> dict[str, Any]:
    """The response Bedrock's Converse returns (raises ValidationException)."""
    if not is_known(model_id):
        raise BedrockValidationError("The provided model identifier is invalid.")
    messages = request.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BedrockValidationError("A conversation must start with a user message.")
    latency = current_settings().converse_latency
    if latency:
        time.sleep(latency)
    texts = _texts(messages) + [s["text"] for s in request.get("system") or [] if "text" in s]
    found = _tool(request)
    if found is not None:
        tool, schema = found
        answer = _answer(tool, schema, "\n".join(_texts(messages)))
        content: list[dict[str, Any]] = [
            {
                "toolUse": {
                    "toolUseId": f"tooluse_{uuid.uuid4().hex[:22]}",
                    "name": tool,
                    "input": answer,
                }
            }
        ]
        stop, output = "tool_use", json.dumps(answer)
    else:
        output = "Nothing to call a tool for."
        content, stop = [{"text": output}], "end_turn"
    tokens_in = math.ceil(sum(len(t) for t in texts) / CHARS_PER_TOKEN)
    tokens_out = math.ceil(len(output) / CHARS_PER_TOKEN)
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop,
        "usage": {
            "inputTokens": tokens_in,
            "outputTokens": tokens_out,
            "totalTokens": tokens_in + tokens_out,
        },
        "metrics": {"latencyMs": int(latency * 1000)},
    }


def _converse(self: BedrockRuntimeResponse) -> ActionResult:
    request = {name: self._get_param(name) for name in ("messages", "system", "toolConfig")}
    return ActionResult(converse(str(self._get_param("modelId")), request))


def install() -> None:
    BedrockRuntimeResponse.converse = _converse  # type: ignore[attr-defined]
