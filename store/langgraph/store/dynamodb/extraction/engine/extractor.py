"""The extraction's public entry points: run one thread's extraction, wait until a
checkpoint is processed (sync and async), status, replay, the config on the table, and
the erasure of what extraction formed."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.basestore.store import DynamoDBStore
from langgraph.store.dynamodb.extraction.consolidation.apply import forget
from langgraph.store.dynamodb.extraction.consolidation.decisions import (
    Consolidator,
)
from langgraph.store.dynamodb.extraction.engine.budget import Budget
from langgraph.store.dynamodb.extraction.engine.config import (
    ExtractionConfig,
    ExtractionConfigError,
    TenantOverride,
)
from langgraph.store.dynamodb.extraction.engine.cursor import (
    Cursor,
    CursorGoneError,
    Cursors,
    LeaseLostError,
)
from langgraph.store.dynamodb.extraction.engine.ledger import Ledger, Memory
from langgraph.store.dynamodb.extraction.engine.reader import (
    History,
    ThreadState,
    read_thread,
)
from langgraph.store.dynamodb.extraction.engine.settings_rows import SettingsRows
from langgraph.store.dynamodb.extraction.engine.strategy_run import (
    Means,
    StrategyRun,
    StrategyRunner,
)
from langgraph.store.dynamodb.extraction.engine.tenantless import (
    NO_TENANT,
    check_untenanted,
    holds_untenanted_threads,
)
from langgraph.store.dynamodb.extraction.strategies.errors import ExtractionError, ThreadBusyError
from langgraph.store.dynamodb.extraction.strategies.model_call import (
    bedrock_model,
)
from langgraph.store.dynamodb.table import clock
from langgraph.store.dynamodb.table.extraction_rows import extraction_sources
from langgraph.store.dynamodb.table.row_sources import RowSource

if TYPE_CHECKING:
    # Annotations only: the chat model stack loads once a model is called (model_call).
    from langchain_core.language_models import BaseChatModel

# A chat model for a Bedrock model id (the default builds `ChatBedrockConverse` on the
# store's session and endpoint).
ModelFactory = Callable[[str], "BaseChatModel"]


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


Settings = tuple[ExtractionConfig, TenantOverride | None]


@dataclass(frozen=True)
class BatchPlan:
    """One read for a batch of requests (`Extractor.plan_batch`): each tenant's settings,
    which its runs use instead of reading them again, and the threads every strategy's
    cursor has processed through the request's checkpoint (nothing to run)."""

    settings: dict[str, Settings]
    caught_up: frozenset[tuple[str, str]]


