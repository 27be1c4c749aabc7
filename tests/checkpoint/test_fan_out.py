"""A task's pending writes inside DynamoDB's expression limits (4 KB, 300 operators per
UpdateExpression, enforced by the emulation): a fan-out of 1,000 `Send`s checkpoints and
resumes, a split write is visible whole or not at all, and racing writers of one task
leave no chunk row that no write refers to."""

from __future__ import annotations

import operator
import os
import threading
from typing import Annotated, Any, TypedDict

import pytest
from botocore.exceptions import ClientError
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.graph import END, START, StateGraph
from langgraph.store.dynamodb.table.schema import CHUNKS_FIELD, PK, SK, WRITE_PREFIX
from langgraph.types import Send

from tests.checkpoint.conftest import TABLE
from tests.checkpoint.rows_of import full_rows
from tests.fault.layer import FaultLayer

SENDS = 1_000


class FanState(TypedDict):
    done: Annotated[list[int], operator.add]


class Counts:
    def __init__(self) -> None:
        self.fan = 0
        self.flaky = 0
        self.lock = threading.Lock()


def _fan_out_graph(saver: DynamoDBSaver, counts: Counts) -> Any:
    """START -> fan (1,000 Sends to work) and flaky, side by side; flaky fails its first run."""

    def fan(state: FanState) -> dict[str, Any]:
        with counts.lock:
            counts.fan += 1
        return {}

    def spread(state: FanState) -> list[Send]:
        return [Send("work", i) for i in range(SENDS)]

    def flaky(state: FanState) -> dict[str, Any]:
        with counts.lock:
            counts.flaky += 1
            first = counts.flaky == 1
        if first:
            raise RuntimeError("flaky fails once")
        return {}

    def work(i: int) -> dict[str, Any]:
        return {"done": [i]}

    graph = StateGraph(FanState)
    graph.add_node("fan", fan)
    graph.add_node("flaky", flaky)
    graph.add_node("work", work)
    graph.add_edge(START, "fan")
    graph.add_edge(START, "flaky")
    graph.add_conditional_edges("fan", spread, ["work"])
    graph.add_edge("work", END)
    return graph.compile(checkpointer=saver)


def test_a_fan_out_of_1000_sends_checkpoints_and_resumes(saver: DynamoDBSaver) -> None:
    """The fan node's 1,000 Sends are one task's writes; flaky fails in the same step, so
    the resume must find them among the pending writes (fan does not run again)."""
    counts = Counts()
    graph = _fan_out_graph(saver, counts)
    config: Any = {"configurable": {"thread_id": "fan"}, "recursion_limit": 10}
    with pytest.raises(RuntimeError, match="flaky fails once"):
        graph.invoke({"done": []}, config)
    state = graph.get_state(config)
    fan_writes = [w for t in state.tasks if t.name == "fan" for w in [t]]
    assert fan_writes, "the fan task should be pending on the failed step"
    result = graph.invoke(None, config)
    assert sorted(result["done"]) == list(range(SENDS))
    assert (counts.fan, counts.flaky) == (1, 2)
    assert sorted(graph.get_state(config).values["done"]) == list(range(SENDS))


def _checkpoint(saver: DynamoDBSaver, thread: str) -> Any:
    checkpoint = empty_checkpoint()
    config: Any = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    return saver.put(config, checkpoint, {"source": "loop", "step": 1}, {})


def _count(saver: DynamoDBSaver, operation: str) -> list[int]:
    calls: list[int] = []

    def note(op: str, _: dict[str, Any]) -> bool:
        if op == operation:
            calls.append(1)
        return False

    FaultLayer(saver.client, rate=0.0, when=note)
    return calls


def test_a_task_of_1000_writes_reads_back_whole_in_few_updates(saver: DynamoDBSaver) -> None:
    stored = _checkpoint(saver, "t")
    writes = [(f"channel-{i}", {"i": i}) for i in range(SENDS)]
    updates = _count(saver, "UpdateItem")
    saver.put_writes(stored, writes, "task-1")
    found = saver.get_tuple(stored)
    assert found is not None
    assert found.pending_writes == [("task-1", c, v) for c, v in writes]
    # at most 150 writes per update by operators (2 each), fewer by the 4 KB
    assert 1_000 // 150 < len(updates) <= 1_000 // 100


