"""The model check of memory formation (issue 40): random programs of turns in the threads
of two tenants (two users each, three threads a user), extraction runs killed at any
request (before it applies, or after with its answer lost), duplicate, reordered and late
deliveries, replays, forgets, purges of a tenant, worker batches running one user's
threads at once and two workers (two extractors, each with its own clients) at once; then
every thread left with turns is delivered once more (the leases of dead runs lapsed) and
the memories are held to a reference model (`programs.Reference`) kept by the test:

- `one current per fact`: at most one current memory per user and subject;
- `duplicates`: no two current memories with the same normalized text in a namespace;
- `present`: every fact a remaining conversation (not forgotten, not purged) stated is a
  memory (current or not, or a revision of one), unless that conversation changed it
  later (a window records what holds at its end);
- `forgotten`: no memory, nor a revision of one, formed from a forgotten or purged message;
- `purged`: a purged tenant with no turn since has no row left;
- `newest`: per user and subject the current memory holds the value the user stated last
  among the remaining conversations (and there is none when no remaining one stated it);
- `cursor back`: no run moves a cursor back (a replay, a forget, a purge may);
- `tokens`: the tokens recorded (usage records; daily budget rows, with those a purge
  erased) are the tokens the emulated model's answers spent: never more, and never less
  than the answers of operations that saw no death (a death may lose an answer before
  anything records it);
- `errors`: no run fails for good, and no forget or purge raises, without a death;
- `merge once`: a thread's running summary (merged in place by consolidation) holds each
  message once: a killed and retried, duplicated or replayed run merges nothing twice
  (and `present`/`forgotten` hold for summaries: one while the thread has a statement that
  counts, none otherwise).

The programs come from `programs.py`; its `SCENARIOS` (the guarantees, one smallest
program each) run first in both sizes, as explicit examples. `check(world, program, clock,
focus)` raises only for the invariant `focus` (one of `INVARIANTS`) when given, so a search
can shrink one failure at a time.

Sizes, as test_exactly_once's: the default suite runs the scenarios and 12 random programs
of up to 10 operations, unshrunk; `make test-hardening` (`-m hardening`) runs 1,000 of up
to 14, shrunk, and prints its figures (programs, operations, kills, invariant checks, and
the programs that failed per invariant) with `-s`:

    pytest -n 0 tests/extraction/test_model_check.py
    pytest -n 0 -m hardening -s tests/extraction/test_model_check.py"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any

import boto3
import pytest
from hypothesis import HealthCheck, Phase, example, given, note, settings
from langchain_aws import ChatBedrockConverse
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.embedders.build import embedder
from langgraph.store.dynamodb.extraction import Extractor, SemanticFacts, SessionSummaries
from langgraph.store.dynamodb.extraction.engine.keys import tenant_pk
from langgraph.store.dynamodb.extraction.worker.queue_worker import ExtractionWorker, Outcome
from langgraph.store.dynamodb.handlers.extraction_queue import ExtractionRequest
from langgraph.store.dynamodb.recall.fields import CONTENT, CURRENT, PROVENANCE, REVISIONS, STATUS
from langgraph.store.dynamodb.table.schema import DAY, META_PK, PK, SK, TOKENS_USED
from langgraph.store.dynamodb.table.usage import CONVERSE, UsageRecord
from langgraph.store.dynamodb.testing import mock_aws
from langgraph.store.dynamodb.testing.extractor import _subject, statement_fact

from tests.support import FakeClock, scan_table

from .conftest import TABLE, Tables, facts_config, open_tables
from .programs import (
    SCENARIOS,
    TENANTS,
    THREAD_NUMBERS,
    USERS,
    VALUES,
    Batch,
    Forget,
    Kill,
    Lapse,
    Op,
    Purge,
    Reference,
    Replay,
    Run,
    Say,
    Together,
    Where,
    fact_text,
    namespace,
    normal,
    programs,
    sentence,
    thread_id,
)
from .test_erasure import tenant_rows
from .test_exactly_once import Crash, Deaths

REGION = "us-east-1"
INVARIANTS = (
    "one current per fact",
    "duplicates",
    "present",
    "forgotten",
    "purged",
    "newest",
    "cursor back",
    "tokens",
    "errors",
    "merge once",
)


@dataclass
class Figures:
    """What the programs exercised, for the hardening run's report."""

    programs: int = 0
    ops: int = 0
    kills: int = 0
    checks: int = 0
    failed: Counter[str] = field(default_factory=Counter)


