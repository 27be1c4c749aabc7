"""One strategy's run on one thread (`StrategyRunner`), holding the strategy's cursor:
window after window until the thread is caught up, each extracted, decided, recorded,
applied, looked at again and advanced; and what it reports (`StrategyRun`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.base import PutOp
from langgraph.store.dynamodb.basestore.store import DynamoDBStore
from langgraph.store.dynamodb.extraction.consolidation.apply import apply
from langgraph.store.dynamodb.extraction.consolidation.decisions import (
    Consolidator,
    NoOp,
    consolidate,
)
from langgraph.store.dynamodb.extraction.consolidation.journal import (
    WRITES,
    SaidAt,
    Window,
    plan,
    touched,
)
from langgraph.store.dynamodb.extraction.consolidation.nearest import NearestConsolidator
from langgraph.store.dynamodb.extraction.consolidation.recheck import Watched, look_again
from langgraph.store.dynamodb.extraction.engine.budget import Budget, seconds_to_next_day
from langgraph.store.dynamodb.extraction.engine.config import ExtractionConfig
from langgraph.store.dynamodb.extraction.engine.cursor import Cursor, Cursors, LeaseLostError
from langgraph.store.dynamodb.extraction.engine.ledger import Ledger, Memory
from langgraph.store.dynamodb.extraction.engine.reader import (
    History,
    ThreadState,
    count_tokens,
    said_times,
    window,
)
from langgraph.store.dynamodb.extraction.strategies.candidates import Candidate
from langgraph.store.dynamodb.extraction.strategies.model_call import Tally, extract, tallied
from langgraph.store.dynamodb.extraction.strategies.strategy import (
    TENANT_VALUE,
    THREAD_VALUE,
    Strategy,
)
from langgraph.store.dynamodb.extraction.strategies.transcript import Message, Transcript
from langgraph.store.dynamodb.table import clock
from langgraph.store.dynamodb.table.keys import validate_op
from langgraph.store.dynamodb.table.usage import THREADS

if TYPE_CHECKING:
    # Annotations only: the chat model stack loads once a model is called (model_call).
    from langchain_core.language_models import BaseChatModel


@dataclass(frozen=True)
class Means:
    """What a run works with: the extractor's store, saver, rows and models."""

    store: DynamoDBStore
    saver: DynamoDBSaver
    cursors: Cursors
    ledger: Ledger
    budget: Budget
    consolidator: Consolidator | None
    chat_model: Callable[[str], BaseChatModel]


@dataclass(frozen=True)
class StrategyRun:
    """What one run did for one strategy: memories written (keys), the decisions that
    wrote nothing, model calls and tokens, and why it did not run or stopped (`skipped`:
    not due yet, leased elsewhere, over budget, forgotten or purged during the run, ...;
    a malformed answer is recorded on the cursor, see `status`), with `retry_after`
    seconds when it should run again (the idle trigger, a lease, the budget)."""

    strategy: str
    written: tuple[str, ...] = ()
    unchanged: int = 0
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    skipped: str | None = None
    retry_after: float | None = None

    def summary(self) -> dict[str, Any]:
        """What a replay reports of it (the command line's JSON, the inspector's page)."""
        return {
            "strategy": self.strategy,
            "written": len(self.written),
            "unchanged": self.unchanged,
            "model_calls": self.model_calls,
            "skipped": self.skipped,
        }


