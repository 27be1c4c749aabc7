"""The extraction's public entry points: run one thread's extraction, wait until a
checkpoint is processed (sync and async), status, replay, the config on the table, and
the erasure of what extraction formed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from langchain_core.language_models import BaseChatModel
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.memory.store import DynamoDBStore
from langgraph.store.dynamodb.table.row_sources import RowSource

from .config import ExtractionConfig, TenantOverride
from .consolidation import Consolidator

# A chat model for a Bedrock model id (the default builds `ChatBedrockConverse` on the
# store's session and endpoint).
ModelFactory = Callable[[str], BaseChatModel]


@dataclass(frozen=True)
class StrategyStatus:
    """Where one strategy stands on one thread: the checkpoint processed through, the
    thread's newest checkpoint, the messages not yet processed (`lag_messages`), the last
    run (epoch seconds), the last error or skip reason (None when the last run succeeded)
    and the memories it formed."""

    tenant: str
    thread_id: str
    strategy: str
    checkpoint_id: str | None
    newest_checkpoint_id: str | None
    lag_messages: int
    last_run_at: float | None
    last_error: str | None
    memories: int


@dataclass(frozen=True)
class StrategyRun:
    """What one run did for one strategy: memories written (keys), the decisions that
    wrote nothing, model calls and tokens, and why it did not run or stopped (`skipped`:
    not due yet, leased elsewhere, over budget, malformed answer, ...), with `retry_after`
    seconds when it should run again (the idle trigger, a lease, the budget)."""

    strategy: str
    written: tuple[str, ...] = ()
    unchanged: int = 0
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    skipped: str | None = None
    retry_after: float | None = None


@dataclass(frozen=True)
class RunReport:
    """One thread's run: a `StrategyRun` per configured strategy."""

    tenant: str
    thread_id: str
    runs: tuple[StrategyRun, ...] = field(default_factory=tuple)

    @property
    def retry_after(self) -> float | None:
        """The soonest any strategy wants to run again (None: only new messages will)."""
        waits = [r.retry_after for r in self.runs if r.retry_after is not None]
        return min(waits) if waits else None


class Extractor:
    """Forms memories from the threads `saver` keeps, into `store` (the same table).

    `model` is a chat model used for every strategy, or a factory from model id (default:
    `ChatBedrockConverse`); `consolidator` decides what each candidate does (default:
    `AddEach`)."""

    def __init__(
        self,
        store: DynamoDBStore,
        saver: DynamoDBSaver,
        *,
        model: BaseChatModel | ModelFactory | None = None,
        consolidator: Consolidator | None = None,
    ) -> None:
        raise NotImplementedError

    # The config on the table

    def config(self) -> ExtractionConfig:
        """The table's config (the default, no strategy, when none was saved)."""
        raise NotImplementedError

    def set_config(self, config: ExtractionConfig) -> None:
        """Check and save the table's config (nothing is saved when a check fails)."""
        raise NotImplementedError

    def tenant_override(self, tenant: str) -> TenantOverride | None:
        """A tenant's override, if one was saved."""
        raise NotImplementedError

    def set_tenant_override(self, tenant: str, override: TenantOverride | None) -> None:
        """Check (against the table's config) and save a tenant's override; None removes it."""
        raise NotImplementedError

    # Running

    def run(self, tenant: str, thread_id: str) -> RunReport:
        """Extract the thread's new messages for every strategy whose trigger is due,
        under each strategy's cursor lease; raises `ExtractionError` on a permanent
        failure."""
        raise NotImplementedError

    def replay(
        self,
        tenant: str,
        thread_id: str,
        *,
        after_checkpoint: str | None = None,
        strategies: Sequence[str] | None = None,
    ) -> RunReport:
        """Reprocess the thread's messages after `after_checkpoint` (None: from the start)
        for the named strategies (None: all). Memories keep their provenance keys, so a
        replay rewrites them and never duplicates."""
        raise NotImplementedError

    # Knowing when it is done

    def status(self, tenant: str, thread_id: str | None = None) -> list[StrategyStatus]:
        """Per thread (one, or every thread of the tenant) and strategy: lag, last run,
        last error."""
        raise NotImplementedError

    def wait_until_processed(
        self, tenant: str, thread_id: str, checkpoint_id: str, *, timeout: float = 60.0
    ) -> list[StrategyStatus]:
        """Block until every configured strategy of the tenant has processed the thread
        through `checkpoint_id`; `TimeoutError` naming the strategies still behind."""
        raise NotImplementedError

    async def await_until_processed(
        self, tenant: str, thread_id: str, checkpoint_id: str, *, timeout: float = 60.0
    ) -> list[StrategyStatus]:
        """`wait_until_processed`, without blocking the event loop."""
        raise NotImplementedError

    # Erasure

    def forget_thread(self, tenant: str, thread_id: str) -> int:
        """Delete the memories formed from one thread and its cursors; returns how many
        memories went."""
        raise NotImplementedError

    def row_sources(self, tenant: str) -> list[RowSource]:
        """What a purge of `tenant` erases beyond its namespaces: the memories formed from
        its threads wherever their templates put them, their ledger, the cursors and the
        tenant's budget rows (`DynamoDBStore.purge(prefix, sources=...)`)."""
        raise NotImplementedError
