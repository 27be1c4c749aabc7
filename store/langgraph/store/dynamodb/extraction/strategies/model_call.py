"""The model call of one window: the strategy's extract, retried once when the answer is
malformed, with every chat model call and its tokens tallied (whoever makes it: the
strategy, a consolidator), and the default chat model, `ChatBedrockConverse`, whose
client retries throttling with backoff.

The chat model stack (`langchain_core.language_models`, its LangSmith tracing, and
`langchain_aws`) loads on the first model call, not on import: the extraction Lambda's
cold start does without it, and a run that finds nothing to extract never loads it."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import boto3
from botocore.config import Config
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, LLMResult
from langgraph.store.dynamodb.extraction.strategies.candidates import Candidate
from langgraph.store.dynamodb.extraction.strategies.errors import MalformedAnswerError
from langgraph.store.dynamodb.extraction.strategies.strategy import Strategy
from langgraph.store.dynamodb.extraction.strategies.transcript import Transcript

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

# Bedrock throttles per account and model: botocore's adaptive mode backs off and retries.
BEDROCK_RETRIES = Config(retries={"mode": "adaptive", "max_attempts": 8})
ATTEMPTS = 2


class Tally(BaseCallbackHandler):
    """Counts chat model calls and their tokens (as each answer's `usage_metadata` says)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls = 0
        self.input_tokens = 0
        self.output_tokens = 0

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        usage = None
        for generations in response.generations:
            for generation in generations:
                if isinstance(generation, ChatGeneration) and isinstance(
                    generation.message, AIMessage
                ):
                    usage = generation.message.usage_metadata or usage
        with self._lock:
            self.calls += 1
            if usage:
                self.input_tokens += int(usage.get("input_tokens", 0))
                self.output_tokens += int(usage.get("output_tokens", 0))


_tally: ContextVar[Tally | None] = ContextVar("extraction_tally", default=None)
_hooking = threading.Lock()
_hooked = False


def _register_tally() -> None:
    """Have every callback manager LangChain configures hand its calls to the tally in
    `_tally` (once; LangChain's tracing context loads LangSmith, hence not on import)."""
    global _hooked
    with _hooking:
        if not _hooked:
            from langchain_core.tracers.context import register_configure_hook

            register_configure_hook(_tally, inheritable=True)
            _hooked = True


@contextmanager
def tallied() -> Iterator[Tally]:
    """Every chat model call made in the block (on this thread), counted."""
    _register_tally()
    tally = Tally()
    token = _tally.set(tally)
    try:
        yield tally
    finally:
        _tally.reset(token)


@dataclass(frozen=True)
class Extracted:
    """A window's candidates, or the reason there are none (`problem`)."""

    candidates: Sequence[Candidate]
    problem: str | None = None


def extract(strategy: Strategy, transcript: Transcript, model: BaseChatModel) -> Extracted:
    """`strategy.extract`, once more after a malformed answer; after two, the reason."""
    reason = ""
    for _ in range(ATTEMPTS):
        try:
            return Extracted(strategy.extract(transcript, model))
        except MalformedAnswerError as error:
            reason = str(error)
    first, last = transcript.messages[0].message_id, transcript.messages[-1].message_id
    return Extracted(
        (),
        f"malformed answer twice ({reason}); messages {first}..{last} were not extracted "
        "(replay the thread to try again)",
    )


def bedrock_model(model_id: str, region_name: str, endpoint_url: str | None) -> BaseChatModel:
    """`ChatBedrockConverse` for `model_id`, on a client that retries throttling."""
    from langchain_aws import ChatBedrockConverse

    client = boto3.Session().client(
        "bedrock-runtime",
        region_name=region_name,
        endpoint_url=endpoint_url,
        config=BEDROCK_RETRIES,
    )
    return ChatBedrockConverse(model=model_id, client=client, region_name=region_name)
