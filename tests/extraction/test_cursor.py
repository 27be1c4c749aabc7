"""The cursor's rules, on the emulation: one runner at a time; a runner whose lease
lapsed cannot move it, even back to where it read it; an advance retried after its
answer was lost is recognised as applied."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langgraph.store.dynamodb.extraction.engine.cursor import Cursors, LeaseLostError
from langgraph.store.dynamodb.testing import mock_aws

from tests.fault.layer import TIMEOUT_AFTER, FaultLayer

from .conftest import TABLE, TENANT, Tables, open_tables


@pytest.fixture
def cursors() -> Iterator[tuple[Tables, Cursors]]:
    with mock_aws(), open_tables() as tables:
        yield tables, Cursors(tables.store.client, TABLE)


def test_one_runner_at_a_time_and_a_lapsed_one_cannot_move_it(
    cursors: tuple[Tables, Cursors],
) -> None:
    _, table = cursors
    a = table.acquire(TENANT, "t1", "facts", "a", until=100, now=0)
    assert a is not None
    assert table.acquire(TENANT, "t1", "facts", "b", until=150, now=50) is None
    b = table.acquire(TENANT, "t1", "facts", "b", until=300, now=101)  # a's lease lapsed
    assert b is not None
    moved = table.advance(
        b, "b", checkpoint_id="c2", message_id="m4", memories=1, lag=0, error=None, now=102
    )
    with pytest.raises(LeaseLostError):  # a would move it back to nothing processed
        table.advance(
            a, "a", checkpoint_id="c1", message_id="m2", memories=1, lag=0, error=None, now=103
        )
    later = table.advance(
        moved, "b", checkpoint_id="c3", message_id="m6", memories=1, lag=0, error=None, now=104
    )
    with pytest.raises(LeaseLostError):  # b itself, from a stale read: back to c2
        table.advance(
            moved, "b", checkpoint_id="c2", message_id="m4", memories=0, lag=0, error=None, now=105
        )
    (now,) = table.of_tenant(TENANT, "t1")
    assert (
        (now.checkpoint_id, now.message_id, now.advances)
        == ("c3", "m6", later.advances)
        == ("c3", "m6", 2)
    )
    assert now.memory_count == 2


def test_an_advance_whose_answer_was_lost_is_not_a_lost_lease(
    cursors: tuple[Tables, Cursors],
) -> None:
    tables, table = cursors
    cursor = table.acquire(TENANT, "t1", "facts", "a", until=100, now=0)
    assert cursor is not None
    once = {"done": False}

    def first_update(operation: str, _: object) -> bool:
        hit = operation == "UpdateItem" and not once["done"]
        once["done"] = once["done"] or hit
        return hit

    layer = FaultLayer(tables.store.client, rate=1.0, kinds=(TIMEOUT_AFTER,), when=first_update)
    moved = table.advance(
        cursor, "a", checkpoint_id="c1", message_id="m2", memories=2, lag=0, error=None, now=1
    )
    assert layer.injected[TIMEOUT_AFTER] == 1
    assert (moved.checkpoint_id, moved.advances, moved.memory_count) == ("c1", 1, 2)