class Extractor:
    """Forms memories from the threads `saver` keeps, into `store` (the same table).

    `model` is a chat model used for every strategy (a fake one in tests), or a factory
    from model id; by default `ChatBedrockConverse` in the store's region (at
    `bedrock_endpoint_url` when given: the emulation's server). `consolidator` decides
    what each candidate does; by default the config's `consolidation` names it
    (`NearestConsolidator` unless set to `"add_each"`). Model calls and tokens are reported to
    the store's `on_usage` hook, for the tenant (group `(".threads", tenant)`)."""

    def __init__(
        self,
        store: DynamoDBStore,
        saver: DynamoDBSaver,
        *,
        model: BaseChatModel | ModelFactory | None = None,
        consolidator: Consolidator | None = None,
        bedrock_endpoint_url: str | None = None,
        poll_seconds: float = 0.1,
    ) -> None:
        if store.table_name != saver.table_name:
            raise ValueError(
                f"the store's table {store.table_name!r} and the saver's "
                f"{saver.table_name!r} differ: extraction reads threads and writes "
                "memories on one table"
            )
        self.store = store
        self.saver = saver
        self.poll_seconds = poll_seconds
        client = store.client
        self._cursors = Cursors(client, store.table_name)
        self._ledger = Ledger(client, store.table_name)
        self._settings = SettingsRows(client, store.table_name)
        self._budget = Budget(client, store.table_name)
        self._model = model
        self._region = str(client.meta.region_name)
        self._bedrock_endpoint = bedrock_endpoint_url
        self._models: dict[str, BaseChatModel] = {}
        self._building: dict[str, threading.Lock] = {}
        self._building_lock = threading.Lock()
        self._means = Means(
            store,
            saver,
            self._cursors,
            self._ledger,
            self._budget,
            consolidator,
            self.chat_model,
        )

    @property
    def region(self) -> str:
        """The AWS region of the store's client: Bedrock's, and the worker's queues'."""
        return self._region

    # The config on the table

    def config(self) -> ExtractionConfig:
        """The table's config (the default, no strategy, when none was saved)."""
        return self._settings.load(None)[0]

    def set_config(self, config: ExtractionConfig) -> None:
        """Check and save the table's config (nothing is saved when a check fails). When
        this extractor's saver has no tenant_key, or the table holds threads of one that
        has none, a config those threads cannot run with is refused (`tenantless`)."""
        checked = config.checked()
        if self.saver.tenant_key is None or holds_untenanted_threads(
            self.store.client, self.store.table_name
        ):
            check_untenanted(checked.with_override(self.tenant_override(NO_TENANT)))
        self._settings.save(None, checked)

    def tenant_override(self, tenant: str) -> TenantOverride | None:
        """A tenant's override, if one was saved."""
        return self._settings.load(_tenant(tenant))[1]

    def set_tenant_override(self, tenant: str, override: TenantOverride | None) -> None:
        """Check (against the table's config) and save a tenant's override; None removes it."""
        if override is not None:
            effective = self.config().with_override(override)
            if tenant == NO_TENANT:
                check_untenanted(effective)
        self._settings.save(_tenant(tenant), override)

    # Running

    def run(self, tenant: str, thread_id: str, *, plan: BatchPlan | None = None) -> RunReport:
        """Extract the thread's new messages for every strategy whose trigger is due,
        under each strategy's cursor lease; raises `ExtractionError` when it fails
        (`transient`: whether a later run may succeed). With `plan`, the tenant's settings
        are the plan's."""
        settings = plan.settings.get(tenant) if plan is not None else None
        return self._run(tenant, thread_id, only=None, force=False, settings=settings)

    def plan_batch(self, requests: Sequence[tuple[str, str, str]]) -> BatchPlan:
        """Read, for `(tenant, thread, checkpoint)` requests, the settings of their tenants
        (one request) and the cursors of their strategies (one more): a thread whose every
        cursor is through its request's checkpoint has nothing
        new (a duplicate or late delivery), so its run needs no lease nor thread read."""
        tenants = list(dict.fromkeys(_tenant(tenant) for tenant, _, _ in requests))
        config, overrides = self._settings.load_many(tenants)
        wanted: dict[tuple[str, str], tuple[str, list[str]]] = {}
        for tenant, thread_id, checkpoint in requests:
            override = overrides[tenant]
            if override is None or override.enabled:
                names = [s.name for s in config.with_override(override).strategies]
                wanted[(tenant, thread_id)] = (checkpoint, names)
        cursors = self._cursors.read_many(
            (tenant, thread_id, name)
            for (tenant, thread_id), (_, names) in wanted.items()
            for name in names
        )

        def through(tenant: str, thread_id: str, name: str, checkpoint: str) -> bool:
            cursor = cursors.get((tenant, thread_id, name))
            # A window pending on it is a newer checkpoint's, whose request SQS delivers
            # again: this one has nothing more.
            return cursor is not None and (cursor.checkpoint_id or "") >= checkpoint

        caught_up = frozenset(
            thread
            for thread, (checkpoint, names) in wanted.items()
            if names and all(through(*thread, name, checkpoint) for name in names)
        )
        return BatchPlan({t: (config, overrides[t]) for t in tenants}, caught_up)

    def replay(
        self,
        tenant: str,
        thread_id: str,
        *,
        after_checkpoint: str | None = None,
        strategies: Sequence[str] | None = None,
    ) -> RunReport:
        """Reprocess the thread's messages after `after_checkpoint` (None: from the start,
        or from where the thread was last forgotten: forgotten messages stay forgotten)
        for the named strategies (None: all). The same text is the same memory, and a
        message read again keeps when it was first said, so a replay never duplicates a
        memory nor overturns a newer fact. `ThreadBusyError` while a run holds the
        thread."""
        config = self._tenant_config(tenant)
        names = _names(config, strategies)
        if read_thread(self.saver, tenant, thread_id, channel=config.messages_channel) is None:
            gone = "the thread has no checkpoint: nothing to replay"
            return RunReport(tenant, thread_id, tuple(StrategyRun(n, skipped=gone) for n in names))
        message_id = None
        if after_checkpoint is not None:
            state = read_thread(self.saver, tenant, thread_id, after_checkpoint)
            if state is None:
                raise ValueError(f"thread {thread_id!r} has no checkpoint {after_checkpoint!r}")
            message_id = state.messages[-1].message_id if state.messages else None
        for name in names:
            owner = uuid.uuid4().hex
            now = clock.now()
            cursor = self._cursors.acquire(
                tenant, thread_id, name, owner, now + config.lease_seconds, now
            )
            busy = ThreadBusyError(
                f"a run holds thread {thread_id!r} for {name}; replay once it ends "
                f"(at most {config.lease_seconds:.0f} s)"
            )
            if cursor is None:
                raise busy
            if cursor.pending is not None:  # a crashed run's window: apply it first
                self._cursors.release(cursor, owner)
                self._run(tenant, thread_id, only=[name], force=False)
                cursor = self._cursors.acquire(
                    tenant, thread_id, name, owner, now + config.lease_seconds, now
                )
                if cursor is None or cursor.pending is not None:
                    raise busy
            start = _not_before_forget(cursor, message_id, after_checkpoint)
            try:
                self._cursors.advance(
                    cursor,
                    owner,
                    checkpoint_id=start[0],
                    message_id=start[1],
                    memories=0,
                    lag=cursor.lag,
                    error=None,
                    now=now,
                )
            finally:
                self._cursors.release(cursor, owner)
        return self._run(tenant, thread_id, only=names, force=True)

    def _run(
        self,
        tenant: str,
        thread_id: str,
        *,
        only: Sequence[str] | None,
        force: bool,
        settings: Settings | None = None,
    ) -> RunReport:
        try:
            config, override = settings or self._settings.load(_tenant(tenant))
        except ExtractionConfigError:
            raise
        except Exception as error:
            reason = f"reading the config: {type(error).__name__}: {error}"
            raise ExtractionError(tenant, thread_id, None, reason) from error
        if override is not None and not override.enabled:
            off = "extraction is off for this tenant"
            return RunReport(
                tenant,
                thread_id,
                tuple(StrategyRun(s.name, skipped=off) for s in config.strategies),
            )
        config = config.with_override(override)
        strategies = [s for s in config.strategies if only is None or s.name in only]
        owner = uuid.uuid4().hex
        held: dict[str, Cursor] = {}
        active: list[StrategyRunner] = []
        runs: dict[str, StrategyRun] = {}
        state: ThreadState | None = None
        try:
            # Cursors first, then the thread: a purge that lands in between deletes the
            # cursors, and every later write, conditional on them, finds them gone.
            now = clock.now()
            for strategy in strategies:
                until = now + config.lease_seconds
                cursor = self._cursors.acquire(tenant, thread_id, strategy.name, owner, until, now)
                if cursor is None:
                    runs[strategy.name] = StrategyRun(
                        strategy.name,
                        skipped="another run holds the thread",
                        retry_after=config.lease_seconds,
                    )
                else:
                    held[strategy.name] = cursor
            history = None
            if held:
                channel = config.messages_channel
                state = read_thread(self.saver, tenant, thread_id, channel=channel, recent=True)
                if state is not None:
                    history = History(self.saver, tenant, thread_id, state, channel)
            for strategy in strategies:
                if strategy.name in held:
                    run = StrategyRunner(
                        self._means, config, strategy, held[strategy.name], owner, state, history
                    )
                    active.append(run)
                    runs[strategy.name] = self._run_strategy(run, force)
        except ExtractionError:
            raise
        except Exception as error:
            checkpoint = state.checkpoint_id if state is not None else None
            reason = f"{type(error).__name__}: {error}"
            raise ExtractionError(tenant, thread_id, checkpoint, reason) from error
        finally:
            released = {run.strategy.name for run in active if run.released}
            for name, cursor in held.items():
                if name not in released:
                    with contextlib.suppress(Exception):
                        self._cursors.release(cursor, owner)
        return RunReport(tenant, thread_id, tuple(runs[s.name] for s in strategies))

    def _run_strategy(self, run: StrategyRunner, force: bool) -> StrategyRun:
        name = run.strategy.name
        try:
            return run.go(force)
        except CursorGoneError:
            self._undo(run.cursor.thread_id, run.written)
            return StrategyRun(name, skipped="the thread was purged during the run")
        except LeaseLostError:
            now = self._cursors.read(run.cursor)
            if now is None or now.forgets > run.cursor.forgets:
                self._undo(run.cursor.thread_id, run.written)
                return StrategyRun(name, skipped="the thread was forgotten during the run")
            return StrategyRun(name, skipped="the run's lease lapsed; another run took over")
        except Exception as error:
            reason = f"{name}: {type(error).__name__}: {error}"
            with contextlib.suppress(Exception):
                run.record(f"failed: {reason}")
            cursor = run.cursor
            checkpoint = run.state.checkpoint_id if run.state is not None else None
            raise ExtractionError(cursor.tenant, cursor.thread_id, checkpoint, reason) from error

    def _undo(self, thread_id: str, written: Sequence[Memory]) -> None:
        """Undo the thread's share of what a run wrote once its cursor was purged."""
        forget(self.store, thread_id, written)

    def _tenant_config(self, tenant: str) -> ExtractionConfig:
        config, override = self._settings.load(_tenant(tenant))
        return config.with_override(override)

    def chat_model(self, model_id: str) -> BaseChatModel:
        """The chat model a strategy configured with `model_id` calls, built once per model
        id: the worker runs a batch's threads at once, and a caller asking while another
        builds the same id waits for that model (other ids build meanwhile). A build that
        raises keeps nothing: the next caller builds again."""
        from langchain_core.language_models import BaseChatModel

        if isinstance(self._model, BaseChatModel):
            return self._model
        model = self._models.get(model_id)
        if model is not None:
            return model
        with self._building_lock:
            building = self._building.setdefault(model_id, threading.Lock())
        with building:
            if model_id not in self._models:
                self._models[model_id] = (
                    self._model(model_id)
                    if self._model is not None
                    else bedrock_model(model_id, self._region, self._bedrock_endpoint)
                )
        return self._models[model_id]

    # Knowing when it is done

    def status(self, tenant: str, thread_id: str | None = None) -> list[StrategyStatus]:
        """Per thread (one, or every thread of the tenant) and strategy: lag, last run,
        last error. A named thread lists every configured strategy, run or not."""
        config = self._tenant_config(tenant)
        cursors = {(c.thread_id, c.strategy): c for c in self._cursors.of_tenant(tenant, thread_id)}
        if thread_id is not None:
            for strategy in config.strategies:
                cursors.setdefault(
                    (thread_id, strategy.name), Cursor(tenant, thread_id, strategy.name)
                )
        newest: dict[str, str | None] = {}
        found = []
        for (thread, name), cursor in sorted(cursors.items()):
            if thread not in newest:
                state = read_thread(self.saver, tenant, thread, channel=config.messages_channel)
                newest[thread] = state.checkpoint_id if state is not None else None
            found.append(
                StrategyStatus(
                    tenant=tenant,
                    thread_id=thread,
                    strategy=name,
                    checkpoint_id=cursor.checkpoint_id,
                    newest_checkpoint_id=newest[thread],
                    lag_messages=cursor.lag,
                    last_run_at=cursor.last_run_at,
                    last_error=cursor.last_error,
                    memories=cursor.memory_count,
                )
            )
        return found

    def wait_until_processed(
        self, tenant: str, thread_id: str, checkpoint_id: str, *, timeout: float = 60.0
    ) -> list[StrategyStatus]:
        """Block until every configured strategy of the tenant has processed the thread
        through `checkpoint_id`; `TimeoutError` naming the strategies still behind."""
        deadline = time.monotonic() + timeout
        while True:
            names = [s.name for s in self._tenant_config(tenant).strategies]
            cursors = {c.strategy: c for c in self._cursors.of_tenant(tenant, thread_id)}
            behind = [
                name
                for name in names
                if name not in cursors or (cursors[name].checkpoint_id or "") < checkpoint_id
            ]
            if not behind:
                return [s for s in self.status(tenant, thread_id) if s.strategy in names]
            if time.monotonic() >= deadline:
                detail = "; ".join(f"{name}: {_behind(cursors.get(name))}" for name in behind)
                raise TimeoutError(
                    f"thread {thread_id!r} of tenant {tenant!r} was not processed through "
                    f"checkpoint {checkpoint_id} within {timeout} s: {detail}"
                )
            time.sleep(self.poll_seconds)

    async def await_until_processed(
        self, tenant: str, thread_id: str, checkpoint_id: str, *, timeout: float = 60.0
    ) -> list[StrategyStatus]:
        """`wait_until_processed`, without blocking the event loop."""
        return await asyncio.to_thread(
            self.wait_until_processed, tenant, thread_id, checkpoint_id, timeout=timeout
        )

    # Erasure

    def forget_thread(self, tenant: str, thread_id: str) -> int:
        """Forget what one thread taught, for good: every strategy's cursor moves to the
        thread's last message (taken from any run holding it, which then undoes its
        share), so the messages it has now are never extracted again, by a late request,
        the next turn or a replay; only messages added afterwards form memories (a thread
        with no checkpoint left loses its cursors instead, creating none). Then the
        thread is removed as a source of the memories its ledger names: those no other
        conversation stated are deleted, versions it wrote rolled back, chains settled;
        then its ledger goes. Returns how many memories were deleted."""
        config = self._tenant_config(tenant)
        state = read_thread(self.saver, tenant, thread_id, channel=config.messages_channel)
        checkpoint = state.checkpoint_id if state is not None else None
        last = state.messages[-1].message_id if state is not None and state.messages else None
        held = list(self._cursors.of_tenant(tenant, thread_id))
        if state is None:  # no message left to keep from extraction: no cursor either
            self._cursors.remove([c.key for c in held])
        else:
            names = [s.name for s in config.strategies] + [c.strategy for c in held]
            now = clock.now()
            for name in dict.fromkeys(names):
                self._cursors.forget(tenant, thread_id, name, checkpoint, last, now)
        rows = list(self._ledger.memories(tenant, thread_id))
        deleted = forget(self.store, thread_id, [memory for _, memory in rows])
        self._ledger.forget([key for key, _ in rows])
        return deleted

    def row_sources(self, tenant: str) -> list[RowSource]:
        """What a purge of `tenant` erases of extraction's rows: the memories formed from
        its threads wherever their templates put them, their ledger, its extraction
        partition and its override (`table.extraction_rows`). The saver's
        `erasure_sources()` already holds them: this is for a purge without threads."""
        return extraction_sources(self.store.client, self.store.table_name, _tenant(tenant))


