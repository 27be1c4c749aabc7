"""Consolidation on the emulation: each decision (add, update, supersede, no-op), the same
fact twice is one memory, an update decided on a stale version redone, supersede keeps
history, and forgetting a thread rolls back only its share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langgraph.store.dynamodb.extraction import NearestConsolidator, Transcript
from langgraph.store.dynamodb.extraction.consolidation.apply import apply
from langgraph.store.dynamodb.extraction.consolidation.journal import plan
from langgraph.store.dynamodb.extraction.engine.reader import read_thread
from langgraph.store.dynamodb.extraction.strategies.model_call import extract
from langgraph.store.dynamodb.recall.fields import CURRENT, STATUS, SUPERSEDED
from langgraph.store.dynamodb.recall.recall import RecallSource, recall
from langgraph.store.dynamodb.testing import mock_aws

from .conftest import NAMESPACE, TENANT, USER, Tables, open_tables

SOURCE = RecallSource(("memories", "{tenant}", "{user_id}", "facts"))
VALUES = {"tenant": TENANT, "user_id": USER}


@pytest.fixture
def tables() -> Iterator[Tables]:
    with mock_aws(), open_tables(consolidator=NearestConsolidator()) as opened:
        yield opened


def memories(tables: Tables) -> dict[str, dict[str, object]]:
    return {item.key: item.value for item in tables.store.search(NAMESPACE, limit=100)}


def test_new_facts_are_added_without_a_consolidation_call(tables: Tables) -> None:
    tables.say("t1", "My dog is Rex. I like jazz.")
    (run,) = tables.extractor.run(TENANT, "t1").runs
    assert len(run.written) == 2 and run.model_calls == 1
    assert all(v[STATUS] == CURRENT for v in memories(tables).values())


def test_the_same_fact_from_two_threads_is_one_memory(tables: Tables) -> None:
    tables.say("t1", "My dog is Rex.")
    tables.extractor.run(TENANT, "t1")
    tables.say("t2", "My dog is Rex.")
    (run,) = tables.extractor.run(TENANT, "t2").runs
    assert run.written == () and run.unchanged == 1 and run.model_calls == 1
    assert tables.facts() == ["User's dog is Rex"]


def test_a_refinement_updates_in_place_keeping_the_old_version(tables: Tables) -> None:
    tables.say("t1", "My dog is Rex.")
    tables.extractor.run(TENANT, "t1")
    (key,) = memories(tables)
    tables.say("t2", "My dog is Rex the beagle.")
    (run,) = tables.extractor.run(TENANT, "t2").runs
    assert run.model_calls == 2 and run.written == (key,)
    value = memories(tables)[key]
    assert value["text"] == "User's dog is Rex the beagle"
    assert value["provenance"]["thread_id"] == "t2"  # type: ignore[index]
    (old,) = value["revisions"]  # type: ignore[misc]
    assert old["content"]["text"] == "User's dog is Rex" and old["provenance"]["thread_id"] == "t1"


def test_a_contradiction_supersedes_and_history_shows_the_old_fact(tables: Tables) -> None:
    tables.say("t1", "My city is Oslo.")
    tables.extractor.run(TENANT, "t1")
    (old_key,) = memories(tables)
    tables.say("t2", "Actually, my city is Bergen.")
    (run,) = tables.extractor.run(TENANT, "t2").runs
    assert run.model_calls == 2
    found = memories(tables)
    new_key = next(k for k in found if k != old_key)
    assert found[old_key][STATUS] == SUPERSEDED and found[old_key]["superseded_by"] == new_key
    assert found[old_key]["superseded_at"] and found[new_key]["supersedes"] == old_key
    now = [r.text for r in recall(tables.store, [SOURCE], VALUES, "which city")]
    assert now == ["User's city is Bergen"]
    before = [r.text for r in recall(tables.store, [SOURCE], VALUES, "city", history=True)]
    assert "User's city is Bergen" in before
    assert any(t.startswith("User's city is Oslo (no longer true since") for t in before)


def test_an_update_decided_on_a_stale_version_is_redone_on_a_fresh_read(tables: Tables) -> None:
    """Two decisions against the same version, applied one after the other: the second
    finds the memory changed, reads again and redoes its update. (Two extractions really
    running at once: test_concurrent_updates.py.)"""
    tables.say("t1", "My dog is Rex.")
    tables.extractor.run(TENANT, "t1")
    (key,) = memories(tables)
    consolidator = NearestConsolidator()
    model = tables.extractor.chat_model("amazon.nova-micro-v1:0")
    strategy = tables.extractor.config().strategies[0]
    decided = []
    for thread, text in (("t2", "My dog is Rex the beagle."), ("t3", "My dog is Rex the brave.")):
        tables.say(thread, text)
        state = read_thread(tables.saver, TENANT, thread)
        assert state is not None
        transcript = Transcript(TENANT, thread, state.messages, VALUES)
        candidates = extract(strategy, transcript, model).candidates
        decisions = consolidator.decide(candidates, NAMESPACE, strategy, tables.store, model)
        decided.append((decisions, [state.written_at, 0.0]))
    for decisions, at in decided:  # both read the first version before either wrote
        apply(tables.store, plan(decisions, NAMESPACE, lambda _, at=at: at))
    value = memories(tables)[key]
    texts = [r["content"]["text"] for r in value["revisions"]] + [value["text"]]  # type: ignore[attr-defined]
    assert texts == [
        "User's dog is Rex",
        "User's dog is Rex the beagle",
        "User's dog is Rex the brave",
    ]


def test_forgetting_a_thread_restores_what_it_superseded_and_rolls_back_updates(
    tables: Tables,
) -> None:
    tables.say("t1", "My city is Oslo. My dog is Rex.")
    tables.extractor.run(TENANT, "t1")
    tables.say("t2", "Actually, my city is Bergen. My dog is Rex the beagle. I like jazz.")
    tables.extractor.run(TENANT, "t2")
    assert tables.extractor.forget_thread(TENANT, "t2") == 2  # Bergen and jazz
    found = memories(tables)
    assert sorted(v["text"] for v in found.values()) == ["User's city is Oslo", "User's dog is Rex"]  # type: ignore[type-var]
    assert all(v[STATUS] == CURRENT and "revisions" not in v for v in found.values())
    assert all("superseded_by" not in v for v in found.values())
    assert tables.extractor.forget_thread(TENANT, "t1") == 2
    assert memories(tables) == {}


def test_forgetting_the_older_thread_keeps_what_a_newer_one_formed(tables: Tables) -> None:
    tables.say("t1", "My dog is Rex.")
    tables.extractor.run(TENANT, "t1")
    tables.say("t2", "My dog is Rex the beagle.")
    tables.extractor.run(TENANT, "t2")
    assert tables.extractor.forget_thread(TENANT, "t1") == 0
    (value,) = memories(tables).values()
    assert value["text"] == "User's dog is Rex the beagle" and "revisions" not in value


def test_forgetting_the_first_thread_keeps_the_newest_version_another_wrote(
    tables: Tables,
) -> None:
    for thread, text in (
        ("t1", "My dog is Rex."),
        ("t2", "My dog is Rex the beagle."),
        ("t3", "My dog is Rex the beagle from Oslo."),
    ):
        tables.say(thread, text)
        tables.extractor.run(TENANT, thread)
    assert tables.extractor.forget_thread(TENANT, "t1") == 0
    (value,) = memories(tables).values()
    assert value["text"] == "User's dog is Rex the beagle from Oslo"
    assert value["provenance"]["thread_id"] == "t3"  # type: ignore[index]
    (kept,) = value["revisions"]  # type: ignore[misc]
    assert kept["provenance"]["thread_id"] == "t2"


def test_an_update_applied_again_after_a_newer_one_changes_nothing(tables: Tables) -> None:
    """A crashed run's window is applied again on retry, after another run revised the
    memory: the update it already made is found in the revisions and not made twice."""
    tables.say("t1", "My dog is Rex.")
    tables.extractor.run(TENANT, "t1")
    model = tables.extractor.chat_model("amazon.nova-micro-v1:0")
    strategy = tables.extractor.config().strategies[0]
    steps = []
    for thread, text in (
        ("t2", "My dog is Rex the beagle."),
        ("t3", "My dog is Rex the beagle too."),
    ):
        tables.say(thread, text)
        state = read_thread(tables.saver, TENANT, thread)
        assert state is not None
        candidates = extract(strategy, Transcript(TENANT, thread, state.messages, VALUES), model)
        decisions = NearestConsolidator().decide(
            candidates.candidates, NAMESPACE, strategy, tables.store, model
        )
        steps.append(plan(decisions, NAMESPACE, lambda _, at=state.written_at: [at, 0.0]))
        apply(tables.store, steps[-1])
    before = memories(tables)
    (value,) = before.values()
    assert value["text"] == "User's dog is Rex the beagle too"  # t3 revised t2's version
    apply(tables.store, steps[0])  # t2's window, retried
    assert memories(tables) == before
