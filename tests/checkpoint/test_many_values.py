"""Many and large values: a put of more channels than one TransactWriteItems takes (100
actions) and the reads that slide their expiry; pending writes that fill the checkpoint
row past DynamoDB's 400 KB item limit; chunked writes replayed; `prune` next to chunked
values, metadata, checkpoints and writes; and keys too long for DynamoDB, refused before
the first request."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.dynamodb import DynamoDBSaver, KeyTooLongError
from langgraph.checkpoint.serde.types import INTERRUPT
from langgraph.store.dynamodb.table.schema import (
    CHUNKS_FIELD,
    COUNT,
    EXPIRES_AT,
    EXTERNAL,
    PK,
    SK,
    WRITE_PREFIX,
)
from langgraph.store.dynamodb.table.thread_keys import chunk_sk

from tests.checkpoint.conftest import TABLE
from tests.checkpoint.rows_of import all_rows, full_rows
from tests.checkpoint.steps import config, ids, step
from tests.support import FakeClock, RequestCounter


@pytest.fixture
def expiring(clock: FakeClock, emulation: None) -> Iterator[DynamoDBSaver]:
    with DynamoDBSaver.from_table(
        TABLE, region_name="us-east-1", setup=True, ttl={"default_ttl": 60}
    ) as saver:
        yield saver


def channels(count: int, value: Any = None) -> dict[str, Any]:
    return {f"ch{i:03d}": i if value is None else value for i in range(count)}


def wide(count: int, sign: int = 1) -> dict[str, Any]:
    """`count` channels of 3 KB each: a checkpoint row holds 59 inline, the rest are rows."""
    return {f"ch{i:03d}": str(sign * i).ljust(3_000, ".") for i in range(count)}


def test_puts_past_one_transaction_commit_every_value_and_reads_slide_them_all(
    expiring: DynamoDBSaver, clock: FakeClock
) -> None:
    saver = expiring
    counter = RequestCounter(saver.client)
    # 98 value rows and the registry, then the checkpoint row alone: past 16 KB a
    # transaction would bill every unit twice
    step(saver, config("fits"), wide(157))
    assert counter.calls == {"BatchWriteItem": 4, "UpdateItem": 1}

    first = step(saver, config("many"), wide(170))
    found = saver.get_tuple(config("many"))
    assert found is not None and found.checkpoint["channel_values"] == wide(170)
    changed = wide(120, sign=-1)
    second = step(saver, first, changed, parent=found)
    latest = saver.get_tuple(config("many"))
    assert latest is not None
    assert latest.checkpoint["channel_values"] == {**wide(170), **changed}
    assert ids(saver.list(config("many"))) == [
        second["configurable"]["checkpoint_id"],
        first["configurable"]["checkpoint_id"],
    ]

    clock.advance(7 * 60)  # past a tenth of the TTL: the next read slides 112 rows
    assert saver.get_tuple(config("many")) == latest
    slid = clock.now() + 59 * 60
    rows = {r[SK]: r for r in full_rows(saver.client, TABLE) if r[PK] == ".t//many"}
    latest_sk = f"c##{second['configurable']['checkpoint_id']}"
    versions = latest.checkpoint["channel_versions"]
    needed = [latest_sk] + [f"b##{name}#{versions[name]}" for name in rows[latest_sk][EXTERNAL]]
    assert len(needed) == 112 and all(float(rows[sk][EXPIRES_AT]) > slid for sk in needed)
    older = [sk for sk in rows if sk not in needed]  # the first checkpoint, 61 old values
    assert len(older) == 62 and all(float(rows[sk][EXPIRES_AT]) < slid for sk in older)


def test_pending_writes_past_the_item_limit_move_to_chunks(saver: DynamoDBSaver) -> None:
    stored = step(saver, config("w"), {"a": 1})
    expected = []
    for task in range(30):  # 15 KB each: inline until the row would pass 400 KB
        value = f"{task:02d}" * 7_500
        saver.put_writes(stored, [("a", value), ("b", task)], f"task-{task:02d}")
        expected += [(f"task-{task:02d}", "a", value), (f"task-{task:02d}", "b", task)]
    found = saver.get_tuple(stored)
    assert found is not None and found.pending_writes == expected
    assert len([sk for pk, sk in all_rows(saver.client, TABLE) if sk.startswith("z#")]) >= 3

    fresh = step(saver, config("bulk"), {"a": 1})
    bulk = [(f"c{i:02d}", str(i % 10) * 15_000) for i in range(30)]  # 450 KB in one call
    saver.put_writes(fresh, bulk, "task")
    found = saver.get_tuple(fresh)
    assert found is not None
    assert found.pending_writes == [("task", channel, value) for channel, value in bulk]


def test_a_replayed_chunked_write_keeps_the_kept_writes_chunks(saver: DynamoDBSaver) -> None:
    stored = step(saver, config("r"), {"a": 1})
    first, second = "x" * 40_000, "y" * 40_000  # one chunk row each
    saver.put_writes(stored, [("a", first), (INTERRUPT, "i" * 40_000)], "task")
    replaced = write_chunks(saver, "r")
    saver.put_writes(stored, [("a", second), (INTERRUPT, "j" * 40_000)], "task")
    found = saver.get_tuple(stored)
    assert found is not None
    assert found.pending_writes == [("task", INTERRUPT, "j" * 40_000), ("task", "a", first)]
    referred, stored_chunks = write_chunks(saver, "r"), chunk_rows(saver, "r")
    assert len(referred) == 2 and referred <= stored_chunks
    assert not (replaced - referred) & stored_chunks  # the replaced interrupt's chunk went
    saver.put_writes(stored, [("a", second), (INTERRUPT, "small")], "task")
    found = saver.get_tuple(stored)
    assert found is not None
    assert found.pending_writes == [("task", INTERRUPT, "small"), ("task", "a", first)]
    assert write_chunks(saver, "r") <= chunk_rows(saver, "r")
    # The second ordinary write lost to the first: its chunk is unreferenced. DynamoDB's
    # UPDATED_OLD names the kept attribute and the saver deletes the chunk at once; the
    # emulation (moto) names only changed attributes, so prune is what collects it here.
    saver.prune(["r"])
    assert chunk_rows(saver, "r") == write_chunks(saver, "r")
    assert saver.get_tuple(stored) == found


def chunk_rows(saver: DynamoDBSaver, thread: str) -> set[str]:
    """The sort keys of the thread's chunk rows."""
    return {
        sk
        for pk, sk in all_rows(saver.client, TABLE)
        if pk == f".t//{thread}" and sk.startswith("z#")
    }


