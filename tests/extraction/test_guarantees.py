"""What a user relies on when things go wrong (docs/strategies.md, "Guarantees"): a run
killed at any request and retried ends in the memories of an uninterrupted run, for every
strategy and decision; the newest evidence wins whatever order runs come in; the same fact
is one memory that knows every conversation that stated it; forgetting removes one source
and sticks; tokens are counted even when a run fails."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from typing import Any

import pytest
from langgraph.store.dynamodb.extraction import (
    EpisodicMemory,
    ExtractionError,
    SemanticFacts,
    SessionSummaries,
    TenantOverride,
    UserPreferences,
)
from langgraph.store.dynamodb.extraction.engine.config import Limits
from langgraph.store.dynamodb.recall.fields import (
    CURRENT,
    CURRENT_ONLY,
    SOURCES,
    STATUS,
    SUPERSEDED_BY,
    SUPERSEDES,
)
from langgraph.store.dynamodb.testing import mock_aws

from tests.support import FakeClock

from .conftest import NAMESPACE, TENANT, USER, Tables, facts_config, open_tables
from .test_concurrent_updates import WAIT_SECONDS, extractors
from .test_exactly_once import Crash, Deaths


def snapshot(tables: Tables, tenant: str = TENANT) -> dict[Any, tuple[Any, ...]]:
    """Every memory of the tenant by its namespace under the tenant and its text: its
    status, the texts it links to, its sources and revisions (no keys, no times)."""
    items = [
        (namespace[2:], item)
        for namespace in tables.store.list_namespaces(prefix=("memories", tenant))
        for item in tables.store.search(namespace, limit=100)
    ]
    text = {item.key: item.value.get("text") for _, item in items}
    found = {}
    for namespace, item in items:
        v = item.value
        found[(namespace, v.get("text"))] = (
            v.get(STATUS),
            text.get(v.get(SUPERSEDED_BY)),
            text.get(v.get(SUPERSEDES)),
            sorted(v.get(SOURCES, {})),
            [r["content"].get("text") for r in v.get("revisions", [])],
        )
    assert len(found) == len(items), "two memories with one text"
    return found


def current(tables: Tables) -> list[str]:
    return sorted(i.value["text"] for i in tables.store.search(NAMESPACE, filter=CURRENT_ONLY))


def count_requests(tables: Tables, action: Callable[[], object]) -> int:
    sent = 0

    def count(**_: Any) -> None:
        nonlocal sent
        sent += 1

    clients = [tables.store.client, tables.saver.client]
    for client in clients:
        client.meta.events.register("after-call", count)
    action()
    for client in clients:
        client.meta.events.unregister("after-call", count)
    return sent


summaries = TenantOverride(
    strategies=[SessionSummaries(name="summary"), EpisodicMemory(name="episodes")]
)


def supersede(tables: Tables, tenant: str) -> None:
    tables.say("t1", "My city is Oslo.", tenant=tenant)
    tables.extractor.run(tenant, "t1")
    tables.say("t2", "Actually, my city is Bergen.", tenant=tenant)


def revise(tables: Tables, tenant: str) -> None:
    tables.extractor.set_tenant_override(tenant, summaries)
    tables.say("t1", "Book a flight to Rome.", tenant=tenant)
    tables.extractor.run(tenant, "t1")
    tables.say("t1", "Also add a checked bag.", tenant=tenant)


def one_current_city(found: dict[Any, tuple[Any, ...]]) -> None:
    """Issue 40, 1: the retry used to find the new fact's text, decide no-op, and leave
    the old fact current beside it."""
    states = sorted((text, status) for (_, text), (status, *_) in found.items())
    assert states == [("User's city is Bergen", CURRENT), ("User's city is Oslo", "superseded")]


def merged_once(found: dict[Any, tuple[Any, ...]]) -> None:
    """Issue 40, 2: a retry after the revision and before the cursor moved merged the
    same messages again ("... checked bag. ... checked bag.")."""
    assert all(str(text).count("checked bag") == 1 for _, text in found), found


Scenario = Callable[[Tables, str], None]
SCENARIOS: dict[str, tuple[Scenario, str, Callable[[dict[Any, tuple[Any, ...]]], None]]] = {
    "a supersede": (supersede, "t2", one_current_city),
    "a summary and a reflection revised in place": (revise, "t1", merged_once),
}


def killed_and_retried(
    tables: Tables, name: str, clock: FakeClock, at: int | None, after: bool
) -> tuple[dict[Any, Any], int]:
    """The memories after scenario `name` runs in a tenant of its own and its last run
    dies at its `at`-th request (before or after it applies; None: it does not) and is
    retried once its lease lapses; and how many requests the run sent."""
    scenario, thread, _ = SCENARIOS[name]
    tenant = f"{TENANT}-{at}-{after}"
    scenario(tables, tenant)
    deaths = Deaths([tables.store.client, tables.saver.client])
    deaths.arm(at, after)
    sent = 0
    try:
        sent = count_requests(tables, lambda: tables.extractor.run(tenant, thread))
    except ExtractionError as error:
        assert isinstance(error.__cause__, Crash), error
    deaths.arm(None, False)
    clock.advance(tables.extractor.config().lease_seconds + 1)
    tables.extractor.run(tenant, thread)
    return snapshot(tables, tenant), sent


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_a_run_killed_at_any_request_and_retried_ends_as_an_uninterrupted_one(
    name: str, clock: FakeClock
) -> None:
    check = SCENARIOS[name][2]
    with mock_aws(), open_tables() as tables:
        expected, requests = killed_and_retried(tables, name, clock, None, False)
        assert requests > 3
        check(expected)
        for at in range(requests):
            for after in (False, True):
                found, _ = killed_and_retried(tables, name, clock, at, after)
                where = f"killed {'after' if after else 'before'} request {at}"
                assert found == expected, where
                check(found)


@pytest.fixture
def tables() -> Iterator[Tables]:
    with mock_aws(), open_tables() as opened:
        yield opened


def test_forget_sticks_against_late_requests_and_the_next_turn(tables: Tables) -> None:
    """Issue 40, 3: a late or duplicate request, or the next turn, re-formed every
    forgotten memory (a missing cursor restarted at the first message)."""
    tables.say("t1", "My dog is Rex.")
    tables.extractor.run(TENANT, "t1")
    tables.extractor.forget_thread(TENANT, "t1")
    tables.extractor.run(TENANT, "t1")  # a late request
    assert tables.facts() == []
    tables.say("t1", "I own a boat.")
    tables.extractor.run(TENANT, "t1")
    assert tables.facts() == ["User owns a boat"]
    tables.extractor.replay(TENANT, "t1")
    assert tables.facts() == ["User owns a boat"]


def test_forgetting_one_of_several_conversations_keeps_the_fact(tables: Tables) -> None:
    """Issue 40, 4: only the first source was recorded; forgetting it deleted a fact
    that other conversations still state."""
    for thread in ("t1", "t2", "t3"):
        tables.say(thread, "My dog is Rex.")
        tables.extractor.run(TENANT, thread)
    (memory,) = tables.store.search(NAMESPACE)
    assert sorted(memory.value[SOURCES]) == ["t1", "t2", "t3"]
    assert tables.extractor.forget_thread(TENANT, "t1") == 0
    (memory,) = tables.store.search(NAMESPACE)
    assert sorted(memory.value[SOURCES]) == ["t2", "t3"]
    assert memory.value["provenance"]["thread_id"] != "t1"
    assert tables.extractor.forget_thread(TENANT, "t3") == 0
    assert tables.extractor.forget_thread(TENANT, "t2") == 1
    assert tables.facts() == []


def test_forgetting_the_middle_of_a_chain_leaves_one_current_fact(tables: Tables) -> None:
    """Issue 40, 5: forgetting B of A -> B -> C made A current again beside C."""
    for thread, city in (("t1", "Oslo"), ("t2", "Bergen"), ("t3", "Paris")):
        tables.say(thread, f"Actually, my city is {city}.")
        tables.extractor.run(TENANT, thread)
    assert current(tables) == ["User's city is Paris"]
    tables.extractor.forget_thread(TENANT, "t2")
    assert current(tables) == ["User's city is Paris"]
    tables.extractor.forget_thread(TENANT, "t3")
    assert current(tables) == ["User's city is Oslo"]


def test_replaying_an_older_conversation_never_overturns_a_newer_fact(tables: Tables) -> None:
    """Issue 40, 6: a replay of Monday's "Oslo" made it current over Friday's "Bergen",
    each marked as superseding the other."""
    tables.say("monday", "My city is Oslo. I prefer tea.")
    tables.extractor.run(TENANT, "monday")
    tables.say("friday", "Actually, my city is Bergen. Actually, I prefer coffee.")
    tables.extractor.run(TENANT, "friday")
    before = snapshot(tables)
    tables.extractor.replay(TENANT, "monday")
    assert snapshot(tables) == before
    assert current(tables) == ["User prefers coffee", "User's city is Bergen"]


def test_an_older_conversation_processed_late_does_not_overturn_a_newer_one(
    tables: Tables,
) -> None:
    """Newest evidence wins by when the user said it, not when it was processed."""
    tables.say("monday", "My city is Oslo.")
    tables.say("friday", "Actually, my city is Bergen.")
    tables.extractor.run(TENANT, "friday")
    tables.extractor.run(TENANT, "monday")
    assert current(tables) == ["User's city is Bergen"]


def test_an_older_update_in_place_processed_late_does_not_overturn_a_newer_fact(
    tables: Tables,
) -> None:
    """The model check's program: "Oslo" (t1), "Oslo east" (t2), then "Oslo" again in t1;
    t1 runs first, then t2's older "Oslo east", which extends Oslo (an update in place),
    used to replace the newer text. It is history instead: forgetting t1 brings it back."""
    tables.say("t1", "My city is Oslo.")
    tables.say("t2", "My city is Oslo east.")
    tables.say("t1", "My city is Oslo.")
    tables.extractor.run(TENANT, "t1")
    tables.extractor.run(TENANT, "t2")
    assert current(tables) == ["User's city is Oslo"]
    tables.extractor.forget_thread(TENANT, "t1")
    assert current(tables) == ["User's city is Oslo east"]


@pytest.mark.parametrize("later_turns", [1, 6])
def test_a_statement_processed_late_with_later_turns_is_dated_by_its_own_turn(
    tables: Tables, later_turns: int
) -> None:
    """The hardening run's program: t1 says Oslo again, then t2 says "Oslo east", then
    t1 says other things; t2 runs, then t1: t1's Oslo was said before "Oslo east" (a
    window's statements used to be dated by the checkpoint the run read, its last turn).
    Six later turns put the statement past the checkpoints read with the thread."""
    tables.say("t1", "My city is Oslo.")
    tables.extractor.run(TENANT, "t1")
    tables.say("t1", "My city is Oslo.")
    tables.say("t2", "My city is Oslo east.")
    for n in range(later_turns):
        tables.say("t1", f"I prefer tea number {n}.")
    tables.extractor.run(TENANT, "t2")
    tables.extractor.run(TENANT, "t1")
    assert [t for t in current(tables) if "city" in t] == ["User's city is Oslo east"]


def test_the_same_fact_from_threads_running_at_once_is_one_memory(tables: Tables) -> None:
    """Issue 40, 7: three threads of one user stating one fact in one worker batch ran
    at once, and each added it."""
    threads = ("t1", "t2", "t3")
    for thread in threads:
        tables.say(thread, "My dog is Rex.")
    with ThreadPoolExecutor(max_workers=3) as pool:
        list(pool.map(lambda t: tables.extractor.run(TENANT, t), threads))
    (memory,) = tables.store.search(NAMESPACE)
    assert sorted(memory.value[SOURCES]) == list(threads)


def test_a_fact_that_becomes_true_again_is_current_again(tables: Tables) -> None:
    """Issue 40, 11: Oslo, then Bergen, then Oslo again."""
    for thread, text in (
        ("t1", "My city is Oslo."),
        ("t2", "Actually, my city is Bergen."),
        ("t3", "Actually, my city is Oslo."),
    ):
        tables.say(thread, text)
        tables.extractor.run(TENANT, thread)
    assert current(tables) == ["User's city is Oslo"]
    tables.extractor.forget_thread(TENANT, "t3")
    assert current(tables) == ["User's city is Bergen"]


class Spent:
    """The tokens the emulated Bedrock answered with, per Converse call; `hook(n)` runs
    after the n-th call (0-based) before the caller sees the answer."""

    def __init__(self, tables: Tables, hook: Callable[[int], None]) -> None:
        self.tokens: list[int] = []
        self.hook = hook
        config = tables.extractor.config()
        model: Any = tables.extractor.chat_model(config.model_for(config.strategies[0]))
        model.client.meta.events.register("after-call.bedrock-runtime.Converse", self._after)

    def _after(self, parsed: dict[str, Any], **_: Any) -> None:
        self.tokens.append(int(parsed["usage"]["totalTokens"]))
        self.hook(len(self.tokens) - 1)


def used(tables: Tables, clock: FakeClock) -> int:
    return tables.extractor._budget.used(TENANT, clock.now())


class Refused(Exception):
    """The consolidation call's answer was lost."""


