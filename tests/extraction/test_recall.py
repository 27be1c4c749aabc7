"""Recall on the hot path: `MemoryRecall` in a `create_agent` agent puts the user's current
memories into the system message before each model call; a store outage means a turn
without memories and a warning; `recall` caps what it returns in tokens and reads only
the tenant's and user's own namespaces."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import pytest
from langchain.agents import create_agent
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.extraction import NearestConsolidator
from langgraph.store.dynamodb.recall.middleware import MemoryRecall
from langgraph.store.dynamodb.recall.recall import RecallSource, recall, render
from langgraph.store.dynamodb.testing import ScriptedChatModel, mock_aws

from .conftest import TENANT, USER, Tables, open_tables

FACTS = RecallSource(("memories", "{tenant}", "{user_id}", "facts"), label="Facts")


class Prompts(BaseCallbackHandler):
    """The system messages each model call received."""

    def __init__(self) -> None:
        self.systems: list[str] = []

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        **kw: Any,
    ) -> None:
        for batch in messages:
            self.systems += [str(m.content) for m in batch if isinstance(m, SystemMessage)]


@pytest.fixture
def tables() -> Iterator[Tables]:
    with mock_aws(), open_tables(consolidator=NearestConsolidator()) as opened:
        opened.say("t1", "My city is Oslo. I like jazz.")
        opened.extractor.run(TENANT, "t1")
        opened.say("t2", "Actually, my city is Bergen.")
        opened.extractor.run(TENANT, "t2")
        yield opened


def ask(
    store: DynamoDBStore,
    text: str,
    user: str = USER,
    *,
    tenant: str = TENANT,
    middleware: MemoryRecall | None = None,
) -> Prompts:
    agent = create_agent(
        ScriptedChatModel(responses=[AIMessage("Noted.")]),
        system_prompt="You are a travel assistant.",
        middleware=[middleware or MemoryRecall([FACTS], max_tokens=200)],
        store=store,
    )
    prompts = Prompts()
    config = {"configurable": {"tenant": tenant, "user_id": user}, "callbacks": [prompts]}
    agent.invoke({"messages": [HumanMessage(text)]}, config)  # type: ignore[arg-type]
    return prompts


def test_the_agent_sees_the_users_current_memories(tables: Tables) -> None:
    (system,) = ask(tables.store, "Which city do I live in?").systems
    assert system.startswith("You are a travel assistant.")
    assert "- User's city is Bergen" in system and "Oslo" not in system


def test_another_user_recalls_nothing(tables: Tables) -> None:
    (system,) = ask(tables.store, "Which city do I live in?", user="u2").systems
    assert system == "You are a travel assistant."


def test_the_middlewares_values_win_over_the_runs_configurable(tables: Tables) -> None:
    """A middleware bound to a tenant recalls that tenant's memories whatever tenant the
    caller's config names: the config comes from the caller, the values from the app."""
    tables.say("g1", "My city is Lima.", tenant="globex")
    tables.extractor.run("globex", "g1")
    (own,) = ask(tables.store, "Which city do I live in?", tenant="globex").systems
    assert "Lima" in own
    bound = MemoryRecall([FACTS], values={"tenant": TENANT})
    (system,) = ask(tables.store, "Which city?", tenant="globex", middleware=bound).systems
    assert "- User's city is Bergen" in system and "Lima" not in system


def test_the_middleware_keeps_to_its_max_tokens(tables: Tables) -> None:
    question = "Which city do I live in, and do I like jazz?"
    (wide,) = ask(tables.store, question, middleware=MemoryRecall([FACTS])).systems
    assert "Bergen" in wide and "jazz" in wide
    narrow = MemoryRecall([FACTS], max_tokens=6)  # one memory's worth
    (system,) = ask(tables.store, question, middleware=narrow).systems
    assert len([line for line in system.splitlines() if line.startswith("- ")]) == 1


