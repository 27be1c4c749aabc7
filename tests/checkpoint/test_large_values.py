"""Values past DynamoDB's 400 KB item limit: split across rows of the thread, read back
byte for byte, no S3; a failed write leaves nothing a reader can see, and what a crash
leaves behind is collected by `prune`."""

from __future__ import annotations

import os
from typing import Any

import pytest
from botocore.exceptions import ClientError
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.dynamodb import DynamoDBSaver

from tests.checkpoint.conftest import TABLE
from tests.checkpoint.rows_of import all_rows
from tests.fault.layer import FaultLayer, fail_requests

MB = 1024 * 1024


def _put(saver: DynamoDBSaver, thread: str, values: dict[str, Any], parent: Any = None) -> Any:
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = values
    versions = {k: saver.get_next_version(None, None) for k in values}
    checkpoint["channel_versions"] = versions
    config: dict[str, Any] = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    if parent is not None:
        config["configurable"]["checkpoint_id"] = parent["configurable"]["checkpoint_id"]
    return saver.put(config, checkpoint, {"source": "loop", "step": 1}, versions)


@pytest.mark.parametrize("size", [1 * MB, 10 * MB])
def test_a_large_channel_value_and_write_round_trip_byte_for_byte(
    saver: DynamoDBSaver, size: int
) -> None:
    blob = os.urandom(size)
    stored = _put(saver, "big", {"blob": blob, "small": "x"})
    saver.put_writes(stored, [("blob", blob[::-1])], "task-1")
    found = saver.get_tuple({"configurable": {"thread_id": "big"}})
    assert found is not None
    assert found.checkpoint["channel_values"]["blob"] == blob
    assert found.checkpoint["channel_values"]["small"] == "x"
    assert found.pending_writes == [("task-1", "blob", blob[::-1])]
    rows = [sk for pk, sk in all_rows(saver.client, TABLE) if pk.startswith(".t/")]
    assert sum(sk.startswith("z#") for sk in rows) >= 2 * (size // 350_000)


def test_a_write_that_fails_at_its_commit_leaves_no_row_behind(saver: DynamoDBSaver) -> None:
    first = _put(saver, "t", {"a": "kept"})
    before = all_rows(saver.client, TABLE)
    fail_requests(
        saver.client, "ValidationException", when=lambda op, _: op == "TransactWriteItems"
    )
    with pytest.raises(ClientError):
        _put(saver, "t", {"a": os.urandom(2 * MB)}, parent=first)
    assert all_rows(saver.client, TABLE) == before
    latest = saver.get_tuple({"configurable": {"thread_id": "t"}})
    assert latest is not None and latest.checkpoint["channel_values"] == {"a": "kept"}


def test_a_write_that_fails_among_its_chunks_leaves_no_row_behind(saver: DynamoDBSaver) -> None:
    first = _put(saver, "t", {"a": "kept"})
    before = all_rows(saver.client, TABLE)
    seen = []

    def second_batch(operation: str, _: dict[str, Any]) -> bool:
        seen.append(operation)
        return operation == "BatchWriteItem" and seen.count("BatchWriteItem") == 2

    FaultLayer(saver.client, rate=1.0, kinds=("ValidationException",), when=second_batch)
    with pytest.raises(ClientError):
        _put(saver, "t", {"a": os.urandom(12 * MB)}, parent=first)
    assert all_rows(saver.client, TABLE) == before


class Crash(BaseException):
    """The process dying mid-call: no handler of the saver runs."""


def test_rows_a_crash_leaves_are_invisible_and_prune_collects_them(saver: DynamoDBSaver) -> None:
    first = _put(saver, "t", {"a": "kept"})

    def crash(operation: str, _: dict[str, Any]) -> bool:
        if operation == "TransactWriteItems":
            raise Crash
        return False

    layer = FaultLayer(saver.client, rate=0.0, when=crash)
    with pytest.raises(Crash):
        _put(saver, "t", {"a": os.urandom(2 * MB)}, parent=first)
    layer.remove()
    orphans = [sk for pk, sk in all_rows(saver.client, TABLE) if sk.startswith("z#")]
    assert orphans, "the crash should leave the chunks it had written"
    latest = saver.get_tuple({"configurable": {"thread_id": "t"}})
    assert latest is not None and latest.checkpoint["channel_values"] == {"a": "kept"}
    assert [t.checkpoint["id"] for t in saver.list({"configurable": {"thread_id": "t"}})] == [
        first["configurable"]["checkpoint_id"]
    ]
    saver.prune(["t"])
    left = [sk for pk, sk in all_rows(saver.client, TABLE) if pk.endswith("/t")]
    assert not [sk for sk in left if sk.startswith("z#")]
    assert len(left) == 1  # the latest checkpoint, its one small value inline