def test_tokens_count_when_the_consolidation_call_raises(tables: Tables, clock: FakeClock) -> None:
    """Issue 40, 12: a run's tokens went uncounted when the consolidation call raised.
    The extraction call's answer arrived and counts; the consolidation call's answer was
    lost on the way, so no one can count it."""
    tables.say("t1", "My city is Oslo.")
    tables.extractor.run(TENANT, "t1")
    tables.say("t2", "Actually, my city is Bergen.")
    before = used(tables, clock)

    def refuse(call: int) -> None:
        if call == 1:
            raise Refused("the consolidation call's answer was lost")

    spent = Spent(tables, refuse)
    with pytest.raises(ExtractionError):
        tables.extractor.run(TENANT, "t2")
    assert len(spent.tokens) == 2
    assert used(tables, clock) - before == spent.tokens[0]


def test_tokens_count_when_the_lease_lapsed_during_the_run(
    tables: Tables, clock: FakeClock
) -> None:
    """Issue 40, 12: a run whose lease lapsed during its model call (another run took
    the thread over) did not count its tokens."""
    tables.say("t1", "My city is Oslo.")
    lease = tables.extractor.config().lease_seconds

    def take_over(call: int) -> None:
        if call == 0:  # the other run is another Lambda: another thread, its own context
            clock.advance(lease + 1)
            other = threading.Thread(target=tables.extractor.run, args=(TENANT, "t1"))
            other.start()
            other.join()

    spent = Spent(tables, take_over)
    (run,) = tables.extractor.run(TENANT, "t1").runs
    assert run.skipped is not None and "lease" in run.skipped
    assert len(spent.tokens) == 2
    assert used(tables, clock) == sum(spent.tokens)
    assert tables.facts() == ["User's city is Oslo"]


