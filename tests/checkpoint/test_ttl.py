"""TTL per thread: rows expire through DynamoDB's TTL, are invisible once expired (before
the sweep), and reading a thread keeps everything its latest checkpoint needs alive."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.testing import expire_ttl_items

from tests.checkpoint.conftest import TABLE
from tests.checkpoint.graphs import chat_graph, say
from tests.checkpoint.rows_of import all_rows
from tests.support import FakeClock, RequestCounter

CONFIG = {"configurable": {"thread_id": "t"}}


@pytest.fixture
def expiring(emulation: None, clock: FakeClock) -> Iterator[DynamoDBSaver]:
    ttl = {"default_ttl": 10.0, "refresh_on_read": True}
    with DynamoDBSaver.from_table(TABLE, region_name="us-east-1", setup=True, ttl=ttl) as saver:
        yield saver


def test_expired_threads_are_invisible_before_the_sweep_and_gone_after(
    expiring: DynamoDBSaver, clock: FakeClock
) -> None:
    chat_graph(expiring).invoke(say("hi"), CONFIG)
    assert expiring.get_tuple(CONFIG) is not None
    clock.advance(10 * 60 + 1)
    assert expiring.get_tuple(CONFIG) is None
    assert list(expiring.list(CONFIG)) == []
    assert expire_ttl_items(TABLE, now=clock.now()) > 0
    assert all_rows(expiring.client, TABLE) == [(".t/", "t")]
    clock.advance(10 * 60)  # the registry row outlives the thread by a TTL at most
    expire_ttl_items(TABLE, now=clock.now())
    assert all_rows(expiring.client, TABLE) == []


def test_reading_a_thread_keeps_what_its_latest_checkpoint_needs_alive(
    expiring: DynamoDBSaver, clock: FakeClock
) -> None:
    graph = chat_graph(expiring)
    graph.invoke(say("first"), CONFIG)
    for _ in range(4):  # read every 4 minutes: 16 minutes in all, past the 10-minute TTL
        clock.advance(4 * 60)
        assert expiring.get_tuple(CONFIG) is not None
    expire_ttl_items(TABLE, now=clock.now())
    state = graph.get_state(CONFIG)
    assert [m.content for m in state.values["messages"]] == ["first", "echo first"]
    assert state.values["turns"] == 1
    assert "t" in expiring.threads()


def test_a_read_writes_nothing_until_a_tenth_of_the_ttl_has_passed(
    expiring: DynamoDBSaver, clock: FakeClock
) -> None:
    chat_graph(expiring).invoke(say("hi"), CONFIG)
    counter = RequestCounter(expiring.client)
    clock.advance(30)
    expiring.get_tuple(CONFIG)
    assert "TransactWriteItems" not in counter.calls
    clock.advance(60)
    expiring.get_tuple(CONFIG)
    assert counter.calls["TransactWriteItems"] == 1


def test_a_thread_restored_without_a_ttl_stays_listed_only_while_its_rows_live(
    expiring: DynamoDBSaver, clock: FakeClock
) -> None:
    chat_graph(expiring).invoke(say("hi"), CONFIG)
    rows = expiring.thread_rows("t")
    with DynamoDBSaver(TABLE, region_name="us-east-1") as plain:
        plain.write_thread_rows("copy", rows)
        assert set(plain.threads()) == {"t", "copy"}
        clock.advance(10 * 60 + 1)
        expire_ttl_items(TABLE, now=clock.now())
        assert plain.threads() == ["t"]  # its registry row outlives it by a TTL at most
        clock.advance(10 * 60)
        expire_ttl_items(TABLE, now=clock.now())
        assert plain.threads() == []


def test_deleting_or_pruning_a_thread_also_removes_its_expired_rows(
    expiring: DynamoDBSaver, clock: FakeClock
) -> None:
    graph = chat_graph(expiring)
    graph.invoke(say("old"), CONFIG)
    graph.invoke(say("old too"), {"configurable": {"thread_id": "u"}})
    clock.advance(10 * 60 + 1)  # expired, not yet swept
    graph.invoke(say("new"), {"configurable": {"thread_id": "u"}})
    expiring.prune(["u"])
    expiring.delete_thread("t")
    left = [pk for pk, _ in all_rows(expiring.client, TABLE)]
    assert not [pk for pk in left if pk.endswith("/t")]
    assert expiring.get_tuple({"configurable": {"thread_id": "u"}}) is not None
    assert len([pk for pk in left if pk.endswith("/u")]) <= 8