def _tenant(tenant: str) -> str:
    if not isinstance(tenant, str):
        raise ValueError(f"tenant must be a string, got {tenant!r}")
    return tenant


def _names(config: ExtractionConfig, strategies: Sequence[str] | None) -> list[str]:
    known = [s.name for s in config.strategies]
    if strategies is None:
        return known
    unknown = [name for name in strategies if name not in known]
    if unknown:
        raise ValueError(f"no strategy named {unknown[0]!r}; configured: {', '.join(known)}")
    return list(strategies)


def _not_before_forget(
    cursor: Cursor, message_id: str | None, checkpoint_id: str | None
) -> tuple[str | None, str | None]:
    """Where a replay from (`checkpoint_id`, `message_id`) starts: at the cursor when the
    thread was forgotten and the replay would start earlier than that (checkpoint ids
    sort by time)."""
    if cursor.forgotten_message is None:
        return checkpoint_id, message_id
    if checkpoint_id is None or (cursor.checkpoint_id or "") > checkpoint_id:
        return cursor.checkpoint_id, cursor.message_id
    return checkpoint_id, message_id


def _behind(cursor: Cursor | None) -> str:
    if cursor is None:
        return "never ran"
    where = f"at checkpoint {cursor.checkpoint_id}" if cursor.checkpoint_id else "at the start"
    return where + (f", last error: {cursor.last_error}" if cursor.last_error else "")