def test_a_replay_rebuilds_a_running_summary_rather_than_merging_it_again(
    tables: Tables,
) -> None:
    """A replay reads messages the summary already covers: each stays in it once."""
    tables.extractor.set_tenant_override(TENANT, summaries)
    for text in ("Book a flight to Rome.", "Also add a checked bag."):
        tables.say("t1", text)
        tables.extractor.run(TENANT, "t1")
    tables.say("t1", "And a window seat.")
    tables.extractor.replay(TENANT, "t1")
    (summary,) = tables.store.search(("memories", TENANT, "summaries"))
    text = summary.value["text"]
    for said in ("Rome", "checked bag", "window seat"):
        assert text.count(said) == 1, text


def test_a_replay_in_smaller_windows_keeps_the_newest_statement_current(
    tables: Tables,
) -> None:
    tables.say("t1", "My dog is Rex.")
    tables.say("t1", "Actually, my dog is Max.")
    tables.say("t1", "Actually, my dog is Rex.")
    tables.extractor.run(TENANT, "t1")
    assert tables.facts() == ["User's dog is Rex"]
    tables.extractor.set_config(facts_config(limits=Limits(max_window_messages=2)))
    tables.extractor.replay(TENANT, "t1")
    assert current(tables) == ["User's dog is Rex"]


