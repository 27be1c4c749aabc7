"""A strategy: what to extract from a thread, where the memories go, when to run, and with
which model. Strategies are pydantic models (their settings are their fields, saved with
the extraction config on the table), registered by `kind` so a config names them as data
(`strategy_from`).

`Strategy` holds what every strategy shares: its `name`, its `namespace` template (filled
from the thread's values by `recall.templates`), its `Trigger`, an optional `model_id`,
and `candidates`, which turns a model's answer into `Candidate`s with their provenance
(refusing an answer that names no message, or one outside the window). A new strategy
subclasses it, sets `kind` and `prompt_version` (recorded in each memory's provenance),
implements `extract` (one structured call, `structured.ask`, whose answer goes through
`candidates`) and is registered with `@register`. One whose extract is a prompt and an
answer schema listing memories (the built-in strategies) subclasses `PromptedStrategy`
instead, and sets only those two and what it does differently with what the model found.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from langgraph.store.dynamodb.extraction.strategies.candidates import Candidate, Provenance
from langgraph.store.dynamodb.extraction.strategies.errors import MalformedAnswerError
from langgraph.store.dynamodb.extraction.strategies.structured import Found, memories
from langgraph.store.dynamodb.extraction.strategies.transcript import Transcript
from langgraph.store.dynamodb.recall import templates
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

if TYPE_CHECKING:
    # Annotations only: the chat model stack loads once a model is called (model_call).
    from langchain_core.language_models import BaseChatModel

# Values every thread has, whatever its metadata.
TENANT_VALUE = "tenant"
THREAD_VALUE = "thread_id"
THREAD_VALUES = (TENANT_VALUE, THREAD_VALUE)


class Trigger(BaseModel):
    """When a strategy runs for a thread: after `messages` new messages, after `tokens`
    new tokens (approximate count), or once the thread has been idle for `idle_seconds`
    (its newest checkpoint that old). Any condition met makes a run due; a run processes
    every new message, so triggers that fire together fold into one run. All unset: run
    on every new message. Ranges: `messages` 1 to 10,000, `tokens` 1 to 10,000,000,
    `idle_seconds` 0 to a week."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    messages: int | None = Field(default=None, ge=1, le=10_000)
    tokens: int | None = Field(default=None, ge=1, le=10_000_000)
    idle_seconds: float | None = Field(default=None, ge=0, le=7 * 86_400, allow_inf_nan=False)

    def wait(self, new_messages: int, new_tokens: int, idle_for: float) -> float | None:
        """Seconds until a run is due (0: due now; None: not due until more messages
        arrive), given the thread's pending messages, tokens and idle time."""
        if new_messages == 0:
            return None
        if self.messages is None and self.tokens is None and self.idle_seconds is None:
            return 0.0
        if self.messages is not None and new_messages >= self.messages:
            return 0.0
        if self.tokens is not None and new_tokens >= self.tokens:
            return 0.0
        if self.idle_seconds is not None:
            return max(0.0, self.idle_seconds - idle_for)
        return None