@pytest.mark.parametrize(
    ("count", "updates", "failing"),
    [(SENDS, 9, 3), (150, 2, 2)],
    ids=["cut-at-the-third-of-nine", "cut-after-the-first-of-two"],
)
def test_a_split_write_is_invisible_until_its_last_update_lands(
    saver: DynamoDBSaver, count: int, updates: int, failing: int
) -> None:
    """A put_writes cut short between its updates shows none of its writes: LangGraph
    would take a task with some writes for a finished one and lose the rest. Two
    updates are a split as much as nine."""
    stored = _checkpoint(saver, "t")
    saver.put_writes(stored, [("other", "kept")], "task-0")
    seen: list[str] = []

    def cut(op: str, _: dict[str, Any]) -> bool:
        seen.append(op)
        return op == "UpdateItem" and seen.count("UpdateItem") == failing

    layer = FaultLayer(saver.client, rate=1.0, kinds=("ValidationException",), when=cut)
    with pytest.raises(ClientError):
        saver.put_writes(stored, [(f"c{i}", i) for i in range(count)], "task-1")
    layer.remove()
    found = saver.get_tuple(stored)
    assert found is not None and found.pending_writes == [("task-0", "other", "kept")]
    sent = _count(saver, "UpdateItem")
    saver.put_writes(stored, [(f"c{i}", i) for i in range(count)], "task-2")
    assert len(sent) == updates
    again = saver.get_tuple(stored)
    assert again is not None
    assert [w for w in again.pending_writes if w[0] == "task-2"] == [
        ("task-2", f"c{i}", i) for i in range(count)
    ]


def _unreferenced_chunks(saver: DynamoDBSaver) -> list[str]:
    rows = full_rows(saver.client, TABLE)
    referenced: set[str] = set()
    for row in rows:
        for name, entry in row.items():
            if name.startswith(WRITE_PREFIX) and CHUNKS_FIELD in entry:
                referenced.add(f"z#{row[SK]}#{entry[CHUNKS_FIELD]}#")
    chunks = [r[SK] for r in rows if r[SK].startswith("z#") and r[PK].startswith(".t/")]
    return [sk for sk in chunks if not any(sk.startswith(ref) for ref in referenced)]


@pytest.mark.parametrize("special", [False, True], ids=["keep-first", "overwrite"])
def test_racing_writers_of_one_task_leave_no_unreferenced_chunk(
    saver: DynamoDBSaver, special: bool
) -> None:
    stored = _checkpoint(saver, "t")
    channel = "__error__" if special else "big"
    barrier = threading.Barrier(8)
    failures: list[BaseException] = []

    def write(n: int) -> None:
        try:
            barrier.wait()
            for _ in range(3):
                saver.put_writes(stored, [(channel, os.urandom(40_000))], "task-1")
        except BaseException as error:  # reported below
            failures.append(error)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    assert _unreferenced_chunks(saver) == []
    found = saver.get_tuple(stored)
    assert found is not None and len(found.pending_writes) == 1


def test_a_special_write_replaced_later_leaves_the_split_calls_writes_visible(
    saver: DynamoDBSaver,
) -> None:
    """A split call's mark counts its ordinary writes only: a special write (here
    `__error__`) is replaced by the task's next one, and must not take the call's
    ordinary writes out of sight with it."""
    stored = _checkpoint(saver, "t")
    ordinary = [(f"c{i}", i) for i in range(150)]
    saver.put_writes(stored, [*ordinary, ("__error__", "first")], "task-1")
    saver.put_writes(stored, [("__error__", "second")], "task-1")
    found = saver.get_tuple(stored)
    assert found is not None
    assert sorted(found.pending_writes, key=str) == sorted(
        [("task-1", c, v) for c, v in [*ordinary, ("__error__", "second")]], key=str
    )