def test_forget_sticks_for_a_strategy_removed_then_configured_again(tables: Tables) -> None:
    tables.say("t1", "I prefer tea.")
    tables.extractor.run(TENANT, "t1")
    other = SemanticFacts(name="other", namespace=("memories", "{tenant}", "other"))
    tables.extractor.set_config(facts_config(strategies=[other]))
    tables.extractor.forget_thread(TENANT, "t1")
    tables.extractor.set_config(facts_config())
    tables.extractor.replay(TENANT, "t1")
    assert tables.facts() == []


def test_forgetting_a_thread_of_a_purged_tenant_creates_no_row(tables: Tables) -> None:
    """A forget of a thread with no checkpoint left (purged, removed) creates no cursor."""
    tables.say("t1", "My dog is Rex.")
    tables.extractor.run(TENANT, "t1")
    sources = tables.saver.for_tenant(TENANT).erasure_sources()
    assert tables.store.purge(("memories", TENANT), sources=sources).rows_left == 0
    tables.extractor.forget_thread(TENANT, "t1")
    assert tables.extractor.status(TENANT) == []


def test_a_text_revised_in_place_and_then_said_again_is_current_again(tables: Tables) -> None:
    """Oslo, then "Oslo east" (an update of the same memory), then Oslo again: the memory
    keyed by Oslo's text holds what was said last."""
    for thread, text in (
        ("t1", "My city is Oslo."),
        ("t2", "My city is Oslo east."),
        ("t3", "My city is Oslo."),
    ):
        tables.say(thread, text)
        tables.extractor.run(TENANT, thread)
    assert current(tables) == ["User's city is Oslo"]