FIGURES = Figures()


class Tokens:
    """Tokens the emulated model's answers spent (observed on the Bedrock clients) and the
    tokens recorded by the usage hook; spending in an operation that saw a death is
    `uncertain`: its answers may be lost before anything records them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.spent = 0
        self.certain = 0
        self.op = 0
        self.recorded = 0

    def answered(self, parsed: dict[str, Any], **_: Any) -> None:
        usage = parsed.get("usage") or {}
        with self._lock:
            spent = int(usage.get("inputTokens", 0)) + int(usage.get("outputTokens", 0))
            self.spent += spent
            self.op += spent

    def usage(self, record: UsageRecord) -> None:
        if record.operation == CONVERSE:
            with self._lock:
                self.recorded += record.input_tokens + record.output_tokens

    def settle(self, died: bool) -> None:
        """The operation ended: its spending counts for sure unless it saw a death."""
        if not died:
            self.certain += self.op
        self.op = 0


class Sqs:
    """The worker's queue client: deferred requests and dead letters, kept."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send_message(self, **request: Any) -> dict[str, Any]:
        self.sent.append(request)
        return {"MessageId": str(len(self.sent))}


def crashed(error: BaseException | None) -> bool:
    """Whether a death (`Crash`) is behind `error`."""
    seen = 0
    while error is not None and seen < 20:
        if isinstance(error, Crash):
            return True
        error = error.__cause__ or error.__context__
        seen += 1
    return False


@dataclass
class World:
    tables: Tables
    extractors: tuple[Extractor, Extractor]
    workers: tuple[ExtractionWorker, ExtractionWorker]
    deaths: Deaths
    tokens: Tokens
    sqs: Sqs
    programs: int = 0

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(f"World(program {self.programs})")

    def next_program(self) -> str:
        """A fresh start for the next program: its tenants' names (a suffix of their own,
        so nothing a worker learned of another program's threads and namespaces applies),
        the rows of the last program gone, counts zeroed."""
        client = self.tables.store.client
        rows = [r for r in scan_table(client, TABLE) if r[PK]["S"] != META_PK]
        for start in range(0, len(rows), 25):
            requests = [
                {"DeleteRequest": {"Key": {PK: r[PK], SK: r[SK]}}} for r in rows[start : start + 25]
            ]
            client.batch_write_item(RequestItems={TABLE: requests})
        self.deaths.arm(None, False)
        self.tokens.__init__()  # type: ignore[misc]
        self.sqs.sent.clear()
        self.programs += 1
        return f"-p{self.programs}"


@contextmanager
def world() -> Iterator[World]:
    """Two workers on one emulated table: worker 0's extractor on the tables' store and
    saver, worker 1's with a store, a saver and a Bedrock client of its own (as another
    Lambda invocation has). Deaths and token counts on every client."""
    tokens = Tokens()
    with mock_aws(), ExitStack() as stack:
        bedrock = [boto3.client("bedrock-runtime", region_name=REGION) for _ in range(2)]
        for client in bedrock:
            client.meta.events.register("after-call.bedrock-runtime.Converse", tokens.answered)

        def on(client: Any) -> Any:
            def model(model_id: str) -> ChatBedrockConverse:
                return ChatBedrockConverse(model=model_id, client=client, region_name=REGION)

            return model

        tables = stack.enter_context(open_tables(on_usage=tokens.usage, model=on(bedrock[0])))
        facts = SemanticFacts(
            name="facts", namespace=("memories", "{tenant}", "{user_id}", "facts")
        )
        tables.extractor.set_config(
            facts_config(strategies=[facts, SessionSummaries(name="summary")])
        )
        index = {"dims": 16, "embed": embedder("lexical", 16), "fields": ["text"]}
        store = stack.enter_context(
            DynamoDBStore(TABLE, region_name=REGION, index=index, on_usage=tokens.usage)  # type: ignore[arg-type]
        )
        saver = stack.enter_context(DynamoDBSaver(TABLE, region_name=REGION, tenant_key="tenant"))
        other = Extractor(store, saver, model=on(bedrock[1]))
        clients = [tables.store.client, tables.saver.client, store.client, saver.client, *bedrock]
        deaths = Deaths(clients)
        sqs = Sqs()
        extractors = (tables.extractor, other)
        workers = tuple(
            ExtractionWorker(x, queue_url="extraction", dead_letter_url="dead", sqs=sqs)
            for x in extractors
        )
        yield World(tables, extractors, (workers[0], workers[1]), deaths, tokens, sqs)