def test_a_store_outage_is_a_turn_without_memories_and_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with (
        mock_aws(),
        DynamoDBStore("no-such-table", region_name="us-east-1") as store,
        caplog.at_level(logging.WARNING),
    ):
        (system,) = ask(store, "Which city do I live in?").systems
    assert system == "You are a travel assistant."
    assert any("Recall skipped" in r.message for r in caplog.records)


def test_recall_keeps_to_its_token_cap_and_shows_history_on_request(tables: Tables) -> None:
    values = {"tenant": TENANT, "user_id": USER}
    everything = recall(tables.store, [FACTS], values, "city jazz", max_tokens=1000)
    assert sorted(r.text for r in everything) == ["User likes jazz", "User's city is Bergen"]
    capped = recall(tables.store, [FACTS], values, "city", max_tokens=6)
    assert [r.text for r in capped] == ["User's city is Bergen"]
    history = recall(tables.store, [FACTS], values, "city", history=True)
    assert len(history) == 3


def test_one_sentence_two_strategies_stored_is_recalled_once(tables: Tables) -> None:
    prefs = RecallSource(("memories", "{tenant}", "{user_id}", "prefs"), label="Preferences")
    tables.store.put(
        ("memories", TENANT, USER, "prefs"),
        "jazz",
        {"text": "user likes  jazz.", "status": "current"},
    )
    values = {"tenant": TENANT, "user_id": USER}
    recalled = recall(tables.store, [FACTS, prefs], values, "jazz", max_tokens=1000)
    assert sum("jazz" in r.text.lower() for r in recalled) == 1
    # the duplicate spends no budget: the jazz memory and Bergen (5 + 6 tokens) fit in 11
    both = recall(tables.store, [prefs, FACTS], values, "jazz city", max_tokens=11)
    assert len(both) == 2


def test_a_memory_too_large_is_passed_over_for_one_that_fits(tables: Tables) -> None:
    values = {"tenant": TENANT, "user_id": USER}
    # "User's city is Bergen" ranks first for this query but costs 6 tokens
    found = recall(tables.store, [FACTS], values, "Which city do I live in?", max_tokens=5)
    assert [r.text for r in found] == ["User likes jazz"]


def test_an_empty_query_recalls_nothing(tables: Tables) -> None:
    assert recall(tables.store, [FACTS], {"tenant": TENANT, "user_id": USER}, "  ") == []


def test_history_marks_only_what_is_no_longer_true(tables: Tables) -> None:
    values = {"tenant": TENANT, "user_id": USER}
    texts = sorted(r.text for r in recall(tables.store, [FACTS], values, "city", history=True))
    assert texts[:2] == ["User likes jazz", "User's city is Bergen"]
    assert texts[2].startswith("User's city is Oslo (no longer true since ")


def test_the_latest_human_message_is_the_query(tables: Tables) -> None:
    agent = create_agent(
        ScriptedChatModel(responses=[AIMessage("Noted.")]),
        middleware=[MemoryRecall([FACTS], max_tokens=6)],  # one memory's worth
        store=tables.store,
    )
    prompts = Prompts()
    config = {"configurable": {"tenant": TENANT, "user_id": USER}, "callbacks": [prompts]}
    turns = [HumanMessage("Do I like jazz?"), AIMessage("Yes."), HumanMessage("My city?")]
    agent.invoke({"messages": turns}, config)  # type: ignore[arg-type]
    (system,) = prompts.systems
    assert "Bergen" in system and "jazz" not in system


def test_each_source_is_recalled_under_its_own_label(tables: Tables) -> None:
    seats = RecallSource(("memories", "{tenant}", "{user_id}", "prefs"), label="Preferences")
    namespace = ("memories", TENANT, USER, "prefs")
    tables.store.put(namespace, "p1", {"text": "User wants aisle seats", "status": "current"})
    values = {"tenant": TENANT, "user_id": USER}
    block = render(recall(tables.store, [FACTS, seats], values, "city seats", max_tokens=1000))
    facts, preferences = block.split("\nPreferences:\n")
    assert "- User's city is Bergen" in facts and "aisle" not in facts
    assert preferences == "- User wants aisle seats"
