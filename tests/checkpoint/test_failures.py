"""Writes that fail or race: a put past one transaction refused at its commit, a
`put_writes` whose update is refused, and a read whose expiry slide meets a row deleted
meanwhile. Each leaves no row behind (or revives none) and says what happened once."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from langgraph.checkpoint.dynamodb import DynamoDBSaver

from tests.checkpoint.conftest import TABLE
from tests.checkpoint.rows_of import all_rows
from tests.checkpoint.steps import config, step
from tests.fault.layer import FaultLayer, fail_requests
from tests.support import FakeClock, RequestCounter


def test_a_put_whose_value_rows_go_first_refused_at_its_commit_leaves_no_row(
    saver: DynamoDBSaver,
) -> None:
    first = step(saver, config("t"), {"kept": 1})
    parent = saver.get_tuple(first)
    before = all_rows(saver.client, TABLE)
    layer = FaultLayer(
        saver.client,
        rate=1.0,
        kinds=("ValidationException",),
        when=lambda operation, _: operation == "UpdateItem",
    )
    # Past what a checkpoint row holds inline: the value rows go first, then the checkpoint
    # row alone (its UpdateItem, the commit).
    many = {f"ch{i:03d}": f"{i}" * 3_000 for i in range(150)}
    with pytest.raises(ClientError):
        step(saver, first, many, parent=parent)
    layer.remove()
    assert all_rows(saver.client, TABLE) == before
    latest = saver.get_tuple(config("t"))
    assert latest is not None and latest.checkpoint["channel_values"] == {"kept": 1}


def test_a_refused_put_writes_leaves_no_chunk_row(saver: DynamoDBSaver) -> None:
    stored = step(saver, config("t"), {"a": 1})
    before = all_rows(saver.client, TABLE)
    fail_requests(saver.client, "ValidationException", lambda op, _: op == "UpdateItem")
    with pytest.raises(ClientError):
        saver.put_writes(stored, [("a", "x" * 40_000), ("b", 1)], "task")
    assert all_rows(saver.client, TABLE) == before


@pytest.fixture
def expiring(clock: FakeClock, emulation: None) -> Iterator[DynamoDBSaver]:
    with DynamoDBSaver.from_table(
        TABLE, region_name="us-east-1", setup=True, ttl={"default_ttl": 60}
    ) as saver:
        yield saver


def test_a_read_whose_slide_meets_a_deleted_row_returns_and_revives_nothing(
    expiring: DynamoDBSaver, clock: FakeClock
) -> None:
    saver = expiring
    stored = step(saver, config("t"), {"a": 1, "b": 2})
    key = {"PK": {"S": ".t//t"}, "SK": {"S": f"c##{stored['configurable']['checkpoint_id']}"}}
    other = boto3.client("dynamodb", region_name="us-east-1")
    deleted: list[Any] = []

    def delete_first(operation: str, _: dict[str, Any]) -> bool:
        if operation == "TransactWriteItems" and not deleted:
            deleted.append(other.delete_item(TableName=TABLE, Key=key))  # a delete_thread
        return False

    FaultLayer(saver.client, rate=0.0, when=delete_first)
    clock.advance(7 * 60)  # past a tenth of the TTL: this read slides its rows
    counter = RequestCounter(saver.client)
    found = saver.get_tuple(config("t"))
    assert deleted and found is not None  # what it read before the delete
    assert counter.calls["TransactWriteItems"] == 1  # cancelled for the gone row: not retried
    assert saver.get_tuple(config("t")) is None  # the slide revived nothing
