"""One structured-output call: a system prompt and a human message to a chat model bound
to a pydantic schema (Bedrock Converse tool use), the parsed answer or
`MalformedAnswerError` naming why it does not fit."""

from __future__ import annotations

from typing import TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.store.dynamodb.extraction.strategies.errors import MalformedAnswerError
from pydantic import BaseModel

Answer = TypeVar("Answer", bound=BaseModel)


def ask(model: BaseChatModel, schema: type[Answer], system: str, human: str) -> Answer:
    """`model`'s answer as `schema` (one tool call), else `MalformedAnswerError`."""
    answer = model.with_structured_output(schema, include_raw=True).invoke(
        [SystemMessage(system), HumanMessage(human)]
    )
    parsed = answer.get("parsed") if isinstance(answer, dict) else None
    if not isinstance(parsed, schema):
        error = answer.get("parsing_error") if isinstance(answer, dict) else None
        raise MalformedAnswerError(
            f"the answer is not a {schema.__name__} tool call: {error or 'no tool call'}"
        )
    return parsed
