"""Triggers: after N new messages, after T new tokens, after S idle seconds, folded into
one run; a run that is not due says when to come back; the window sent per call is
capped and the rest follows in the same run."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from langgraph.store.dynamodb.extraction import Consolidation, SemanticFacts, Trigger
from langgraph.store.dynamodb.extraction.engine.config import Limits
from langgraph.store.dynamodb.testing import mock_aws

from tests.support import FakeClock

from .conftest import TENANT, Tables, facts_config, open_tables


def configured(tables: Tables, trigger: Trigger, **changes: object) -> None:
    strategy = SemanticFacts(
        name="facts", namespace=("memories", "{tenant}", "{user_id}", "facts"), trigger=trigger
    )
    tables.extractor.set_config(facts_config(strategies=[strategy], **changes))


@pytest.fixture
def timed(clock: FakeClock) -> Iterator[tuple[Tables, FakeClock]]:
    with mock_aws(), open_tables() as tables:
        yield tables, clock


def test_the_rule() -> None:
    assert Trigger().wait(1, 5, 0) == 0.0
    assert Trigger().wait(0, 0, 99) is None
    assert Trigger(messages=4).wait(3, 10, 0) is None
    assert Trigger(messages=4).wait(4, 10, 0) == 0.0
    assert Trigger(tokens=50).wait(1, 49, 0) is None
    assert Trigger(tokens=50).wait(1, 50, 0) == 0.0
    assert Trigger(idle_seconds=30).wait(1, 1, 10) == 20.0
    assert Trigger(messages=10, idle_seconds=30).wait(1, 1, 31) == 0.0
    assert Trigger(messages=2, idle_seconds=30).wait(2, 1, 0) == 0.0
    assert Trigger(messages=10, tokens=50).wait(1, 50, 0) == 0.0


def test_after_n_messages_several_turns_fold_into_one_run(timed: tuple[Tables, FakeClock]) -> None:
    tables, _ = timed
    configured(tables, Trigger(messages=6))
    tables.say("t1", "I prefer tea.")  # a turn adds 2 messages: the human's and the reply
    tables.say("t1", "My dog is Rex.")
    (run,) = tables.extractor.run(TENANT, "t1").runs
    assert run.skipped == "its trigger is not due yet" and run.retry_after is None
    assert run.model_calls == 0
    tables.say("t1", "I live in Oslo.")
    (run,) = tables.extractor.run(TENANT, "t1").runs
    assert run.model_calls == 1 and len(run.written) == 3


def test_after_idle_seconds(timed: tuple[Tables, FakeClock]) -> None:
    tables, clock = timed
    configured(tables, Trigger(idle_seconds=30))
    tables.say("t1", "I prefer tea.")
    clock.wall = time.time()  # LangGraph stamps checkpoints with the real clock
    clock.advance(10)
    (run,) = tables.extractor.run(TENANT, "t1").runs
    assert run.skipped and run.retry_after is not None and 19 <= run.retry_after <= 20
    clock.advance(25)
    (run,) = tables.extractor.run(TENANT, "t1").runs
    assert len(run.written) == 1


def test_after_tokens(timed: tuple[Tables, FakeClock]) -> None:
    tables, _ = timed
    configured(tables, Trigger(tokens=60))
    tables.say("t1", "I prefer tea.")
    assert tables.extractor.run(TENANT, "t1").runs[0].model_calls == 0
    tables.say("t1", "My favourite book is a very long novel about the sea and a whale. " * 3)
    assert tables.extractor.run(TENANT, "t1").runs[0].model_calls == 1


def test_the_window_per_call_is_capped(timed: tuple[Tables, FakeClock]) -> None:
    tables, _ = timed
    # Extraction calls only: adding each candidate asks no consolidation.
    only_adds = Consolidation(mode="add_each")
    configured(
        tables, Trigger(messages=10), limits=Limits(max_window_messages=4), consolidation=only_adds
    )
    for fact in ("I prefer tea", "My dog is Rex", "I live in Oslo", "I am tall", "I own a boat"):
        tables.say("t1", fact)
    (run,) = tables.extractor.run(TENANT, "t1").runs
    assert run.model_calls == 3 and len(run.written) == 5  # 10 messages, 4 per call
    (status,) = tables.extractor.status(TENANT, "t1")
    assert status.lag_messages == 0 and status.checkpoint_id == status.newest_checkpoint_id


def test_a_message_over_the_token_cap_is_a_window_of_its_own(
    timed: tuple[Tables, FakeClock],
) -> None:
    tables, _ = timed
    only_adds = Consolidation(mode="add_each")
    configured(tables, Trigger(), limits=Limits(max_window_tokens=1), consolidation=only_adds)
    tables.say("t1", "I prefer tea.")
    (run,) = tables.extractor.run(TENANT, "t1").runs
    assert run.model_calls == 2 and tables.facts() == ["User prefers tea"]  # 2 messages
    (status,) = tables.extractor.status(TENANT, "t1")
    assert status.lag_messages == 0 and status.checkpoint_id == status.newest_checkpoint_id
