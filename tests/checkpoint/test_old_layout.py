"""Threads written by earlier versions (every channel value a row of its own, a run index
row per checkpoint; pending writes in the checkpoint row) still load, continue, list, and
are deleted by run and as a whole."""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.table import dynamo
from langgraph.store.dynamodb.table.schema import (
    CHANNEL,
    CP,
    DATA,
    IDX,
    MD,
    PATH,
    PK,
    RUN,
    SK,
    TASK,
    TYPE,
)
from langgraph.store.dynamodb.table.thread_keys import (
    Thread,
    blob_sk,
    checkpoint_sk,
    registry_pk,
    run_pk,
    run_sk,
    write_field,
)

from tests.checkpoint.conftest import TABLE
from tests.checkpoint.rows_of import all_rows
from tests.checkpoint.steps import config, ids, step

THREAD = Thread("", "old")


def write_old_thread(saver: DynamoDBSaver) -> str:
    """One checkpoint as earlier versions stored it; returns its id."""
    checkpoint: Any = empty_checkpoint()
    checkpoint["channel_versions"] = {"a": "1", "b": "1"}
    values = {"a": "kept", "b": [1, 2.5]}
    del checkpoint["channel_values"]

    def head(value: Any) -> dict[str, Any]:
        kind, data = saver.serde.dumps_typed(value)
        return {TYPE: kind, DATA: data}

    sk = checkpoint_sk("", checkpoint["id"])
    rows = [
        {PK: THREAD.pk, SK: blob_sk("", name, "1"), **head(value)} for name, value in values.items()
    ]
    rows.append(
        {
            PK: THREAD.pk,
            SK: sk,
            CP: head(checkpoint),
            MD: head({"source": "input", "step": -1}),
            RUN: "old-run",
        }
    )
    rows.append({PK: registry_pk(""), SK: "old", "tenant": "", "thread_id": "old"})
    rows.append({PK: run_pk("", "old-run"), SK: run_sk("old", "", checkpoint["id"])})
    for row in rows:
        saver.client.put_item(TableName=TABLE, Item=dynamo.serialize(row))
    return str(checkpoint["id"])


def test_a_thread_of_the_earlier_layout_loads_continues_and_is_deleted(
    saver: DynamoDBSaver,
) -> None:
    old_id = write_old_thread(saver)
    found = saver.get_tuple(config("old"))
    assert found is not None and found.checkpoint["channel_values"] == {"a": "kept", "b": [1, 2.5]}
    assert found.metadata == {"source": "input", "step": -1}
    new = step(saver, found.config, {"a": "changed"}, {"run_id": "new-run"}, parent=found)
    latest = saver.get_tuple(config("old"))
    assert latest is not None
    assert latest.checkpoint["channel_values"] == {"a": "changed", "b": [1, 2.5]}
    assert ids(saver.list(config("old"))) == [new["configurable"]["checkpoint_id"], old_id]
    saver.delete_for_runs(["old-run"])
    assert ids(saver.list(config("old"))) == [new["configurable"]["checkpoint_id"]]
    assert (run_pk("", "old-run"), run_sk("old", "", old_id)) not in all_rows(saver.client, TABLE)
    saver.prune(["old"])
    after = saver.get_tuple(config("old"))
    assert (
        after is not None
        and after.checkpoint["channel_values"] == latest.checkpoint["channel_values"]
    )
    saver.delete_thread("old")
    assert all_rows(saver.client, TABLE) == []


def test_writes_an_earlier_checkpoint_row_holds_load_beside_its_writes_row(
    saver: DynamoDBSaver,
) -> None:
    first = step(saver, config("w"), {"a": 1}, {"run_id": "r"})
    thread, sk = Thread("", "w"), checkpoint_sk("", first["configurable"]["checkpoint_id"])
    kind, data = saver.serde.dumps_typed("from before")
    entry = {TASK: "task-a", CHANNEL: "a", PATH: "", IDX: 0, TYPE: kind, DATA: data}
    saver.client.update_item(  # as earlier versions stored a write: in the checkpoint row
        TableName=TABLE,
        Key=dynamo.serialize({PK: thread.pk, SK: sk}),
        UpdateExpression="SET #w = :w",
        ExpressionAttributeNames={"#w": write_field("task-a", 0)},
        ExpressionAttributeValues=dynamo.serialize({":w": entry}),
    )
    saver.put_writes(first, [("a", "from now")], "task-b")
    found = saver.get_tuple(first)
    assert found is not None
    assert found.pending_writes == [("task-a", "a", "from before"), ("task-b", "a", "from now")]
    assert [t.pending_writes for t in saver.list(config("w"))] == [found.pending_writes]
    saver.delete_for_runs(["r"])
    assert [key for key in all_rows(saver.client, TABLE) if key[0] == thread.pk] == []
