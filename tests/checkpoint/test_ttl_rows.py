"""TTL on every row a thread owns: each kind of row (checkpoint, channel value, chunk,
thread registry, run index) is written with the saver's expiry; a read slides everything
its checkpoint needs, as soon as any of it is due; a copy or a restore expires a TTL after
it was made; a thread read through several TTLs keeps its large values; and a thread left
alone for a TTL leaves no row behind, however it was written."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.dynamodb import CheckpointTTL, DynamoDBSaver
from langgraph.store.dynamodb.table.schema import (
    BLOB,
    CHECKPOINT,
    CHUNK,
    EXPIRES_AT,
    PK,
    RUN,
    RUN_KIND,
    RUN_LINK,
    SK,
    THREAD_KIND,
    TTL_MINUTES,
    VALUES,
)
from langgraph.store.dynamodb.table.thread_keys import (
    Thread,
    blob_sk,
    checkpoint_sk,
    is_writes_sk,
    parse_checkpoint_sk,
    parse_run_sk,
    registry_pk,
    run_link_sk,
    run_pk,
    run_sk,
    writes_sk,
)
from langgraph.store.dynamodb.testing import expire_ttl_items

from tests.checkpoint.conftest import TABLE
from tests.checkpoint.notes import BIG_NOTES, BIG_WRITE, config, notes_graph, texts, turn
from tests.checkpoint.rows_of import full_rows
from tests.support import FakeClock

TTL_MINUTES_SET = 10
TTL = TTL_MINUTES_SET * 60
TENTH = TTL // 10
Row = dict[str, Any]
KEPT = ("registry", "run index", "run link")
Key = tuple[str, str]


@pytest.fixture
def expiring(emulation: None, clock: FakeClock) -> Iterator[DynamoDBSaver]:
    ttl = {"default_ttl": float(TTL_MINUTES_SET), "refresh_on_read": True}
    with DynamoDBSaver.from_table(TABLE, region_name="us-east-1", setup=True, ttl=ttl) as saver:
        yield saver


def kind(row: Row) -> str:
    """What a thread row is, told by its key."""
    pk, sk = str(row[PK]), str(row[SK])
    if pk.startswith(RUN_KIND):
        return "run index"
    if "/" not in pk.removeprefix(THREAD_KIND):
        return "registry"
    if sk.startswith(RUN_LINK):
        return "run link"
    if sk.startswith(CHUNK):
        if is_writes_sk(owner_sk(sk)):
            return "chunk of writes"
        return "chunk of a value" if sk.startswith(CHUNK + BLOB) else "chunk of a checkpoint"
    if is_writes_sk(sk):
        return "writes"
    return {CHECKPOINT: "checkpoint", BLOB: "value"}[sk[: len(CHECKPOINT)]]


def thread_of(row: Row) -> str:
    """The thread id a row belongs to (tenant ""), whatever its kind."""
    pk, sk = str(row[PK]), str(row[SK])
    if kind(row) == "run index":
        return parse_run_sk(sk)[0]
    if kind(row) == "registry":
        return sk
    return pk.removeprefix(Thread("", "").pk)


def of_thread(rows: list[Row], thread: str) -> list[Row]:
    return [r for r in rows if thread_of(r) == thread]


def owner_sk(chunk_sk: str) -> str:
    """The sort key of the row whose value a chunk row holds (`thread_keys.chunk_sk`)."""
    return chunk_sk.removeprefix(CHUNK).rsplit("#", 2)[0]


def check_expiries(rows: list[Row]) -> Counter[str]:
    """Every row carries the saver's TTL; a chunk expires no earlier than the row it holds
    a value of, a run index row no earlier than its checkpoint and with its run link, a
    thread's registry row (which lists it for a purge) no earlier than any row of the
    thread. Returns the rows by kind."""
    by_key = {(r[PK], r[SK]): r for r in rows}
    for row in rows:
        assert EXPIRES_AT in row and row.get(TTL_MINUTES) == TTL_MINUTES_SET, (kind(row), row)
    for row in rows:
        expires = int(row[EXPIRES_AT])
        if kind(row).startswith("chunk"):
            owner = by_key[(row[PK], owner_sk(str(row[SK])))]
            assert int(owner[EXPIRES_AT]) <= expires, (row[SK], "outlives its chunk")
        if kind(row) == "checkpoint" and RUN in row:
            ns, checkpoint_id = parse_checkpoint_sk(str(row[SK]))
            one_per_checkpoint = checkpoint_id if VALUES not in row else None  # earlier rows
            run_key = (run_pk("", str(row[RUN])), run_sk(thread_of(row), ns, one_per_checkpoint))
            run = by_key[run_key]
            assert int(run[EXPIRES_AT]) >= expires, (row[SK], "outlives its run index row")
            if one_per_checkpoint is None:
                link = by_key[(row[PK], run_link_sk(str(row[RUN]), ns))]
                assert link[EXPIRES_AT] == run[EXPIRES_AT], (row[SK], "run link expires apart")
    for thread in {thread_of(r) for r in rows}:
        registry = by_key[(registry_pk(""), thread)]
        last = max(int(r[EXPIRES_AT]) for r in of_thread(rows, thread))
        assert int(registry[EXPIRES_AT]) >= last, (thread, "registry row expires early")
    return Counter(kind(r) for r in rows)


def needed_by(
    rows: list[Row], checkpoint: dict[str, Any], checkpoint_id: str, run: str
) -> set[Key]:
    """The keys of the rows of thread "t" a checkpoint needs: its own row and chunks, its
    channel values and their chunks, its run index row and the thread's registry row."""
    pk = Thread("", "t").pk
    sk = checkpoint_sk("", checkpoint_id)
    owners = {sk, writes_sk(sk)}
    owners |= {blob_sk("", c, v) for c, v in checkpoint["channel_versions"].items()}
    found = {(run_pk("", run), run_sk("t", "")), (registry_pk(""), "t"), (pk, run_link_sk(run, ""))}
    for row in rows:
        key = (str(row[PK]), str(row[SK]))
        if key[0] == pk and (key[1] in owners or owner_sk(key[1]) in owners):
            found.add(key)
    return found