def raced(
    tables: Tables, clock: FakeClock, tenant: str, held: str, at: int | None, after: bool
) -> tuple[dict[Any, tuple[Any, ...]], list[str]]:
    """Two conversations of one user, "my city is Bergen" then "my city is Oslo", run at
    once by two extractors: the `held` run decides (its search finds nothing) and is held
    before it records its window until the other has finished; then it dies at its
    `at`-th request (None: it does not) and is retried once its lease lapses. The
    memories, and the requests the held run sent once let go (operation names)."""
    tables.say("t1", "My city is Bergen.", tenant=tenant)
    clock.advance(1)
    tables.say("t2", "My city is Oslo.", tenant=tenant)
    with ExitStack() as stack:
        older, newer = extractors(stack, 2)
        first, second = (older, newer) if held == "older" else (newer, older)
        thread = {id(older): "t1", id(newer): "t2"}
        decided, done = threading.Event(), threading.Event()
        deaths = Deaths([first.store.client, first.saver.client])
        sent: list[str] = []
        for client in (first.store.client, first.saver.client):
            client.meta.events.register(
                "before-call.dynamodb",
                lambda model, **_: sent.append(model.name) if done.is_set() else None,
            )

        def hold(**_: Any) -> None:
            if not decided.is_set():
                decided.set()
                assert done.wait(WAIT_SECONDS), "the other run did not finish"
                deaths.arm(at, after)

        first.store.client.meta.events.register("before-call.dynamodb.TransactWriteItems", hold)
        with ThreadPoolExecutor(max_workers=1) as pool:
            held_run = pool.submit(first.run, tenant, thread[id(first)])
            assert decided.wait(WAIT_SECONDS), "the held run did not decide"
            second.run(tenant, thread[id(second)])
            done.set()
            try:
                held_run.result()
            except ExtractionError as error:
                assert isinstance(error.__cause__, Crash), error
        deaths.arm(None, False)
        done.clear()
        clock.advance(tables.extractor.config().lease_seconds + 1)
        first.run(tenant, thread[id(first)])
    return snapshot(tables, tenant), sent


