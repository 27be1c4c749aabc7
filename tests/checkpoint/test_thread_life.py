"""A thread keeps what its latest checkpoint needs: whatever `refresh_on_read` is and
whatever TTL settings the savers writing it use, the latest checkpoint reads back whole
and the thread stays listed; every request that can create a thread row registers the
thread (a put, a `put_writes` that lands before its put, after a refused first put or
after the thread was deleted)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.dynamodb import CheckpointTTL, DynamoDBSaver
from langgraph.checkpoint.dynamodb.known import TRUST_SECONDS
from langgraph.store.dynamodb.table.schema import EXPIRES_AT, PK, SK
from langgraph.store.dynamodb.table.thread_keys import Thread, registry_pk
from langgraph.store.dynamodb.testing import expire_ttl_items

from tests.checkpoint.conftest import TABLE
from tests.checkpoint.notes import BIG_NOTES, config, notes_graph, texts, turn
from tests.checkpoint.rows_of import full_rows
from tests.checkpoint.steps import step
from tests.fault.layer import FaultLayer
from tests.support import FakeClock

MINUTE = 60
NO_REFRESH: CheckpointTTL = {"default_ttl": 10.0, "refresh_on_read": False}


def saver_with(ttl: CheckpointTTL | None) -> DynamoDBSaver:
    return DynamoDBSaver(TABLE, region_name="us-east-1", ttl=ttl)


@pytest.fixture
def table(emulation: None, clock: FakeClock) -> Iterator[None]:
    with DynamoDBSaver.from_table(TABLE, region_name="us-east-1", setup=True):
        yield


@pytest.mark.parametrize("notes", ["small notes", BIG_NOTES], ids=["inline", "chunked"])
def test_a_turn_every_four_minutes_keeps_the_latest_checkpoint_whole_without_refresh(
    table: None, clock: FakeClock, notes: str
) -> None:
    with saver_with(NO_REFRESH) as saver:
        graph = notes_graph(saver)
        t = config("t")
        turn(graph, t, "turn 0", "run-0", notes=notes)
        for n in range(1, 4):  # turns at 4, 8 and 12 minutes; `notes` never changes again
            clock.advance(4 * MINUTE)
            turn(graph, t, f"turn {n}", f"run-{n}")
        clock.advance(MINUTE)
        expire_ttl_items(TABLE, now=clock.now())
        state = graph.get_state(t)
        assert state.values["notes"] == notes
        assert state.values["turns"] == 4
        assert texts(graph, t)[-1] == "echo turn 3"
        assert saver.threads() == ["t"]


@pytest.mark.parametrize("first_ttl", [NO_REFRESH, None], ids=["ttl-first", "plain-first"])
def test_savers_with_and_without_a_ttl_writing_one_thread_keep_what_its_latest_needs(
    table: None, clock: FakeClock, first_ttl: CheckpointTTL | None
) -> None:
    # The README's pattern: one process with a TTL, "another process" with none.
    other_ttl = None if first_ttl else NO_REFRESH
    with saver_with(first_ttl) as first, saver_with(other_ttl) as other:
        t = config("t")
        turn(notes_graph(first), t, "turn 0", "run-0", notes=BIG_NOTES)
        for n in range(1, 4):
            clock.advance(4 * MINUTE)
            turn(notes_graph(other if n % 2 else first), t, f"turn {n}", f"run-{n}")
        clock.advance(MINUTE)
        expire_ttl_items(TABLE, now=clock.now())
        for saver in (first, other):
            state = notes_graph(saver).get_state(t)
            assert state.values["notes"] == BIG_NOTES
            assert state.values["turns"] == 4
            assert saver.threads() == ["t"]


def test_an_active_thread_stays_registered_as_long_as_its_latest_checkpoint(
    table: None, clock: FakeClock
) -> None:
    with saver_with(NO_REFRESH) as saver:
        graph = notes_graph(saver)
        for n in range(6):  # 20 minutes of turns, twice the TTL; puts keep it registered
            state = {"messages": [HumanMessage(f"turn {n}")]}
            graph.invoke(
                state, {**config("t"), "metadata": {"run_id": f"run-{n}"}}, durability="sync"
            )
            clock.advance(4 * MINUTE)
        expire_ttl_items(TABLE, now=clock.now())
        assert saver.threads() == ["t"]
        rows = {(r[PK], r[SK]): r for r in full_rows(saver.client, TABLE)}
        latest = saver.get_tuple(config("t"))
        assert latest is not None
        registry = rows[(registry_pk(""), "t")]
        newest = max(int(r[EXPIRES_AT]) for k, r in rows.items() if k[0] == Thread("", "t").pk)
        assert int(registry[EXPIRES_AT]) >= newest


def test_writes_landing_before_their_put_register_the_thread_and_expire(
    table: None, clock: FakeClock
) -> None:
    with saver_with(NO_REFRESH) as saver:
        ahead = {"configurable": {"thread_id": "t", "checkpoint_ns": "", "checkpoint_id": "1"}}
        saver.put_writes(ahead, [("messages", "the user's text")], "task")
        assert saver.threads() == ["t"]
        assert all(EXPIRES_AT in r for r in full_rows(saver.client, TABLE))
        clock.advance(2 * 10 * MINUTE + 1)  # the registry row outlives by a TTL
        expire_ttl_items(TABLE, now=clock.now())
        assert full_rows(saver.client, TABLE) == []


def test_writes_after_a_refused_first_put_register_the_thread(
    table: None, clock: FakeClock
) -> None:
    with saver_with(None) as saver:
        layer = FaultLayer(saver.client, rate=1.0, kinds=("ValidationException",))
        with pytest.raises(ClientError):
            step(saver, config("t"), {"messages": "hello"})
        layer.remove()
        refused = {"configurable": {"thread_id": "t", "checkpoint_ns": "", "checkpoint_id": "1"}}
        saver.put_writes(refused, [("messages", "the user's text")], "task")
        assert saver.threads() == ["t"]


def test_a_step_finishing_after_the_thread_was_deleted_registers_it_again(
    table: None, clock: FakeClock
) -> None:
    # A writer trusts the registry row it wrote for `TRUST_SECONDS`: its writes meanwhile
    # land unlisted (a tenant purge's verification lists such a thread again, and
    # `--verify-scan` finds it), and its first write past that lists the thread again.
    with saver_with(NO_REFRESH) as writer, saver_with(None) as purger:
        first = step(writer, config("t"), {"a": 1})
        parent = writer.get_tuple(first)
        purger.delete_thread("t")  # a purge, while the writer's step runs
        writer.put_writes(first, [("a", 2)], "task")
        assert purger.threads() == []
        clock.advance(TRUST_SECONDS + 1)
        step(writer, first, {"a": 2}, parent=parent)
        assert purger.threads() == ["t"]
        clock.advance(2 * 10 * MINUTE + 1)  # the registry row outlives by a TTL
        expire_ttl_items(TABLE, now=clock.now())
        assert full_rows(writer.client, TABLE) == []


def test_put_writes_trusts_a_registry_row_for_300_seconds_not_forever(
    table: None, clock: FakeClock
) -> None:
    """A thread that never expires: the registry row the writer wrote is known to live
    forever, yet another process may purge it; a put_writes past `TRUST_SECONDS` lists
    the thread again, so the next purge finds its writes."""
    with saver_with(None) as writer, saver_with(None) as purger:
        first = step(writer, config("t"), {"a": 1})
        purger.delete_thread("t")
        clock.advance(TRUST_SECONDS + 1)
        writer.put_writes(first, [("a", 2)], "task")
        assert purger.threads() == ["t"]
        purger.delete_thread("t")
        assert full_rows(writer.client, TABLE) == []


def _registry_outlives_the_rest(saver: DynamoDBSaver) -> tuple[float, float]:
    """The thread's registry row's expiry, and the latest of its other rows'."""
    rows = full_rows(saver.client, TABLE)
    registry = next(r for r in rows if (r[PK], r[SK]) == (registry_pk(""), "t"))
    others = [float(r[EXPIRES_AT]) for r in rows if r is not registry]
    return float(registry[EXPIRES_AT]), max(others)


