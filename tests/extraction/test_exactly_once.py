"""Exactly-once effect: each stream record of a thread's checkpoints delivered three times,
in any order, with the extraction dying at any request (before it is applied, or after,
with its answer lost) and retried as Lambda retries, and faults the clients retry
(`tests.fault.layer`: throttling, timeouts before and after a request applies, resets,
partial batches), still yields each memory once:
0 duplicates, 0 skipped messages, 0 cursors moved back.

A death stops every later request of that run (its lease is never released: the retry
waits for it to lapse, as after a real crash)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from langgraph.store.dynamodb.extraction import ExtractionError
from langgraph.store.dynamodb.testing import mock_aws
from langgraph.store.dynamodb.testing.extractor import extract_facts

from tests.fault.layer import FaultLayer
from tests.support import FakeClock

from .conftest import NAMESPACE, TENANT, Tables, open_tables

SENTENCES = (
    "I prefer green tea",
    "My dog is Rex",
    "I live in Oslo",
    "I am a nurse",
    "I have two cats",
    "My car is red",
    "I speak Welsh",
    "I own a boat",
    "Nice weather today",
)
THREADS = ("t1", "t2")


class Crash(Exception):
    """The Lambda died at this request."""


class Deaths:
    """Kills a run at its `at`-th request, before it is applied or after (the answer lost);
    every later request of that run dies too."""

    def __init__(self, clients: list[Any]) -> None:
        self.at: int | None = None
        self.after = False
        self.sent = 0
        self.dead = False
        for client in clients:
            client.meta.events.register("before-call", self._before)
            client.meta.events.register("after-call", self._after)

    def arm(self, at: int | None, after: bool) -> None:
        self.at, self.after, self.sent, self.dead = at, after, 0, False

    def _before(self, **_: Any) -> None:
        if self.dead or (self.sent == self.at and not self.after):
            self.dead = True
            raise Crash("killed before the request")

    def _after(self, **_: Any) -> None:
        self.sent += 1
        if self.sent - 1 == self.at and self.after:
            self.dead = True
            raise Crash("killed after the request was applied")


def position(tables: Tables, thread: str) -> tuple[str, int]:
    """How far the thread's cursor is: its checkpoint and the index of its last message."""
    (status,) = tables.extractor.status(TENANT, thread)
    config = {"configurable": {"thread_id": thread, "tenant": TENANT}}
    ids = [m.id for m in tables.graph.get_state(config).values.get("messages", [])]
    cursors = tables.extractor._cursors.of_tenant(TENANT, thread)
    message = next((c.message_id for c in cursors), None)
    return status.checkpoint_id or "", ids.index(message) if message in ids else -1


def check(data: st.DataObject, clock: FakeClock) -> None:
    with mock_aws(), open_tables() as tables:
        clients = [tables.store.client, tables.saver.client]
        # Throttling, server errors, timeouts (before and after the request applies),
        # resets and partial batches, which the clients retry, under the deaths.
        seed = data.draw(st.integers(0, 2**16))
        faults = [FaultLayer(c, rate=0.03, seed=seed + i) for i, c in enumerate(clients)]
        deaths = Deaths(clients)
        said: dict[str, list[str]] = {thread: [] for thread in THREADS}
        records: list[str] = []
        seen: dict[str, tuple[str, int]] = {}
        moved_back = 0

        def deliver(thread: str, may_die: bool) -> bool:
            nonlocal moved_back
            die = data.draw(st.booleans()) if may_die else False
            deaths.arm(data.draw(st.integers(0, 16)) if die else None, data.draw(st.booleans()))
            try:
                tables.extractor.run(TENANT, thread)
                done = True
            except ExtractionError as error:
                assert isinstance(error.__cause__, Crash), error
                done = False
            deaths.arm(None, False)
            now = position(tables, thread)
            moved_back += now < seen.get(thread, ("", -1))
            seen[thread] = max(now, seen.get(thread, ("", -1)))
            clock.advance(1)
            return done

        unused = list(SENTENCES)
        for _ in range(data.draw(st.integers(1, 4))):
            thread = data.draw(st.sampled_from(THREADS))
            sentences = data.draw(
                st.lists(st.sampled_from(unused), min_size=1, max_size=2, unique=True)
            )
            unused = [s for s in unused if s not in sentences]
            tables.say(thread, ". ".join(sentences), user="u1")
            said[thread].extend(sentences)
            records.append(thread)
            for index in data.draw(st.lists(st.integers(0, len(records) - 1), max_size=3)):
                deliver(records[index], may_die=True)
            if not unused:
                break
        failed: list[str] = []
        for thread in data.draw(st.permutations(records * 3)):
            if not deliver(thread, may_die=True):
                failed.append(thread)
        for layer in faults:
            layer.enabled = False
        clock.advance(tables.extractor.config().lease_seconds + 1)  # dead runs' leases lapse
        for thread in failed + list(dict.fromkeys(records)):
            assert deliver(thread, may_die=False)

        memories = tables.store.search(NAMESPACE, limit=100)
        formed = Counter((m.value["provenance"]["thread_id"], m.value["text"]) for m in memories)
        expected = Counter(
            (thread, fact["text"])
            for thread, sentences in said.items()
            for sentence in sentences
            for fact in extract_facts(f"[x] human: {sentence}")
        )
        assert sum(n - 1 for n in formed.values() if n > 1) == 0, "duplicates"
        assert expected - formed == Counter(), "skipped messages"
        assert formed == expected
        assert moved_back == 0, "cursors moved back"


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(data=st.data())
def test_replays_reorders_and_deaths_yield_each_memory_once(
    data: st.DataObject, clock: FakeClock
) -> None:
    check(data, clock)


@pytest.mark.hardening
@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_replays_reorders_and_deaths_yield_each_memory_once_at_length(
    data: st.DataObject, clock: FakeClock
) -> None:
    check(data, clock)
