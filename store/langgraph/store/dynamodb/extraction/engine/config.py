"""The extraction config: one per table, with per-tenant overrides, both stored on the
table (so the stream's Lambda needs no redeploy to change them). Pydantic models that
refuse unknown fields and bound every number to a documented range; every problem, when
a model is built or read, is one `ExtractionConfigError` line naming the setting, raised
before anything is saved."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

from langgraph.store.dynamodb.extraction.consolidation.decisions import AddEach, Consolidator
from langgraph.store.dynamodb.extraction.consolidation.nearest import MAX_K, NearestConsolidator
from langgraph.store.dynamodb.extraction.strategies.chat_models import DEFAULT_CHAT_MODEL, is_known
from langgraph.store.dynamodb.extraction.strategies.strategy import (
    THREAD_VALUES,
    Strategy,
    strategy_from,
)
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializeAsAny,
    ValidationError,
    field_validator,
)
from pydantic_core import PydanticSerializationError

# The ranges of the numeric settings.
MAX_DAILY_TOKENS = 10**12
MAX_WINDOW_MESSAGES = 1_000
MAX_WINDOW_TOKENS = 1_000_000
MIN_LEASE_SECONDS = 10.0
MAX_LEASE_SECONDS = 3_600.0


class ExtractionConfigError(ValueError):
    """One line naming the setting that is wrong and why; nothing was saved."""


class Settings(BaseModel):
    """A model of settings built as `Model(**settings)` refuses a wrong one with one
    `ExtractionConfigError` line naming it (prefixed with `what`), not pydantic's dump."""

    what: ClassVar[str]

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as error:
            raise ExtractionConfigError(one_line(error, self.what)) from None


class Limits(Settings):
    """What one tenant may spend: `daily_tokens` model tokens (input + output) per UTC day
    (None: no budget; at most 10^12); `max_window_messages` (1 to 1,000) and
    `max_window_tokens` (1 to 1,000,000) cap the transcript sent per model call (the rest
    waits for the next call)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    what: ClassVar[str] = "limits"

    daily_tokens: int | None = Field(default=None, ge=1, le=MAX_DAILY_TOKENS)
    max_window_messages: int = Field(default=50, ge=1, le=MAX_WINDOW_MESSAGES)
    max_window_tokens: int = Field(default=8000, ge=1, le=MAX_WINDOW_TOKENS)


class Consolidation(Settings):
    """What each candidate does to the memories already known. `"nearest"` (the default)
    decides against the `k` nearest current memories of its namespace: add, update,
    supersede or no-op, so the same fact extracted twice is one memory
    (`NearestConsolidator`). `"add_each"` opts out: every candidate is added at its
    key (its text's), with no search and no second model call (`AddEach`). `k`: 1 to
    `MAX_K`."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    what: ClassVar[str] = "consolidation"

    mode: Literal["nearest", "add_each"] = "nearest"
    k: int = Field(default=5, ge=1, le=MAX_K)

    def consolidator(self) -> Consolidator:
        """The consolidator this setting names."""
        return NearestConsolidator(self.k) if self.mode == "nearest" else AddEach()


class ExtractionConfig(Settings):
    """A table's extraction config: the deployment's `model_id`, the strategies, the
    metadata keys every thread carries (`thread_keys`, e.g. `["user_id"]`, which namespace
    templates may name besides `tenant` and `thread_id`), the limits, how candidates
    consolidate with what is known, the lease a run holds on a thread's cursor (10 s to an
    hour; a run that outlives it loses the thread to the next run), and the state channel
    holding the thread's messages."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    what: ClassVar[str] = "config"

    model_id: str = DEFAULT_CHAT_MODEL
    strategies: tuple[SerializeAsAny[Strategy], ...] = ()
    thread_keys: tuple[str, ...] = ()
    limits: Limits = Limits()
    consolidation: Consolidation = Consolidation()
    lease_seconds: float = Field(
        default=300.0, ge=MIN_LEASE_SECONDS, le=MAX_LEASE_SECONDS, allow_inf_nan=False
    )
    messages_channel: str = Field(default="messages", min_length=1)

    @field_validator("strategies", mode="before")
    @classmethod
    def _build(cls, value: Any) -> Any:
        return build_strategies(value)

    def checked(self) -> ExtractionConfig:
        """This config once the rules across fields hold: known models, unique strategy
        names, templates naming only the thread's values, and it stores as JSON (not
        nested too deeply)."""
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
        try:
            self.model_dump_json()
        except PydanticSerializationError as error:
            why = str(error).rsplit(": ", 1)[-1]
            raise ExtractionConfigError(f"config: cannot be stored as JSON: {why}") from None
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


class TenantOverride(Settings):
    """One tenant's changes to the table's config: any field left out keeps the table's.
    `enabled=False` stops extraction for the tenant; `limits` and `consolidation` name
    only the settings they change."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    what: ClassVar[str] = "override"

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
        raise ExtractionConfigError(one_line(error, what)) from None
    except ValueError as error:
        raise ExtractionConfigError(f"{what}: {error}") from None


def one_line(error: ValidationError, what: str) -> str:
    """pydantic's first problem as one line: `<what>: <setting>: <why>` (a nested model's
    own line, `<its what>: <its setting>: <why>`, joins this one's setting)."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    cause = first.get("ctx", {}).get("error")
    if isinstance(cause, ExtractionConfigError):
        inner = str(cause).split(": ", 1)[1]
        return f"{what}: {where}.{inner}" if where else f"{what}: {inner}"
    why = str(cause) if first["type"] == "value_error" else str(first["msg"])
    why = " ".join(why.split())
    return f"{what}: {where}: {why}" if where else f"{what}: {why}"


def _unknown_model(setting: str, model_id: str) -> str:
    return (
        f"{setting}: {model_id!r} is not a Bedrock Converse model with tool use; see "
        "langgraph.store.dynamodb.extraction.strategies.chat_models.CHAT_MODELS"
    )
