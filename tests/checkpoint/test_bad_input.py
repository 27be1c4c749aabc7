"""Bad input: a clear error and nothing written (no request at all where the input alone
is wrong)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.dynamodb import (
    DynamoDBSaver,
    KeyTooLongError,
    ThreadFullError,
    UnserializableValueError,
)
from langgraph.store.dynamodb.table.errors import TableNotFoundError
from langgraph.store.dynamodb.testing import EmulatorSettings, mock_aws

from tests.checkpoint.conftest import TABLE
from tests.checkpoint.rows_of import all_rows
from tests.support import RequestCounter


def _checkpoint(values: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = values
    versions = {k: 1 for k in values}
    checkpoint["channel_versions"] = versions
    return checkpoint, versions


def _config(thread: str = "t", **extra: Any) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread, "checkpoint_ns": "", **extra}}


def test_a_missing_thread_id_is_refused_before_any_request(saver: DynamoDBSaver) -> None:
    counter = RequestCounter(saver.client)
    checkpoint, versions = _checkpoint({"a": 1})
    for config in ({"configurable": {}}, {}, {"configurable": {"thread_id": ""}}):
        with pytest.raises(ValueError, match="thread_id"):
            saver.put(config, checkpoint, {}, versions)
        with pytest.raises(ValueError, match="thread_id"):
            saver.get_tuple(config)
        with pytest.raises(ValueError, match="thread_id"):
            list(saver.list(config))
    assert counter.total == 0


def test_put_writes_without_a_checkpoint_id_is_refused(saver: DynamoDBSaver) -> None:
    counter = RequestCounter(saver.client)
    with pytest.raises(ValueError, match="checkpoint_id"):
        saver.put_writes(_config(), [("a", 1)], "task")
    assert counter.total == 0


@pytest.mark.parametrize(
    "config",
    [_config("x" * 2100), _config(checkpoint_ns="n" * 1100)],
    ids=["thread id", "checkpoint namespace"],
)
def test_keys_too_long_are_refused_before_any_write(
    saver: DynamoDBSaver, config: dict[str, Any]
) -> None:
    counter = RequestCounter(saver.client)
    checkpoint, versions = _checkpoint({"a": 1})
    with pytest.raises(KeyTooLongError, match="DynamoDB allows"):
        saver.put(config, checkpoint, {}, versions)
    assert counter.total == 0


def test_a_task_id_too_long_is_refused_before_any_write(saver: DynamoDBSaver) -> None:
    checkpoint, versions = _checkpoint({"a": 1})
    stored = saver.put(_config(), checkpoint, {}, versions)
    counter = RequestCounter(saver.client)
    with pytest.raises(KeyTooLongError):
        saver.put_writes(stored, [("a", "x" * 20_000)], "t" * 1000)
    assert counter.total == 0


def test_an_unknown_prune_strategy_is_refused(saver: DynamoDBSaver) -> None:
    counter = RequestCounter(saver.client)
    with pytest.raises(ValueError, match="keep_latest, delete"):
        saver.prune(["t"], strategy="oldest")
    assert counter.total == 0


def test_a_value_the_serializer_cannot_encode_writes_nothing(saver: DynamoDBSaver) -> None:
    before = all_rows(saver.client, TABLE)
    checkpoint, versions = _checkpoint({"ok": 1, "lock": threading.Lock()})
    with pytest.raises(UnserializableValueError, match="channel 'lock'"):
        saver.put(_config(), checkpoint, {}, versions)
    checkpoint, versions = _checkpoint({"ok": 1})
    stored = saver.put(_config(), checkpoint, {}, versions)
    rows = all_rows(saver.client, TABLE)
    with pytest.raises(UnserializableValueError, match="task 'task'"):
        saver.put_writes(stored, [("ok", 2), ("bad", threading.Lock())], "task")
    assert all_rows(saver.client, TABLE) == rows != before


def test_a_missing_table_says_to_run_setup(emulation: None) -> None:
    with DynamoDBSaver("never-created", region_name="us-east-1") as saver:
        with pytest.raises(TableNotFoundError, match="setup"):
            saver.get_tuple(_config())
        checkpoint, versions = _checkpoint({"a": 1})
        with pytest.raises(TableNotFoundError, match="setup"):
            saver.put(_config(), checkpoint, {}, versions)


def test_a_thread_past_the_partition_limit_is_named() -> None:
    small = EmulatorSettings(item_collection_size_limit=200_000)
    with (
        mock_aws(settings=small),
        DynamoDBSaver.from_table(TABLE, region_name="us-east-1", setup=True) as saver,
    ):
        config = _config("heavy")
        with pytest.raises(ThreadFullError, match="thread 'heavy'"):
            for step in range(20):
                checkpoint, versions = _checkpoint({"a": "x" * 30_000})
                versions = {"a": step + 1}
                checkpoint["channel_versions"] = versions
                config = saver.put(config, checkpoint, {}, versions)
        assert saver.get_tuple(_config("heavy")) is not None


def test_writes_that_land_before_their_checkpoint_are_kept(saver: DynamoDBSaver) -> None:
    # LangGraph submits a step's writes while the checkpoint they belong to may still be
    # saving: the checkpoint's row must keep what put_writes stored first.
    checkpoint, versions = _checkpoint({"a": 1})
    early = _config(checkpoint_id=checkpoint["id"])
    saver.put_writes(early, [("a", 2)], "task")
    assert saver.get_tuple(early) is None  # writes alone are no checkpoint
    saver.put(_config(), checkpoint, {}, versions)
    found = saver.get_tuple(early)
    assert found is not None and found.pending_writes == [("task", "a", 2)]


async def test_a_closed_saver_says_so(emulation: None) -> None:
    saver = DynamoDBSaver(TABLE, region_name="us-east-1")
    saver.close()
    with pytest.raises(RuntimeError, match="closed"):
        await saver.aget_tuple(_config())
    with pytest.raises(RuntimeError, match="closed"):
        saver.get_tuple(_config())
    with pytest.raises(RuntimeError, match="closed"):
        [t async for t in saver.alist(_config())]