def write_chunks(saver: DynamoDBSaver, thread: str) -> set[str]:
    """The chunk rows the thread's stored pending writes refer to."""
    keys = set()
    for row in full_rows(saver.client, TABLE):
        if row[PK] != f".t//{thread}" or not row[SK].startswith("c#"):
            continue
        for name, entry in row.items():
            if name.startswith(WRITE_PREFIX) and CHUNKS_FIELD in entry:
                keys |= {
                    chunk_sk(row[SK], entry[CHUNKS_FIELD], i) for i in range(int(entry[COUNT]))
                }
    return keys


def test_prune_keeps_every_chunk_the_latest_state_needs(saver: DynamoDBSaver) -> None:
    big = os.urandom(400_000)  # two chunk rows
    seen = {"node": {f"channel-{i:05d}": f"{i:032}" for i in range(3_000)}}  # ~150 KB
    c1 = step(saver, config("p"), {"big": big, "a": 1})
    saver.put_writes(c1, [("a", "w" * 20_000)], "task-1")
    c2 = step(saver, c1, {"a": 2}, parent=saver.get_tuple(c1))
    c3 = step(
        saver,
        c2,
        {"a": 3},
        {"note": "m" * 150_000},
        parent=saver.get_tuple(c2),
        versions_seen=seen,
    )
    saver.put_writes(c3, [("a", "v" * 20_000), (INTERRUPT, "i" * 20_000)], "task-3")
    before = saver.get_tuple(config("p"))
    assert before is not None and before.checkpoint["versions_seen"] == seen
    assert before.checkpoint["channel_values"] == {"big": big, "a": 3}
    kinds = [sk[:2] for pk, sk in all_rows(saver.client, TABLE) if pk == ".t//p"]
    assert kinds.count("z#") == 1 + 2 + 1 + 1 + 2  # write 1, big, note, versions, writes 3

    saver.prune(["p"])
    after = saver.get_tuple(config("p"))
    assert after == before
    assert saver.count_checkpoints("p") == 1
    left = sorted(sk[:2] for pk, sk in all_rows(saver.client, TABLE) if pk == ".t//p")
    # the latest (a inline) and its writes row, big's value row from c1 and its 2 chunks,
    # note's, the checkpoint's and its two writes' 1 chunk each: nothing older, nothing
    # needed lost
    assert left == ["b#", "c#", "c#"] + ["z#"] * 6