class StrategyRunner:
    """One strategy's run on one thread, holding its cursor: window after window until
    the thread is caught up, each extracted, decided, recorded, written and advanced."""

    def __init__(
        self,
        means: Means,
        config: ExtractionConfig,
        strategy: Strategy,
        cursor: Cursor,
        owner: str,
        state: ThreadState | None,
        history: History | None,
    ) -> None:
        self.x = means
        self.config = config
        self.strategy = strategy
        self.cursor = cursor
        self.owner = owner
        self.state = state
        self.history = history
        # What the run touched (its ledger: undone if the thread goes during the run), and
        # the keys it wrote (its report: a no-op's source adds no memory).
        self.written: list[Memory] = []
        self.formed: list[str] = []
        # Whether the last advance ended the lease (the run's last write).
        self.released = False
        # Tokens the model spent that the tenant's budget does not count yet.
        self.unspent = 0
        # When each message the run has to process was said (read once, when needed).
        self.said: dict[str, float] | None = None
        self.calls = self.input_tokens = self.output_tokens = self.unchanged = 0

    def go(self, force: bool) -> StrategyRun:
        if self.cursor.pending is not None:
            self._apply(Window.loads(self.cursor.pending), recorded_already=True)
        state, cursor = self.state, self.cursor
        if state is None:
            self.x.cursors.delete(cursor, self.owner)
            return self._report(skipped="the thread has no checkpoint")
        pending = state.after(cursor.message_id)
        tokens = sum(count_tokens(m) for m in pending)
        wait = self.strategy.trigger.wait(len(pending), tokens, clock.now() - state.written_at)
        if not pending and (cursor.checkpoint_id or "") < state.checkpoint_id:
            self._advance(state.checkpoint_id, cursor.message_id, 0, 0, None, final=True)
        if not pending or (not force and wait != 0.0):
            reason = "nothing new" if not pending else "its trigger is not due yet"
            return self._report(skipped=reason, retry_after=None if not pending else wait)
        values = {**state.values, TENANT_VALUE: cursor.tenant, THREAD_VALUE: cursor.thread_id}
        try:
            namespace = self.strategy.namespace_for(values)
            validate_op(PutOp(namespace, cursor.thread_id, None))
        except (KeyError, ValueError) as error:
            problem = f"namespace template {self.strategy.namespace}: {error!r} for this thread"
            self._advance(
                cursor.checkpoint_id, cursor.message_id, 0, len(pending), problem, final=True
            )
            return self._report(skipped=problem)
        limits = self.config.limits
        while pending:
            now = clock.now()
            if limits.daily_tokens is not None:
                used = self.x.budget.used(cursor.tenant, now)
                if used >= limits.daily_tokens:
                    spent = (
                        f"skipped: the tenant's daily token budget ({limits.daily_tokens}) "
                        f"is spent ({used} used); extraction resumes tomorrow (UTC)"
                    )
                    self._advance(
                        self.cursor.checkpoint_id,
                        self.cursor.message_id,
                        0,
                        len(pending),
                        spent,
                        final=True,
                    )
                    return self._report(skipped=spent, retry_after=seconds_to_next_day(now))
            window_ = window(pending, limits)
            rest = pending[len(window_) :]
            checkpoint = state.checkpoint_id if not rest else self.cursor.checkpoint_id
            where = Window((), checkpoint, window_[-1].message_id, len(rest), None)
            self._apply(self._decide(window_, namespace, values, where), final=not rest)
            pending = rest
        return self._report()

    def _decide(
        self,
        messages: Sequence[Message],
        namespace: tuple[str, ...],
        values: dict[str, str],
        where: Window,
    ) -> Window:
        """Extract one window and decide what its candidates do: `where` with the steps,
        stamped with when each was said, the problem if any, and what the second look
        compares (`recheck`: the nearest consolidator's new and revised memories, but
        fixed-key ones). Tokens count even when it raises (at once); otherwise they go
        with the window's record (`_apply`)."""
        cursor = self.cursor
        transcript = Transcript(cursor.tenant, cursor.thread_id, tuple(messages), values)
        model = self.x.chat_model(self.config.model_for(self.strategy))
        consolidator = self.x.consolidator or self.config.consolidation.consolidator()
        read = Watched(self.x.store)
        with tallied() as tally:
            try:
                extracted = extract(self.strategy, transcript, model)
                since = clock.now()
                decisions, problem = consolidate(
                    consolidator, extracted, namespace, self.strategy, read, model
                )
            except BaseException:
                self._tally(tally)
                self._spend()
                raise
        self._tally(tally)
        self.unchanged += sum(isinstance(d, NoOp) for d in decisions)
        steps = plan(decisions, namespace, self._said_at)
        recheck = [
            step.key
            for decision, step in zip(decisions, steps, strict=True)
            if step.op in WRITES and step.key and decision.candidate.fixed_key is None
        ]
        if not isinstance(consolidator, NearestConsolidator) or not recheck:
            return replace(where, steps=tuple(steps), problem=problem)
        return replace(
            where,
            steps=tuple(steps),
            problem=problem,
            since=since,
            seen=tuple(sorted(read.keys)),
            recheck=tuple(dict.fromkeys(recheck)),
        )

    def _said_at(self, candidate: Candidate) -> SaidAt:
        """When the candidate was said: the time its newest source message was first in
        a checkpoint (the checkpoint read when unknown), and that message's place in the
        thread."""
        state, history = self.state, self.history
        assert state is not None and history is not None
        places = {m.message_id: i for i, m in enumerate(state.messages)}
        found = [places[m] for m in candidate.provenance.message_ids if m in places]
        if not found:
            return [state.written_at, float(len(places))]
        newest = state.messages[max(found)].message_id
        if self.said is None:
            pending = [m.message_id for m in state.after(self.cursor.message_id)]
            self.said = said_times(history, pending)
        return [self.said.get(newest, state.written_at), float(max(found))]

    def _apply(
        self, recorded: Window, *, recorded_already: bool = False, final: bool = False
    ) -> None:
        """Record the window on the cursor with its ledger rows (unless a crashed run
        recorded it), apply its steps, and advance the cursor past it (ending the lease
        when it is the run's `final` window)."""
        memories = touched(recorded.steps)
        if memories and not recorded_already:
            self._record(memories, recorded)
        else:
            self._spend()
        self.written.extend(memories)
        self.formed += [s.key for s in recorded.steps if s.op in WRITES and s.key is not None]
        added = apply(self.x.store, recorded.steps)
        problem = self._look_again(recorded) if recorded.recheck else None
        self._advance(
            recorded.checkpoint_id,
            recorded.message_id,
            added,
            recorded.lag,
            recorded.problem or problem,
            final=final,
        )

    def _look_again(self, applied: Window) -> str | None:
        """Compare the window's new memories with those written meanwhile (`recheck`);
        the links it decides are recorded (a retry applies them, not a new decision),
        then applied. Returns the problem, if any."""
        model = self.x.chat_model(self.config.model_for(self.strategy))
        with tallied() as tally:
            try:
                links, problem = look_again(self.x.store, model, applied)
            except BaseException:
                self._tally(tally)
                self._spend()
                raise
        self._tally(tally)
        if not links:
            self._spend()
            return problem
        linked = Window(
            tuple(links), applied.checkpoint_id, applied.message_id, applied.lag, applied.problem
        )
        self._record([], linked)
        apply(self.x.store, links)
        return problem

    def _record(self, memories: Sequence[Memory], recorded: Window) -> None:
        """Record the window and its ledger rows, its tokens in the same transaction; the
        tokens alone when the record is refused (the lease lapsed, a conflict), since the
        model spent them anyway."""
        unspent, self.unspent = self.unspent, 0
        also = [self.x.budget.count(self.cursor.tenant, unspent, clock.now())] if unspent else []
        try:
            self.cursor = self.x.ledger.record(
                self.cursor, self.owner, memories, recorded.dumps(), also
            )
        except (LeaseLostError, ClientError) as error:
            refused = (
                isinstance(error, LeaseLostError)
                or error.response.get("Error", {}).get("Code") == "TransactionCanceledException"
            )
            if refused:
                self.unspent = unspent
                self._spend()
            raise

    def _tally(self, tally: Tally) -> None:
        """Count a model call's tokens for the report and the usage hook; the budget's
        count of them waits for `_spend` or the window's record."""
        self.calls += tally.calls
        self.input_tokens += tally.input_tokens
        self.output_tokens += tally.output_tokens
        if tally.calls:
            self.x.store.usage.conversed(
                (THREADS, self.cursor.tenant), tally.calls, tally.input_tokens, tally.output_tokens
            )
            self.unspent += tally.input_tokens + tally.output_tokens

    def _spend(self) -> None:
        """Add the tokens not yet counted to the tenant's budget."""
        unspent, self.unspent = self.unspent, 0
        self.x.budget.spend(self.cursor, unspent, clock.now())

    def record(self, error: str) -> None:
        """Record `error` on the cursor without moving it."""
        cursor = self.cursor
        self._advance(cursor.checkpoint_id, cursor.message_id, 0, cursor.lag, error)

    def _advance(
        self,
        checkpoint_id: str | None,
        message_id: str | None,
        memories: int,
        lag: int,
        error: str | None,
        *,
        final: bool = False,
    ) -> None:
        """Move the cursor; a `final` advance is the run's last write and ends its lease."""
        self.cursor = self.x.cursors.advance(
            self.cursor,
            self.owner,
            checkpoint_id=checkpoint_id,
            message_id=message_id,
            memories=memories,
            lag=lag,
            error=error,
            now=clock.now(),
            release=final,
        )
        self.released = final

    def _report(self, skipped: str | None = None, retry_after: float | None = None) -> StrategyRun:
        return StrategyRun(
            strategy=self.strategy.name,
            written=tuple(dict.fromkeys(self.formed)),
            unchanged=self.unchanged,
            model_calls=self.calls,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            skipped=skipped,
            retry_after=retry_after,
        )
