"""One structured-output call: a system prompt and a human message to a chat model bound
to a pydantic schema (Bedrock Converse tool use), the parsed answer or
`MalformedAnswerError` naming why it does not fit (`ask`); and the extract step every
strategy shares, that call on a transcript whose answer lists memories (`memories`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.store.dynamodb.extraction.strategies.errors import MalformedAnswerError
from langgraph.store.dynamodb.extraction.strategies.transcript import Transcript
from pydantic import BaseModel

if TYPE_CHECKING:
    # Annotations only: the chat model stack loads once a model is called (model_call).
    from langchain_core.language_models import BaseChatModel

Answer = TypeVar("Answer", bound=BaseModel)
# What a memory said and the ids of the messages it came from (`Strategy.candidates`).
Found = tuple[dict[str, Any], list[str]]


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


def memories(
    model: BaseChatModel, schema: type[BaseModel], system: str, transcript: Transcript
) -> list[Found]:
    """`model`'s memories in `transcript` as `schema` answers them (its `memories` list, each
    memory with its `message_ids`): each memory's other fields (as JSON) and its ids."""
    answer = ask(model, schema, system, transcript.render()).model_dump(mode="json")
    return [
        ({name: v for name, v in memory.items() if name != "message_ids"}, memory["message_ids"])
        for memory in answer["memories"]
    ]