class Machine:
    """Runs a program's operations on a world, keeping the reference model and what was
    seen on the way (cursor positions, errors, deaths)."""

    def __init__(self, world: World, clock: FakeClock, suffix: str = "") -> None:
        self.w = world
        self.suffix = suffix
        self.clock = clock
        self.reference = Reference()
        self.lease = world.tables.extractor.config().lease_seconds
        # Per (tenant, thread id): its messages' ids and newest checkpoint; per (tenant, thread
        # id, strategy): the furthest its cursor was seen.
        self.messages: dict[tuple[str, str], list[str]] = {}
        self.checkpoints: dict[tuple[str, str], str] = {}
        self.furthest: dict[tuple[str, ...], tuple[str, int]] = {}
        # Threads with turns since they were last forgotten or purged.
        self.pending: set[Where] = set()
        self.purged: set[str] = set()
        self.violations: dict[str, list[str]] = {}
        self.kills = 0
        # The tokens of the budget rows purges erased.
        self.budget_erased = 0

    def violated(self, invariant: str, detail: str) -> None:
        self.violations.setdefault(invariant, []).append(detail)

    # Operations

    def do(self, op: Op) -> None:
        if isinstance(op, Say):
            self.say(op)
        elif isinstance(op, Run):
            self.killable(
                op.kill, str(op), lambda: self.w.extractors[op.worker].run(*self.ids(op.where))
            )
        elif isinstance(op, Replay):
            self.killable(op.kill, str(op), lambda: self.replay(op.where))
            self.unwatch(self.ids(op.where))
        elif isinstance(op, Batch):
            self.batch(op)
        elif isinstance(op, Together):
            self.together(op)
        elif isinstance(op, Forget):
            self.erase(
                op.kill, str(op), lambda: self.w.extractors[0].forget_thread(*self.ids(op.where))
            )
            self.reference.forget(op.where)
            self.pending.discard(op.where)
            self.unwatch(self.ids(op.where))
        elif isinstance(op, Purge):
            self.purge(op)
        elif isinstance(op, Lapse):
            self.clock.advance(self.lease + 1)
        self.clock.advance(1)
        self.watch_cursors(str(op))

    def tenant(self, name: str) -> str:
        """The program's tenant of that name."""
        return name + self.suffix

    def ids(self, where: Where) -> tuple[str, str]:
        tenant, user, number = where
        return self.tenant(tenant), thread_id(user, number)

    def say(self, op: Say) -> None:
        tenant, user, number = op.where
        ids = {"tenant": self.tenant(tenant), "user_id": user}
        config = {"configurable": {"thread_id": thread_id(user, number), **ids}}
        graph = self.w.tables.graph
        graph.invoke(
            {"messages": [HumanMessage(sentence(op.subject, op.value, op.actually))]}, config
        )
        state = graph.get_state(config)
        messages = state.values["messages"]
        human = next(m for m in reversed(messages) if isinstance(m, HumanMessage))
        key = self.ids(op.where)
        self.messages[key] = [str(m.id) for m in messages]
        self.checkpoints[key] = str(state.config["configurable"]["checkpoint_id"])
        self.reference.say(op, str(human.id))
        self.pending.add(op.where)
        self.purged.discard(tenant)

    def killable(self, kill: Kill | None, what: str, call: Any) -> bool:
        """Run `call` with the death armed; whether it finished. Errors without a death
        are violations (`errors`)."""
        deaths = self.w.deaths
        deaths.arm(kill.at if kill else None, kill.after if kill else False)
        try:
            call()
            done = True
        except Exception as error:
            if not crashed(error):
                self.violated("errors", f"{what}: {type(error).__name__}: {error}")
            done = False
        finally:
            died = deaths.dead
            deaths.arm(None, False)
            self.kills += died
            self.w.tokens.settle(died)
        return done

    def replay(self, where: Where) -> None:
        try:
            self.w.extractors[0].replay(*self.ids(where))
        except RuntimeError as error:  # a run holds the thread: replay refuses, later
            if "replay once it ends" not in str(error):
                raise

    def erase(self, kill: Kill | None, what: str, call: Any) -> None:
        """A forget or purge; when it dies, retried at once (as an operator would)."""
        if not self.killable(kill, what, call):
            self.killable(None, what + " (retried)", call)

    def purge(self, op: Purge) -> None:
        tenant = self.tenant(op.tenant)
        x = self.w.extractors[0]

        def purge() -> None:
            sources = self.w.tables.saver.for_tenant(tenant).erasure_sources()
            sources += x.row_sources(tenant)
            for _ in range(3):
                if x.store.purge(("memories", tenant), sources=sources).rows_left == 0:
                    return
            raise AssertionError(f"purge of {tenant} left rows three times")

        before = self.budget(tenant)
        self.erase(op.kill, str(op), purge)
        self.budget_erased += before - self.budget(tenant)
        self.reference.purge(op.tenant)
        self.purged.add(op.tenant)
        self.pending = {w for w in self.pending if w[0] != op.tenant}
        for key in [k for k in self.messages if k[0] == tenant]:
            self.messages.pop(key)
            self.checkpoints.pop(key, None)
            self.unwatch(key)

    def batch(self, op: Batch) -> None:
        records: list[Mapping[str, Any]] = [
            {
                "messageId": f"m{i}",
                "body": ExtractionRequest(
                    *self.ids(where), self.checkpoints.get(self.ids(where), "0")
                ).body(),
            }
            for i, where in enumerate(op.wheres)
        ]
        done = self.w.workers[op.worker].process(records)
        self.w.tokens.settle(False)
        for entry in done.values():
            if isinstance(entry.outcome, Exception):
                self.violated("errors", f"{op}: {type(entry.outcome).__name__}: {entry.outcome}")
            elif entry.outcome == Outcome.DEAD_LETTERED:
                self.violated("errors", f"{op}: dead-lettered")

    def together(self, op: Together) -> None:
        start = threading.Barrier(2, timeout=30)
        errors: list[BaseException] = []

        def run(worker: int, where: Where) -> None:
            try:
                start.wait()
                self.w.extractors[worker].run(*self.ids(where))
            except BaseException as error:  # reported below
                errors.append(error)

        threads = [
            threading.Thread(target=run, args=(i, where))
            for i, where in enumerate((op.first, op.second))
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.w.tokens.settle(False)
        for error in errors:
            self.violated("errors", f"{op}: {type(error).__name__}: {error}")

    # Observing

    def watch_cursors(self, what: str) -> None:
        """No cursor behind where it was seen (the thread's message index, after its
        checkpoint)."""
        for tenant in map(self.tenant, TENANTS):
            for cursor in self.w.extractors[0]._cursors.of_tenant(tenant):
                key = (tenant, cursor.thread_id, cursor.strategy)
                ids = self.messages.get(key[:2], [])
                index = ids.index(cursor.message_id) if cursor.message_id in ids else -1
                now = (cursor.checkpoint_id or "", index)
                if now < self.furthest.get(key, ("", -1)):
                    self.violated("cursor back", f"{what}: {key} {self.furthest[key]} -> {now}")
                self.furthest[key] = max(now, self.furthest.get(key, ("", -1)))

    def unwatch(self, thread: tuple[str, str]) -> None:
        """Forget where the thread's cursors were (a replay, a forget, a purge may move
        them back)."""
        for key in [k for k in self.furthest if k[:2] == thread]:
            self.furthest.pop(key)

    def budget(self, tenant: str) -> int:
        """The tokens the tenant's daily budget rows count."""
        answer = self.w.tables.store.client.query(
            TableName=TABLE,
            KeyConditionExpression="#pk = :pk AND begins_with(#sk, :day)",
            ExpressionAttributeNames={"#pk": PK, "#sk": SK},
            ExpressionAttributeValues={":pk": {"S": tenant_pk(tenant)}, ":day": {"S": DAY}},
            ConsistentRead=True,
        )
        return sum(int(item.get(TOKENS_USED, {}).get("N", "0")) for item in answer["Items"])

    def settle(self) -> None:
        """Every thread left with turns delivered once more, after the leases of dead runs
        lapsed (as SQS redelivers until a run succeeds)."""
        self.clock.advance(self.lease + 1)
        for where in sorted(self.pending):
            for _ in range(3):
                report = None
                try:
                    report = self.w.extractors[0].run(*self.ids(where))
                except Exception as error:
                    self.violated("errors", f"settling {where}: {type(error).__name__}: {error}")
                self.w.tokens.settle(False)
                if report is None or report.retry_after is None:
                    break
                self.clock.advance(self.lease + 1)
        self.watch_cursors("settle")

    def check(self) -> int:
        """Hold the memories to the reference; how many checks were made."""
        checks = 0
        dead = self.reference.dead_messages()
        newest = self.reference.newest()
        for tenant in TENANTS:
            for user in USERS:
                ns = namespace(self.tenant(tenant), user)
                items = self.w.tables.store.search(ns, limit=1000)
                current = [i for i in items if i.value.get(STATUS, CURRENT) == CURRENT]
                known: set[str] = set()
                for item in items:
                    known.add(normal(str(item.value.get("text", ""))))
                    for revision in item.value.get(REVISIONS, []):
                        known.add(normal(str(revision.get(CONTENT, {}).get("text", ""))))
                    provenances = [item.value.get(PROVENANCE) or {}]
                    provenances += [r.get(PROVENANCE) or {} for r in item.value.get(REVISIONS, [])]
                    for provenance in provenances:
                        checks += 1
                        gone = dead & set(provenance.get("message_ids", []))
                        if gone:
                            text = item.value.get("text")
                            self.violated("forgotten", f"{ns}: {text!r} from erased {sorted(gone)}")
                by_subject: dict[str, list[str]] = {}
                for item in current:
                    found = _subject(str(item.value.get("text", "")))
                    if found is not None:
                        by_subject.setdefault(found[0], []).append(found[1])
                for subject, values in by_subject.items():
                    checks += 1
                    if len(values) > 1:
                        self.violated("one current per fact", f"{ns} {subject}: {sorted(values)}")
                texts = Counter(normal(str(i.value.get("text", ""))) for i in current)
                for text, n in texts.items():
                    checks += 1
                    if n > 1:
                        self.violated("duplicates", f"{ns}: {text!r} current {n} times")
                for s in self.reference.required():
                    if s.where[:2] == (tenant, user):
                        checks += 1
                        if normal(s.text) not in known:
                            self.violated("present", f"{ns}: {s.text!r} ({s.where}) missing")
                for subject in VALUES:
                    checks += 1
                    want = newest.get((tenant, user, subject))
                    have = sorted(set(by_subject.get(subject, [])))
                    if have != ([want] if want is not None else []):
                        self.violated(
                            "newest", f"{ns} {subject}: current {have}, said last {want!r}"
                        )
        checks += self.check_summaries()
        for tenant in self.purged:
            checks += 1
            left = tenant_rows(self.w.tables, self.tenant(tenant))
            if left:
                self.violated("purged", f"{tenant}: {len(left)} rows left, e.g. {left[:3]}")
        tokens = self.w.tokens
        budget = self.budget_erased + sum(self.budget(self.tenant(t)) for t in TENANTS)
        for name, recorded in (("usage", tokens.recorded), ("budget", budget)):
            checks += 1
            if not tokens.certain <= recorded <= tokens.spent:
                self.violated(
                    "tokens",
                    f"{name} records {recorded}, answers spent {tokens.spent} "
                    f"({tokens.certain} in runs that did not die)",
                )
        return checks

    def check_summaries(self) -> int:
        """Each thread's running summary: there while the thread has a statement that
        counts, gone otherwise; no message merged into it twice (a retried or replayed
        merge appends nothing again)."""
        checks = 0
        for tenant in TENANTS:
            ns = ("memories", self.tenant(tenant), "summaries")
            for user in USERS:
                for number in THREAD_NUMBERS:
                    where = (tenant, user, number)
                    said = Counter(s.said for s in self.reference.alive() if s.where == where)
                    thread = thread_id(user, number)
                    item = self.w.tables.store.get(ns, f"summary-{thread}")
                    checks += 1
                    if item is None:
                        if said:
                            self.violated("present", f"{ns}: no summary of {where}")
                        continue
                    text = str(item.value.get("text", ""))
                    if not said:
                        self.violated("forgotten", f"{ns}: summary of {where} left: {text!r}")
                    for sentence_, n in said.items():
                        checks += 1
                        merged = text.count(f"User said: {sentence_}.")
                        if merged > n:
                            self.violated(
                                "merge once",
                                f"{ns} {where}: {sentence_!r} said {n}x, in the summary {merged}x",
                            )
        return checks


def check(w: World, program: list[Op], clock: FakeClock, focus: str | None = None) -> None:
    """Run `program` on `w`, settle, hold the memories to the reference; raise for the
    invariants violated (only `focus` when given)."""
    machine = Machine(w, clock, w.next_program())
    note(f"program: {program!r}")
    for op in program:
        machine.do(op)
    machine.settle()
    checks = machine.check()
    FIGURES.programs += 1
    FIGURES.ops += len(program)
    FIGURES.kills += machine.kills
    FIGURES.checks += checks
    FIGURES.failed.update(list(machine.violations))
    failed = {k: v for k, v in machine.violations.items() if focus in (None, k)}
    for invariant, details in failed.items():
        note(f"{invariant}: {details[:3]}")
    assert not failed, "; ".join(f"{k}: {v[0]}" for k, v in sorted(failed.items()))


def test_each_sentence_states_one_fact_of_one_subject() -> None:
    for subject, values in VALUES.items():
        for value in values:
            for actually in (False, True):
                found = statement_fact(sentence(subject, value, actually))
                assert found is not None and found[0] == fact_text(subject, value)
                assert _subject(found[0]) == (subject, normal(value))
    assert len(TENANTS) == len(USERS) == 2 and len(THREAD_NUMBERS) == 3


def scenarios(test: Any) -> Any:
    """The test with every scenario of `programs.SCENARIOS` as an explicit example."""
    for program in reversed(SCENARIOS.values()):
        test = example(program=program)(test)
    return test


# The default suite's size: the scenarios, then 12 programs of up to 10 operations, the
# same on every run (derandomized: the suite never turns red by chance), not shrunk;
# about 35 s on one core. The hardening size draws afresh.
@settings(
    max_examples=12,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@scenarios
@given(program=programs(max_size=10))
def test_programs_keep_the_memory_invariants(
    program: list[Op], shared: World, clock: FakeClock
) -> None:
    check(shared, program, clock)


@pytest.mark.hardening
@settings(
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@scenarios
@given(program=programs())
def test_programs_keep_the_memory_invariants_at_length(
    program: list[Op], shared: World, clock: FakeClock
) -> None:
    check(shared, program, clock)


@pytest.fixture(scope="module")
def shared() -> Iterator[World]:
    """One world for all the programs of a module (building one costs seconds)."""
    with world() as w:
        yield w


@pytest.fixture(autouse=True, scope="module")
def figures() -> Iterator[None]:
    """Print what the programs exercised (run with `-s`)."""
    yield
    if FIGURES.programs:
        print(
            f"\nmodel check: {FIGURES.programs} programs, {FIGURES.ops} ops, "
            f"{FIGURES.kills} kills, {FIGURES.checks} invariant checks; "
            f"violations by invariant: {dict(FIGURES.failed) or 'none'}"
        )