@pytest.mark.parametrize(
    ("values", "run"),
    [({"a": 1}, "r2"), ({"a": 1, "big": "x" * 200_000}, "r1")],
    ids=["a-new-runs-index-row", "a-value-row-slid"],
)
def test_the_registry_row_never_expires_before_the_rows_a_put_kept_alive(
    table: None, clock: FakeClock, values: dict[str, Any], run: str
) -> None:
    """Five minutes in, a put writes a new run's index row, or slides a value row of
    its own (200 KB): either now expires later than the registry row the saver wrote,
    so the put extends the registry row too, and a purge lists the thread while they
    live."""
    with saver_with(NO_REFRESH) as saver:
        first = step(saver, config("t"), values, {"run_id": "r1"})
        clock.advance(5 * MINUTE)
        step(saver, first, {"a": 2}, {"run_id": run}, parent=saver.get_tuple(first))
        registry, latest = _registry_outlives_the_rest(saver)
        assert registry >= latest


def test_a_split_put_writes_the_registry_run_index_and_slides_every_kept_row(
    table: None, clock: FakeClock
) -> None:
    """A put of 16 KB or more writes its other rows first, then the checkpoint row: the
    registry row and run index row too (a purge and `delete_for_runs` find them), and
    it slides every value row the checkpoint needs, not the first alone."""
    with saver_with(NO_REFRESH) as saver, saver_with(None) as other:
        values = {"one": "1" * 200_000, "two": "2" * 200_000}  # a value row each
        first = step(saver, config("t"), values, {"run_id": "r1"})
        clock.advance(5 * MINUTE)
        parent = saver.get_tuple(first)
        newest = step(saver, first, {"a": "x" * 20_000}, {"run_id": "r2"}, parent=parent)
        rows = full_rows(saver.client, TABLE)
        [checkpoint] = [r for r in rows if r[SK].endswith(newest["configurable"]["checkpoint_id"])]
        values_rows = [r for r in rows if r[SK].startswith("b#")]
        assert len(values_rows) == 2
        assert all(r[EXPIRES_AT] >= checkpoint[EXPIRES_AT] for r in values_rows)
        assert other.threads() == ["t"]
        other.delete_for_runs(["r2"])
        assert other.get_tuple(newest) is None