@pytest.mark.parametrize("held", ["older", "newer"])
def test_contradicting_facts_decided_at_the_same_moment_leave_the_newest_current(
    held: str, clock: FakeClock
) -> None:
    """Each run's search missed the other's memory, and both facts stayed current.
    Consolidation looks again after applying, at the memories written meanwhile, and
    joins them into one chain; killed at any request from that look on and retried, the
    same (the requests before it are a supersede's, killed in
    `test_a_run_killed_at_any_request_and_retried_ends_as_an_uninterrupted_one`; the held
    run links either way round, so its deaths are tried on the older one)."""
    with mock_aws(), open_tables() as tables:
        expected, sent = raced(tables, clock, f"{TENANT}-{held}", held, None, False)
        states = {text: status for (_, text), (status, *_) in expected.items()}
        assert states == {"User's city is Bergen": "superseded", "User's city is Oslo": CURRENT}
        look = sent.index("Query")  # the second look (the thread was read before the hold)
        assert "TransactWriteItems" in sent[look:]  # the link, recorded
        for at in range(look, len(sent)) if held == "older" else ():
            for after in (False, True):
                tenant = f"{TENANT}-{held}-{at}-{after}"
                found, _ = raced(tables, clock, tenant, held, at, after)
                assert found == expected, f"killed {'after' if after else 'before'} request {at}"


def thread_reads(tables: Tables, tenant: str, strategies: list[Any]) -> int:
    """The Queries of the thread's checkpoints one run sends, for 12 turns not yet
    processed (more than the checkpoints read with the thread), each stating a fact and a
    preference, with `strategies` configured for the tenant."""
    tables.extractor.set_tenant_override(tenant, TenantOverride(strategies=strategies))
    for n in range(12):
        tables.say("t1", f"My dog is Rex number {n}. I prefer tea number {n}.", tenant=tenant)
    sent = 0

    def count(**_: Any) -> None:
        nonlocal sent
        sent += 1

    tables.saver.client.meta.events.register("before-call.dynamodb.Query", count)
    tables.extractor.run(tenant, "t1")
    tables.saver.client.meta.events.unregister("before-call.dynamodb.Query", count)
    return sent


def test_strategies_of_one_run_walk_the_thread_back_once(tables: Tables) -> None:
    """Each strategy dating its statements walked the thread's older checkpoints again."""
    facts = SemanticFacts(name="facts", namespace=("memories", "{tenant}", "{user_id}", "facts"))
    prefs = UserPreferences(name="prefs", namespace=("memories", "{tenant}", "{user_id}", "prefs"))
    one = thread_reads(tables, "one", [facts])
    both = thread_reads(tables, "both", [facts, prefs])
    assert one > 1  # the thread, then its older checkpoints
    assert both == one
    assert len(tables.store.search(("memories", "both", USER, "prefs"), limit=100)) == 12


def test_the_second_look_asks_nothing_about_memories_the_decision_read(tables: Tables) -> None:
    """A run just after another in the same namespace: its decision read the other's
    memory, so its look after writing makes no model call about it."""
    tables.say("t1", "My city is Oslo.")
    tables.extractor.run(TENANT, "t1")
    tables.say("t2", "My dog is Rex.")
    (run,) = tables.extractor.run(TENANT, "t2").runs
    assert run.written and run.model_calls == 2  # extraction, consolidation: no third