class Strategy(BaseModel, ABC):
    """One configured strategy. `name` is unique in a config and keys the thread's cursor
    and the memories' provenance; `namespace` is a template whose labels may hold
    `{tenant}`, `{thread_id}` and the thread's metadata keys the config declares
    (`ExtractionConfig.thread_keys`); `model_id` overrides the deployment's model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: ClassVar[str]
    prompt_version: ClassVar[str]

    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
    namespace: tuple[str, ...]
    trigger: Trigger = Trigger()
    model_id: str | None = None

    @field_validator("namespace")
    @classmethod
    def _labels(cls, namespace: tuple[str, ...]) -> tuple[str, ...]:
        if not namespace or any(not label or "." in label for label in namespace):
            raise ValueError("needs at least one label, none empty or holding '.'")
        return namespace

    @model_validator(mode="before")
    @classmethod
    def _no_kind_mismatch(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("kind", cls.kind) != cls.kind:
            raise ValueError(f"kind {data['kind']!r} is not {cls.kind!r}")
        if isinstance(data, dict):
            data = {k: v for k, v in data.items() if k != "kind"}
        return data

    def placeholders(self) -> set[str]:
        """The thread values the namespace template names."""
        return templates.placeholders(self.namespace)

    def namespace_for(self, values: Mapping[str, str]) -> tuple[str, ...]:
        """The template filled with a thread's values (KeyError names a missing one)."""
        return templates.fill(self.namespace, values)

    @model_serializer(mode="wrap")
    def _with_kind(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Stored with its `kind`, which names the class that reads it back."""
        return {"kind": self.kind, **handler(self)}

    def candidates(
        self,
        transcript: Transcript,
        found: Sequence[tuple[Mapping[str, Any], Sequence[str]]],
        model: BaseChatModel,
    ) -> list[Candidate]:
        """Candidates from what a model answered: each `(content, message_ids)` with its
        provenance. Raises
        `MalformedAnswerError` when an answer names no message or one not in the window
        (garbage is never written)."""
        by_id = {m.message_id: m for m in transcript.messages}
        made = []
        for content, message_ids in found:
            ids = tuple(dict.fromkeys(message_ids))
            unknown = [i for i in ids if i not in by_id]
            if not ids:
                raise MalformedAnswerError("the answer names no message for a memory")
            if unknown:
                raise MalformedAnswerError(
                    f"the answer names messages not in the window: {unknown}"
                )
            provenance = Provenance(
                tenant=transcript.tenant,
                thread_id=transcript.thread_id,
                checkpoint_ids=tuple(dict.fromkeys(by_id[i].checkpoint_id for i in ids)),
                message_ids=ids,
                strategy=self.name,
                model=model_name(model),
                prompt_version=self.prompt_version,
            )
            made.append(Candidate(content=dict(content), provenance=provenance))
        return made

    @abstractmethod
    def extract(self, transcript: Transcript, model: BaseChatModel) -> Sequence[Candidate]:
        """The candidate memories in `transcript`, from one structured-output call of
        `model`. Raises `MalformedAnswerError` when the answer does not fit (the caller
        retries once). Returns no candidate when nothing is worth remembering."""


class PromptedStrategy(Strategy):
    """A strategy of one system prompt (`system_prompt`) and one answer schema
    (`answer_schema`: a `memories` list, each memory with the `message_ids` it came from).
    Its extract asks the model once (`structured.memories`) and makes one candidate a
    memory, its content the memory's other fields; a strategy that makes them otherwise
    overrides `made`."""

    system_prompt: ClassVar[str]
    answer_schema: ClassVar[type[BaseModel]]

    def extract(self, transcript: Transcript, model: BaseChatModel) -> Sequence[Candidate]:
        return self.extract_with(self.system_prompt, transcript, model)

    def extract_with(
        self, prompt: str, transcript: Transcript, model: BaseChatModel
    ) -> Sequence[Candidate]:
        """`extract` with another system prompt (a custom strategy's)."""
        return self.made(transcript, memories(model, self.answer_schema, prompt, transcript), model)

    def made(
        self, transcript: Transcript, found: Sequence[Found], model: BaseChatModel
    ) -> Sequence[Candidate]:
        """The candidates of the memories the model found: one each."""
        return self.candidates(transcript, found, model)


def model_name(model: BaseChatModel) -> str:
    """The model id a chat model calls (`ChatBedrockConverse.model_id`), else its class."""
    for attribute in ("model_id", "model_name", "model"):
        value = getattr(model, attribute, None)
        if isinstance(value, str) and value:
            return value
    return type(model).__name__


StrategyType = TypeVar("StrategyType", bound=type[Strategy])

# kind -> strategy class, filled by `register`.
STRATEGIES: dict[str, type[Strategy]] = {}


def register(cls: StrategyType) -> StrategyType:
    """Class decorator: make `cls` configurable by its `kind`."""
    STRATEGIES[cls.kind] = cls
    return cls


def strategy_from(settings: Mapping[str, Any]) -> Strategy:
    """The strategy `settings` describe (`{"kind": ..., "name": ..., ...}`); pydantic's
    ValidationError or ValueError naming the kind when it is unknown, or when `settings`
    are no mapping."""
    if not isinstance(settings, Mapping):
        raise ValueError(f"a strategy is an object of settings, got {type(settings).__name__}")
    kind = settings.get("kind")
    if kind not in STRATEGIES:
        raise ValueError(f"unknown strategy kind {kind!r}; known: {', '.join(sorted(STRATEGIES))}")
    return STRATEGIES[str(kind)].model_validate(dict(settings))
