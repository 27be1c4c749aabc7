"""The extraction config: one per table, with per-tenant overrides, both stored on the
table (so the stream's Lambda needs no redeploy to change them). Pydantic models that
refuse unknown fields; every problem is one `ExtractionConfigError` line naming the
setting, raised before anything is saved."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from langgraph.store.dynamodb.extraction.consolidation.decisions import AddEach, Consolidator
from langgraph.store.dynamodb.extraction.consolidation.nearest import MAX_K, NearestConsolidator
from langgraph.store.dynamodb.extraction.strategies.chat_models import DEFAULT_CHAT_MODEL, is_known
from langgraph.store.dynamodb.extraction.strategies.strategy import (
    THREAD_VALUES,
    Strategy,
    strategy_from,
)
from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, ValidationError, field_validator


class ExtractionConfigError(ValueError):
    """One line naming the setting that is wrong and why; nothing was saved."""


class Limits(BaseModel):
    """What one tenant may spend: `daily_tokens` model tokens (input + output) per UTC day
    (None: no budget); `max_window_messages` and `max_window_tokens` cap the transcript
    sent per model call (the rest waits for the next call)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    daily_tokens: int | None = Field(default=None, ge=1)
    max_window_messages: int = Field(default=50, ge=1)
    max_window_tokens: int = Field(default=8000, ge=1)


class Consolidation(BaseModel):
    """What each candidate does to the memories already known. `"nearest"` (the default)
    decides against the `k` nearest current memories of its namespace: add, update,
    supersede or no-op, so the same fact extracted twice is one memory
    (`NearestConsolidator`). `"add_each"` opts out: every candidate is added at its
    provenance key, with no search and no second model call (`AddEach`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: Literal["nearest", "add_each"] = "nearest"
    k: int = Field(default=5, ge=1, le=MAX_K)

    def consolidator(self) -> Consolidator:
        """The consolidator this setting names."""
        return NearestConsolidator(self.k) if self.mode == "nearest" else AddEach()


class ExtractionConfig(BaseModel):
    """A table's extraction config: the deployment's `model_id`, the strategies, the
    metadata keys every thread carries (`thread_keys`, e.g. `["user_id"]`, which namespace
    templates may name besides `tenant` and `thread_id`), the limits, how candidates
    consolidate with what is known, the lease a run holds on a thread's cursor, and the
    state channel holding the thread's messages."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model_id: str = DEFAULT_CHAT_MODEL
    strategies: tuple[SerializeAsAny[Strategy], ...] = ()
    thread_keys: tuple[str, ...] = ()
    limits: Limits = Limits()
    consolidation: Consolidation = Consolidation()
    lease_seconds: float = Field(default=300.0, gt=0)
    messages_channel: str = Field(default="messages", min_length=1)

    @field_validator("strategies", mode="before")
    @classmethod
    def _build(cls, value: Any) -> Any:
        return build_strategies(value)

    def checked(self) -> ExtractionConfig:
        """This config once the rules across fields hold: known models, unique strategy
        names, templates naming only the thread's values."""
        if not is_known(self.model_id):
            raise ExtractionConfigError(_unknown_model("model_id", self.model_id))
        seen: set[str] = set()
        for i, strategy in enumerate(self.strategies):
            where = f"strategies[{i}] ({strategy.name})"
            if strategy.name in seen:
                raise ExtractionConfigError(f"{where}.name: another strategy has this name")
            seen.add(strategy.name)
            if strategy.model_id is not None and not is_known(strategy.model_id):
                raise ExtractionConfigError(_unknown_model(f"{where}.model_id", strategy.model_id))
            missing = sorted(strategy.placeholders() - {*THREAD_VALUES, *self.thread_keys})
            if missing:
                raise ExtractionConfigError(
                    f"{where}.namespace: names {{{missing[0]}}}, which threads lack; use "
                    f"{', '.join(f'{{{k}}}' for k in (*THREAD_VALUES, *self.thread_keys))} "
                    f"or add {missing[0]!r} to thread_keys"
                )
        return self

    def with_override(self, override: TenantOverride | None) -> ExtractionConfig:
        """The config a tenant runs with: the override's settings replace the table's."""
        if override is None:
            return self
        changes = override.model_dump(exclude_unset=True, exclude_none=True)
        for name in ("limits", "consolidation"):
            if name in changes:
                table: BaseModel = getattr(self, name)
                changes[name] = parse(type(table), {**table.model_dump(), **changes[name]}, name)
        if override.strategies is not None:
            changes["strategies"] = override.strategies
        return self.model_copy(update=changes).checked()

    def model_for(self, strategy: Strategy) -> str:
        """The model a strategy runs with."""
        return strategy.model_id or self.model_id


class TenantOverride(BaseModel):
    """One tenant's changes to the table's config: any field left out keeps the table's.
    `enabled=False` stops extraction for the tenant; `limits` and `consolidation` name
    only the settings they change."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True
    model_id: str | None = None
    strategies: tuple[SerializeAsAny[Strategy], ...] | None = None
    limits: Mapping[str, Any] | None = None
    consolidation: Mapping[str, Any] | None = None

    @field_validator("strategies", mode="before")
    @classmethod
    def _build(cls, value: Any) -> Any:
        return build_strategies(value)


def build_strategies(value: Any) -> Any:
    """Strategies from their stored settings (each by its `kind`); other values as given,
    for pydantic to refuse."""
    if not isinstance(value, Sequence) or isinstance(value, str):
        return value
    return tuple(s if isinstance(s, Strategy) else strategy_from(s) for s in value)


def parse(model: type[BaseModel], data: Mapping[str, Any], what: str) -> Any:
    """`data` as `model`, or `ExtractionConfigError` with the first problem on one line."""
    try:
        return model.model_validate(dict(data))
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or what
        raise ExtractionConfigError(f"{what}: {where}: {first['msg']}") from None
    except ValueError as error:
        raise ExtractionConfigError(f"{what}: {error}") from None


def _unknown_model(setting: str, model_id: str) -> str:
    return (
        f"{setting}: {model_id!r} is not a Bedrock Converse model with tool use; see "
        "langgraph.store.dynamodb.extraction.strategies.chat_models.CHAT_MODELS"
    )
