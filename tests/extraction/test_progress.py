"""Knowing when it is done (wait until a checkpoint is processed, sync and async, status)
and replay; cost control: model calls and tokens as usage records billed to the tenant,
and a daily token budget that skips with a recorded reason and catches up later."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from langgraph.store.dynamodb.extraction import Consolidation, TenantOverride
from langgraph.store.dynamodb.extraction.engine.config import Limits
from langgraph.store.dynamodb.table.usage import CONVERSE, UsageRecord
from langgraph.store.dynamodb.testing import mock_aws

from tests.support import FakeClock

from .conftest import NAMESPACE, TENANT, USER, Tables, facts_config, open_tables


def test_wait_returns_once_every_strategy_processed_the_checkpoint(tables: Tables) -> None:
    checkpoint = tables.say("t1", "I prefer tea.")
    worker = threading.Timer(0.3, tables.extractor.run, args=(TENANT, "t1"))
    worker.start()
    (status,) = tables.extractor.wait_until_processed(TENANT, "t1", checkpoint, timeout=10)
    worker.join()
    assert status.checkpoint_id == checkpoint and status.memories == 1
    assert tables.facts() == ["User prefers tea"]


async def test_the_async_wait(tables: Tables) -> None:
    checkpoint = tables.say("t1", "I prefer tea.")
    tables.extractor.run(TENANT, "t1")
    (status,) = await tables.extractor.await_until_processed(TENANT, "t1", checkpoint, timeout=5)
    assert status.checkpoint_id == checkpoint


def test_a_wait_that_times_out_names_the_strategy_behind(tables: Tables) -> None:
    first = tables.say("t1", "I prefer tea.")
    tables.extractor.run(TENANT, "t1")
    later = tables.say("t1", "My dog is Rex.")
    with pytest.raises(TimeoutError) as late:
        tables.extractor.wait_until_processed(TENANT, "t1", later, timeout=0.3)
    assert f"facts: at checkpoint {first}" in str(late.value)


def test_status_of_a_tenant_lists_each_thread_with_its_lag(tables: Tables) -> None:
    tables.say("t1", "I prefer tea.")
    tables.extractor.run(TENANT, "t1")
    newest = tables.say("t1", "My dog is Rex.")
    tables.say("t2", "I own a boat.")
    tables.extractor.run(TENANT, "t2")
    found = {s.thread_id: s for s in tables.extractor.status(TENANT)}
    assert set(found) == {"t1", "t2"}
    assert found["t1"].newest_checkpoint_id == newest != found["t1"].checkpoint_id
    assert found["t2"].checkpoint_id == found["t2"].newest_checkpoint_id
    assert found["t1"].last_run_at is not None and found["t1"].last_error is None


def test_replay_rewrites_the_same_memories(tables: Tables) -> None:
    """Opted out of consolidation, a replay rewrites each memory at its provenance key."""
    tables.extractor.set_config(facts_config(consolidation=Consolidation(mode="add_each")))
    first = tables.say("t1", "I prefer tea.")
    tables.say("t1", "My dog is Rex.")
    tables.extractor.run(TENANT, "t1")
    keys = sorted(item.key for item in tables.store.search(NAMESPACE, limit=10))
    (run,) = tables.extractor.replay(TENANT, "t1").runs
    assert len(run.written) == 2 and run.model_calls == 1
    (run,) = tables.extractor.replay(TENANT, "t1", after_checkpoint=first).runs
    assert len(run.written) == 1  # only the turn after `first`
    assert sorted(item.key for item in tables.store.search(NAMESPACE, limit=10)) == keys


def test_a_replay_under_the_default_consolidation_finds_everything_known(
    tables: Tables,
) -> None:
    first = tables.say("t1", "I prefer tea.")
    tables.say("t1", "My dog is Rex.")
    tables.extractor.run(TENANT, "t1")
    keys = sorted(item.key for item in tables.store.search(NAMESPACE, limit=10))
    (run,) = tables.extractor.replay(TENANT, "t1").runs
    assert run.written == () and run.unchanged == 2 and run.model_calls == 1
    (run,) = tables.extractor.replay(TENANT, "t1", after_checkpoint=first).runs
    assert run.written == () and run.unchanged == 1
    assert sorted(item.key for item in tables.store.search(NAMESPACE, limit=10)) == keys
    with pytest.raises(ValueError, match="no strategy named 'nope'"):
        tables.extractor.replay(TENANT, "t1", strategies=["nope"])


def test_tokens_are_usage_records_billed_to_the_tenant() -> None:
    records: list[UsageRecord] = []
    with mock_aws(), open_tables(on_usage=records.append) as tables:
        tables.say("t1", "I prefer tea.")
        (run,) = tables.extractor.run(TENANT, "t1").runs
    calls = [r for r in records if r.operation == CONVERSE]
    assert [(r.group, r.model_calls) for r in calls] == [((".threads", TENANT), 1)]
    assert calls[0].input_tokens == run.input_tokens > 0
    assert calls[0].output_tokens == run.output_tokens > 0
    # the cursor's updates are the tenant's, as its threads are; the memory's its group's
    updated = {r.group for r in records if r.operation == "UpdateItem"}
    assert updated == {(".threads", TENANT), ("memories", TENANT)}


@pytest.fixture
def budgeted(clock: FakeClock) -> Iterator[tuple[Tables, FakeClock]]:
    with mock_aws(), open_tables() as tables:
        yield tables, clock


def test_past_the_daily_budget_extraction_waits_for_the_next_day(
    budgeted: tuple[Tables, FakeClock],
) -> None:
    tables, clock = budgeted
    tables.extractor.set_tenant_override(TENANT, TenantOverride(limits={"daily_tokens": 10}))
    tables.say("t1", "I prefer tea.")
    (run,) = tables.extractor.run(TENANT, "t1").runs
    assert run.input_tokens + run.output_tokens > 10 and len(run.written) == 1
    checkpoint = tables.say("t1", "My dog is Rex.")
    (run,) = tables.extractor.run(TENANT, "t1").runs
    assert run.model_calls == 0 and run.skipped and "daily token budget (10)" in run.skipped
    assert run.retry_after is not None and 0 < run.retry_after <= 86400
    (status,) = tables.extractor.status(TENANT, "t1")
    assert status.last_error == run.skipped and status.lag_messages == 2
    clock.advance(run.retry_after + 1)
    (run,) = tables.extractor.run(TENANT, "t1").runs
    assert len(run.written) == 1 and tables.facts() == ["User prefers tea", "User's dog is Rex"]
    (status,) = tables.extractor.status(TENANT, "t1")
    assert status.checkpoint_id == checkpoint and status.last_error is None


def test_a_partial_window_does_not_claim_the_newest_checkpoint(
    budgeted: tuple[Tables, FakeClock],
) -> None:
    """The window cap cuts the pending messages, and the budget stops the run after the
    first window: the cursor stays short of the newest checkpoint, so a wait for it does
    not return before the rest is extracted."""
    tables, clock = budgeted
    tables.extractor.set_config(
        facts_config(
            limits=Limits(max_window_messages=2), consolidation=Consolidation(mode="add_each")
        )
    )
    tables.extractor.set_tenant_override(TENANT, TenantOverride(limits={"daily_tokens": 1}))
    tables.say("t1", "I prefer tea.")
    newest = tables.say("t1", "My dog is Rex.")
    (run,) = tables.extractor.run(TENANT, "t1").runs
    assert run.model_calls == 1 and run.skipped and "daily token budget" in run.skipped
    with pytest.raises(TimeoutError):
        tables.extractor.wait_until_processed(TENANT, "t1", newest, timeout=0)
    (status,) = tables.extractor.status(TENANT, "t1")
    assert status.checkpoint_id != newest and status.lag_messages == 2
    clock.advance(run.retry_after or 0)
    tables.extractor.run(TENANT, "t1")
    (status,) = tables.extractor.wait_until_processed(TENANT, "t1", newest, timeout=0)
    assert status.checkpoint_id == newest
    assert tables.facts() == ["User prefers tea", "User's dog is Rex"]


def test_the_daily_budget_adds_up_every_run_of_the_day(
    budgeted: tuple[Tables, FakeClock],
) -> None:
    tables, _ = budgeted
    tables.extractor.set_config(facts_config(consolidation=Consolidation(mode="add_each")))
    tables.say("t1", "I prefer tea and I love long walks by the sea.")
    (first,) = tables.extractor.run(TENANT, "t1").runs
    spent = first.input_tokens + first.output_tokens
    tables.extractor.set_tenant_override(TENANT, TenantOverride(limits={"daily_tokens": spent + 1}))
    tables.say("t1", "I like jazz.")
    (second,) = tables.extractor.run(TENANT, "t1").runs
    assert second.model_calls == 1  # spent so far: under the budget
    assert second.input_tokens + second.output_tokens <= spent
    tables.say("t1", "My dog is Rex.")
    (third,) = tables.extractor.run(TENANT, "t1").runs
    assert third.model_calls == 0 and third.skipped and "daily token budget" in third.skipped


def test_a_checkpoint_without_new_messages_is_processed(tables: Tables) -> None:
    tables.say("t1", "I prefer tea.")
    tables.extractor.run(TENANT, "t1")
    config = {"configurable": {"thread_id": "t1", "tenant": TENANT, "user_id": USER}}
    checkpoint = tables.graph.update_state(config, {"messages": []})["configurable"][
        "checkpoint_id"
    ]
    (run,) = tables.extractor.run(TENANT, "t1").runs
    assert run.skipped == "nothing new" and run.model_calls == 0
    (status,) = tables.extractor.status(TENANT, "t1")
    assert status.checkpoint_id == status.newest_checkpoint_id == checkpoint