def test_every_row_kind_carries_its_writes_expiry_and_a_read_slides_all_a_checkpoint_needs(
    expiring: DynamoDBSaver, clock: FakeClock
) -> None:
    graph = notes_graph(expiring)
    t = config("t")
    start = clock.now()
    turn(graph, t, "first", "run-1", notes=BIG_NOTES)
    first = expiring.get_tuple(t)
    assert first is not None
    expiring.put_writes(first.config, [("messages", BIG_WRITE)], "task-big")
    rows = full_rows(expiring.client, TABLE)
    assert check_expiries(rows).keys() == {
        "checkpoint",
        "writes",
        "value",
        "chunk of a value",
        "chunk of writes",
        "registry",
        "run index",
        "run link",
    }
    # Rows kept alive for the checkpoints (registry, run index) are written for two TTLs,
    # so that a put rewrites them about once per TTL, not every time.
    assert {int(r[EXPIRES_AT]) for r in rows if kind(r) not in KEPT} == {start + TTL}
    assert {int(r[EXPIRES_AT]) for r in rows if kind(r) in KEPT} == {start + 2 * TTL}

    clock.advance(TENTH // 2)  # the turn's read finds nothing due: it slides nothing
    turn(graph, t, "second", "run-2")
    latest = expiring.get_tuple(t)
    assert latest is not None
    expiring.put_writes(latest.config, [("messages", BIG_WRITE)], "task-big")
    second = {(r[PK], r[SK]) for r in full_rows(expiring.client, TABLE)} - {
        (r[PK], r[SK]) for r in rows
    }
    rows = full_rows(expiring.client, TABLE)
    check_expiries(rows)
    assert {
        int(r[EXPIRES_AT]) for r in rows if (r[PK], r[SK]) in second and kind(r) not in KEPT
    } == {start + TENTH // 2 + TTL}

    # The second turn's put kept the notes alive for two TTLs (its checkpoints need them).
    # Once the latest checkpoint's own rows are due, a read slides them, its run index row
    # and the registry row, and shortens nothing that already lives longer.
    clock.advance(TENTH)
    slid_at = clock.now()
    assert expiring.get_tuple(t) is not None
    rows = full_rows(expiring.client, TABLE)
    check_expiries(rows)
    expiry = {(r[PK], r[SK]): int(r[EXPIRES_AT]) for r in rows}
    latest_id = latest.config["configurable"]["checkpoint_id"]
    needed = needed_by(rows, latest.checkpoint, latest_id, "run-2")
    assert Counter(kind(r) for r in rows if (r[PK], r[SK]) in needed) == {
        "checkpoint": 1,  # with messages and turns inline
        "writes": 1,
        "value": 1,  # the notes of the first turn
        "chunk of a value": 2,
        "chunk of writes": 1,
        "registry": 1,
        "run index": 1,
        "run link": 1,
    }
    kinds = {(r[PK], r[SK]): kind(r) for r in rows}
    assert {expiry[k] for k in needed if "checkpoint" in kinds[k] or "writes" in kinds[k]} == {
        slid_at + TTL
    }
    assert {expiry[k] for k in needed if kinds[k] in KEPT} == {slid_at + 2 * TTL}
    assert {expiry[k] for k in needed if kinds[k].endswith("value")} == {
        start + TENTH // 2 + 2 * TTL
    }
    assert {expiry[key] for key in expiry if key not in needed} == {
        start + TTL,
        start + TENTH // 2 + TTL,
        start + 2 * TTL,  # run-1's index row and run link
    }

    # A copy and a restore expire a TTL after they are made, whatever the source's rows say.
    clock.advance(20)
    made_at = clock.now()
    expiring.copy_thread("t", "copy")
    assert expiring.write_thread_rows("restored", expiring.thread_rows("t")) > 0
    rows = full_rows(expiring.client, TABLE)
    assert check_expiries(rows)["run index"] > 0
    for thread in ("copy", "restored"):
        copied = of_thread(rows, thread)
        assert (
            Counter(kind(r) for r in copied).keys()
            == Counter(kind(r) for r in of_thread(rows, "t")).keys()
        )
        assert {int(r[EXPIRES_AT]) for r in copied} == {made_at + TTL}, thread


def test_a_thread_lives_through_chat_reads_copies_and_restores_then_leaves_no_row(
    expiring: DynamoDBSaver, clock: FakeClock
) -> None:
    graph = notes_graph(expiring)
    t = config("t")
    turn(graph, t, "turn 0", "run-0", notes=BIG_NOTES)
    oldest = list(expiring.list(t))[-1].config
    with DynamoDBSaver(TABLE, region_name="us-east-1") as plain:  # no TTL of its own
        # A lively chat: a turn every 45 s, so the newest rows are never due when a turn
        # reads them, while the notes of turn 0 age; the reads must slide them all the same.
        for n in range(1, 15):
            clock.advance(45)
            turn(graph, t, f"turn {n}", f"run-{n}")
            if n == 2:  # a large pending write on a checkpoint nobody reads again
                latest = expiring.get_tuple(t)
                assert latest is not None
                expiring.put_writes(latest.config, [("messages", BIG_WRITE)], "task-big")
            if n == 6:  # restored without a TTL: each row keeps its own expiry
                assert plain.write_thread_rows("restored", expiring.thread_rows("t")) > 0
        # A TTL and more since turn 0, whose first checkpoint nobody read: it is gone,
        # though not swept yet; the restored thread is listed while its last rows live.
        assert len(texts(graph, t)) == 30
        assert graph.get_state(t).values["notes"] == BIG_NOTES
        assert expiring.get_tuple(oldest) is None
        assert "restored" in plain.threads()
        check_expiries(full_rows(expiring.client, TABLE))
        clock.advance(2 * TTL)  # registry rows outlive their threads by a TTL at most
        assert plain.threads() == []
        clock.advance(-2 * TTL)

    # Quiet: read every 4 minutes; a copy and a restore made in between live a TTL from
    # when they were made, not from when their source's rows would have expired.
    for _ in range(2):
        clock.advance(240)
        assert graph.get_state(t).values["notes"] == BIG_NOTES
    clock.advance(200)
    expiring.copy_thread("t", "copy")
    expiring.write_thread_rows("restored-later", expiring.thread_rows("t"))
    # What had expired in the source (turn 0's checkpoints, not swept yet) stays dead.
    assert ids(expiring, "copy") == ids(expiring, "restored-later") == ids(expiring, "t")
    for _ in range(2):
        clock.advance(120)
        assert graph.get_state(t).values["turns"] == 15
    clock.advance(TTL - 200 - 2 * 120 + 10)  # past what the source's rows said at the copy
    for thread in ("copy", "restored-later"):
        copied = config(thread)
        assert texts(graph, copied)[-1] == "echo turn 14", thread
        assert graph.get_state(copied).values["notes"] == BIG_NOTES, thread
    clock.advance(100)
    assert texts(graph, t)[-1] == "echo turn 14"
    expire_ttl_items(TABLE, now=clock.now())
    check_expiries(full_rows(expiring.client, TABLE))
    for thread in ("t", "copy", "restored-later"):
        state = graph.get_state(config(thread))
        assert state.values["notes"] == BIG_NOTES and state.values["turns"] == 15, thread
    assert set(expiring.threads()) == {"t", "copy", "restored-later"}

    # Left alone for a TTL, every row goes: checkpoints, values, chunks, run index rows,
    # registry rows, whichever way they were written.
    clock.advance(2 * TTL + 1)  # rows kept alive for the checkpoints: a TTL more at most
    assert expire_ttl_items(TABLE, now=clock.now()) > 0
    assert full_rows(expiring.client, TABLE) == []


def ids(saver: DynamoDBSaver, thread: str) -> list[str]:
    return [c.config["configurable"]["checkpoint_id"] for c in saver.list(config(thread))]


def test_a_slide_racing_delete_thread_revives_no_row(
    expiring: DynamoDBSaver, clock: FakeClock
) -> None:
    graph = notes_graph(expiring)
    t = config("t")
    turn(graph, t, "hello", "run-1", notes=BIG_NOTES)
    clock.advance(TENTH)  # the next read slides
    with DynamoDBSaver(TABLE, region_name="us-east-1") as other:
        deleted: list[str] = []

        def delete_first(**_: Any) -> None:
            # Another process deletes the thread between this read and its slide.
            if not deleted:
                deleted.append("t")
                other.delete_thread("t")

        expiring.client.meta.events.register(
            "before-call.dynamodb.TransactWriteItems", delete_first
        )
        found = expiring.get_tuple(t)  # what it read before the delete
        assert deleted and found is not None and found.checkpoint["channel_values"]["notes"]
    assert full_rows(expiring.client, TABLE) == []
    assert expiring.threads() == [] and expiring.get_tuple(t) is None


@pytest.mark.parametrize("refresh", [None, True, False])
def test_reads_slide_the_ttl_unless_refresh_on_read_is_off(
    emulation: None, clock: FakeClock, refresh: bool | None
) -> None:
    ttl: CheckpointTTL = {"default_ttl": float(TTL_MINUTES_SET)}
    if refresh is not None:
        ttl["refresh_on_read"] = refresh
    with DynamoDBSaver.from_table(TABLE, region_name="us-east-1", setup=True, ttl=ttl) as saver:
        t = config("t")
        turn(notes_graph(saver), t, "hello", "run-1")
        for _ in range(3):  # 12 minutes of reads, past the 10-minute TTL
            clock.advance(240)
            saver.get_tuple(t)
        alive = saver.get_tuple(t) is not None
        assert alive is (refresh is not False), f"refresh_on_read={refresh}: alive={alive}"


def test_a_checkpoint_needing_more_rows_than_a_transaction_lives_while_read(
    expiring: DynamoDBSaver, clock: FakeClock
) -> None:
    channels = {f"channel-{n:03d}": n for n in range(100)}  # with the checkpoint: 2 slides
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = channels
    checkpoint["channel_versions"] = {c: expiring.get_next_version(None, None) for c in channels}
    stored = expiring.put(
        config("t"), checkpoint, {"source": "loop", "step": 1}, checkpoint["channel_versions"]
    )
    for seconds in (TTL // 2, TTL // 2 + TENTH):  # a read, then one past the first TTL
        clock.advance(seconds)
        expire_ttl_items(TABLE, now=clock.now())
        found = expiring.get_tuple(stored)
        assert found is not None and found.checkpoint["channel_values"] == channels
    assert expiring.threads() == ["t"]


def test_a_restore_of_lasting_and_expiring_rows_stays_listed(
    expiring: DynamoDBSaver, clock: FakeClock
) -> None:
    # A thread begun before its saver had a TTL, continued after: restored by a saver
    # without one, it is listed as long as its rows last (for ever).
    with DynamoDBSaver(TABLE, region_name="us-east-1") as plain:
        turn(notes_graph(plain), config("t"), "before the TTL", "run-1")
        turn(notes_graph(expiring), config("t"), "after", "run-2")
        assert plain.write_thread_rows("restored", plain.thread_rows("t")) > 0
        clock.advance(TTL + 1)
        expire_ttl_items(TABLE, now=clock.now())
        assert plain.threads() == ["restored", "t"]
        restored = texts(notes_graph(plain), config("restored"))
        assert restored[:2] == ["before the TTL", "echo before the TTL"]