def test_a_checkpoint_row_at_every_inline_limit_at_once_stays_under_the_item_limit(
    saver: DynamoDBSaver,
) -> None:
    # The checkpoint (1,680 channel versions) and the metadata just under the 100 KB each
    # keeps inline, and values up to the 180 KB the row holds: with their names, past
    # DynamoDB's 400 KB unless the values' room is what the rest leaves.
    values: dict[str, Any] = {f"c{i:04d}": i % 10 for i in range(1_680)}
    values["messages"] = "x" * 178_000
    stored = step(saver, config("edge"), values, {"note": "m" * 99_900})
    found = saver.get_tuple(stored)
    assert found is not None and found.checkpoint["channel_values"] == values


def test_chunked_metadata_reads_back_and_filters(saver: DynamoDBSaver) -> None:
    note = "m" * 150_000  # past the 100 KB a checkpoint row keeps inline: chunk rows
    made, after = [], config("md")
    for i, source in enumerate(["input", "loop", "loop", "update"]):
        parent = saver.get_tuple(after) if made else None
        after = step(saver, after, {"a": i}, {"source": source, "step": i, "note": note}, parent)
        made.append(after["configurable"]["checkpoint_id"])
    found = saver.get_tuple(config("md"))
    assert found is not None and found.metadata == {"source": "update", "step": 3, "note": note}
    loops = list(saver.list(config("md"), filter={"source": "loop"}))
    assert ids(loops) == [made[2], made[1]]
    assert [t.metadata["step"] for t in loops] == [2, 1]
    assert ids(saver.list(config("md"), filter={"source": "loop", "step": 1})) == [made[1]]
    assert ids(saver.list(config("md"), filter={"note": "other"})) == []


def _checkpoint(values: dict[str, Any], version: str = "1") -> tuple[Any, dict[str, str]]:
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = values
    checkpoint["channel_versions"] = {name: version for name in values}
    return checkpoint, dict(checkpoint["channel_versions"])


LONG_CASES = {
    # b##<channel>#1: 1,025 bytes (a value too large to sit in the checkpoint row)
    "value row": (config("t"), {"c" * 1_020: b"\x00" * 190_000}, {}),
    # b##<channel>#1 is 1,020 bytes, its chunks' keys 1,030
    "value chunk": (config("t"), {"c" * 1_015: b"\x00" * 400_000}, {}),
    # the thread registry row's sort key is the thread id
    "registry row": (config("t" * 1_100), {"a": 1}, {}),
    # the run index partition is .r/<tenant>/<run id>
    "run index partition": (config("t"), {"a": 1}, {"run_id": "r" * 2_100}),
    # the run index sort key is <thread id>#<ns>: 1,025 bytes
    "run index row": (config("t" * 1_024), {"a": 1}, {"run_id": "run-1"}),
}


@pytest.mark.parametrize("case", list(LONG_CASES))
def test_keys_too_long_are_refused_before_the_first_request(
    saver: DynamoDBSaver, case: str
) -> None:
    cfg, values, metadata = LONG_CASES[case]
    checkpoint, versions = _checkpoint(values)
    before = all_rows(saver.client, TABLE)
    counter = RequestCounter(saver.client)
    with pytest.raises(KeyTooLongError, match="DynamoDB allows"):
        saver.put(cfg, checkpoint, metadata, versions)
    assert counter.total == 0
    assert all_rows(saver.client, TABLE) == before


def test_a_copy_into_a_thread_id_too_long_writes_nothing(saver: DynamoDBSaver) -> None:
    source = step(saver, config("src"), {"a": 1, "big": b"\x01" * 400_000}, run("1"))
    step(saver, source, {"a": 2}, run("2"), parent=saver.get_tuple(source))
    before = all_rows(saver.client, TABLE)
    counter = RequestCounter(saver.client)
    with pytest.raises(KeyTooLongError, match="DynamoDB allows"):
        saver.copy_thread("src", "t" * 1_100)  # the registry row's key is the thread id
    with pytest.raises(KeyTooLongError, match="DynamoDB allows"):
        saver.write_thread_rows("t" * 1_100, saver.thread_rows("src"))
    assert "BatchWriteItem" not in counter.calls
    assert all_rows(saver.client, TABLE) == before
    assert saver.threads() == ["src"]


def run(name: str) -> dict[str, Any]:
    return {"run_id": f"run-{name}"}
