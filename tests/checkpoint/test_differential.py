"""The saver against LangGraph's own `InMemorySaver`, step for step: the same sequences of
`put` (roots and forks, in two checkpoint namespaces, channels changed and emptied) and
`put_writes` (tasks replayed, ordinary and special channels, values inline and chunked,
writes before their checkpoint) must read back the same through `get_tuple` (by id and
latest) and `list` (whole thread, one namespace, one `checkpoint_id`, `before` with a
`limit`, a metadata `filter`).

What LangGraph's semantics fix and this catches: an ordinary write keeps the first one
stored for its (task, index) and a replay never replaces it (write 0 included); a write
to a special channel (error, interrupt, resume, scheduled) has the channel's own
negative index and replaces the task's earlier one; `list(config)` honours the config's
`checkpoint_id`."""

from __future__ import annotations

import contextlib
import copy
import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import Phase, example, given, settings
from hypothesis import strategies as st
from langgraph.checkpoint.base import WRITES_IDX_MAP, CheckpointTuple, empty_checkpoint
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.types import ERROR, INTERRUPT, RESUME, SCHEDULED
from langgraph.store.dynamodb.testing import mock_aws

from tests.checkpoint.conftest import TABLE
from tests.checkpoint.steps import config

SPECIAL = [ERROR, SCHEDULED, INTERRUPT, RESUME]
assert set(SPECIAL) == set(WRITES_IDX_MAP)  # every channel LangGraph indexes specially
CHANNELS = ["a", "b", "c"]
NAMESPACES = ["", "inner:1"]
BIG = 17_000  # past the 16 KB a write keeps inline: its value goes to chunk rows


@dataclass(frozen=True)
class Put:
    """A checkpoint in `ns` after the `parent`-th one of `ns` (modulo; None: a root), with
    `changed` channels at new versions (a value of None empties the channel)."""

    ns: str
    parent: int | None
    changed: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Writes:
    """`put_writes` of `task` on the `target`-th checkpoint put so far (modulo the count
    plus one: the last choice is the next checkpoint, before it is put)."""

    target: int
    task: str
    writes: tuple[tuple[str, Any], ...]
    path: str = ""


Op = Put | Writes

values = st.one_of(
    st.integers(0, 3), st.sampled_from("xyz").map(lambda c: c * BIG), st.sampled_from("xyz")
)
puts = st.builds(
    Put,
    st.sampled_from(NAMESPACES),
    st.one_of(st.none(), st.integers(0, 5)),
    st.dictionaries(st.sampled_from(CHANNELS), st.one_of(st.none(), values), max_size=3).map(
        lambda d: tuple(sorted(d.items()))
    ),
)
writes = st.builds(
    Writes,
    st.integers(0, 3),  # mostly the first checkpoints: replays on one are frequent
    st.sampled_from(["task-1", "task-2"]),
    st.lists(
        st.tuples(st.sampled_from(CHANNELS[:2] + SPECIAL), values), min_size=1, max_size=3
    ).map(tuple),
    st.sampled_from(["", "~p"]),
)
programs = st.lists(st.one_of(puts, writes, writes), min_size=1, max_size=10)


@dataclass
class Pair:
    """Our saver and an `InMemorySaver` given the same calls on one thread."""

    ours: DynamoDBSaver
    theirs: InMemorySaver = field(default_factory=InMemorySaver)
    thread: str = field(default_factory=lambda: uuid.uuid4().hex)
    made: list[tuple[str, str]] = field(default_factory=list)  # (ns, id), in order
    state: dict[str, tuple[dict[str, Any], dict[str, str]]] = field(default_factory=dict)
    versions: int = 0
    metadata: dict[str, Any] = field(default_factory=dict)  # on every checkpoint

    def next_id(self) -> str:
        return f"00000000-0000-6000-8000-{len(self.made):012d}"

    def both(self, call: str, *args: Any) -> None:
        for saver in (self.ours, self.theirs):
            getattr(saver, call)(*copy.deepcopy(args))

    def apply(self, op: Op) -> None:
        if isinstance(op, Put):
            self.put(op)
        else:
            targets = [*self.made, ("", self.next_id())]
            ns, checkpoint_id = targets[op.target % len(targets)]
            self.both(
                "put_writes", config(self.thread, ns, checkpoint_id), op.writes, op.task, op.path
            )

    def put(self, op: Put) -> None:
        in_ns = [cid for ns, cid in self.made if ns == op.ns]
        parent = in_ns[op.parent % len(in_ns)] if op.parent is not None and in_ns else None
        current, versions = self.state[parent] if parent else ({}, {})
        current, versions = dict(current), dict(versions)
        new = {}
        for channel, value in op.changed:
            self.versions += 1
            new[channel] = f"{self.versions:08d}"
            if value is None:
                current.pop(channel, None)
            else:
                current[channel] = value
        versions.update(new)
        checkpoint = empty_checkpoint()
        checkpoint["id"] = self.next_id()
        checkpoint["channel_values"] = current
        checkpoint["channel_versions"] = versions
        metadata = {"source": "loop", "step": len(self.made) % 3, **self.metadata}
        self.both("put", config(self.thread, op.ns, parent), checkpoint, metadata, new)
        self.made.append((op.ns, checkpoint["id"]))
        self.state[checkpoint["id"]] = (current, versions)

    def check(self) -> None:
        """Every read the two savers answer alike."""
        thread = self.thread
        reads: list[tuple[str, Any, dict[str, Any]]] = []
        for ns, checkpoint_id in self.made:
            reads.append(("get_tuple", config(thread, ns, checkpoint_id), {}))
            reads.append(("list", config(thread, ns, checkpoint_id), {}))
            reads.append(
                (
                    "list",
                    {"configurable": {"thread_id": thread, "checkpoint_id": checkpoint_id}},
                    {},
                )
            )
            other = NAMESPACES[1 - NAMESPACES.index(ns)]
            reads.append(("list", config(thread, other, checkpoint_id), {}))
            reads.append(
                (
                    "list",
                    config(thread, ns),
                    {"before": config(thread, ns, checkpoint_id), "limit": 2},
                )
            )
        for ns in NAMESPACES:
            reads.append(("get_tuple", config(thread, ns), {}))
            reads.append(("list", config(thread, ns), {}))
            reads.append(("list", config(thread, ns), {"filter": {"step": 1}}))
            for source in ("loop", "input"):  # every key must match
                reads.append(
                    ("list", config(thread, ns), {"filter": {"step": 1, "source": source}})
                )
            reads.append(("list", config(thread, ns), {"limit": 1}))
        for call, cfg, kwargs in reads:
            ours = getattr(self.ours, call)(cfg, **kwargs)
            theirs = getattr(self.theirs, call)(cfg, **kwargs)
            if call == "list":
                ours, theirs = [plain(t) for t in ours], [plain(t) for t in theirs]
            else:
                ours, theirs = plain(ours), plain(theirs)
            assert ours == theirs, (call, cfg, kwargs)
        whole = {"configurable": {"thread_id": thread}}
        listed = [sorted(map(plain, s.list(whole)), key=str) for s in (self.ours, self.theirs)]
        assert listed[0] == listed[1]


def plain(found: CheckpointTuple | None) -> Any:
    """A tuple as comparable data (configs reduced to what names the checkpoint)."""
    if found is None:
        return None

    def key(cfg: Any) -> Any:
        c = (cfg or {}).get("configurable") or {}
        return (c["thread_id"], c["checkpoint_ns"], c["checkpoint_id"]) if c else None

    return (
        key(found.config),
        found.checkpoint,
        found.metadata,
        key(found.parent_config),
        found.pending_writes,
    )


REPLAY = [
    Put("", None, (("a", 1),)),
    Writes(0, "task-1", (("a", 1), ("b", 2)), "~p"),
    Writes(0, "task-1", (("a", 5), ("b", 6), (ERROR, "boom")), "~p"),
    Writes(0, "task-1", ((ERROR, "again"), (INTERRUPT, "stop")), "~p"),
    Writes(0, "task-1", ((INTERRUPT, "stop 2"), (RESUME, "go"), (SCHEDULED, 1)), "~p"),
    Writes(0, "task-2", ((RESUME, "go"), ("a", 7))),  # path "" sorts before "~p"
    Writes(0, "task-2", ((RESUME, "go 2"), ("a", 8))),
]
CHUNKED = [
    Put("", None, (("a", "x" * BIG),)),
    Writes(0, "task-1", (("a", "x" * BIG),)),
    Writes(0, "task-1", (("a", "y" * BIG),)),
    Writes(0, "task-1", ((INTERRUPT, "x" * BIG),)),
    Writes(0, "task-1", ((INTERRUPT, "y" * BIG),)),
    Writes(0, "task-1", ((INTERRUPT, "z"),)),
]
FORKS = [
    Put("", None, (("a", 1), ("b", 1))),
    Put("", 0, (("a", 2),)),
    Writes(2, "task-1", (("a", 3),)),  # on the next checkpoint, before it is put
    Put("", 0, (("b", None),)),
    Put("inner:1", None, (("c", 1),)),
    Writes(3, "task-2", ((ERROR, "e"),), "~p"),
]


class Emulations:
    """A saver on an emulated table, renewed every `every` examples: moto keeps a copy of
    the table for each TransactWriteItems (its rollback backup, tracked as a model
    instance) until the emulation stops, so one emulation for a thousand examples would
    hold gigabytes."""

    def __init__(self, every: int = 20) -> None:
        self.every, self.used = every, 0
        self.stack = contextlib.ExitStack()
        self.current: DynamoDBSaver | None = None

    def saver(self) -> DynamoDBSaver:
        if self.current is None or self.used % self.every == 0:
            self.stack.close()
            self.stack.enter_context(mock_aws())
            self.current = self.stack.enter_context(
                DynamoDBSaver.from_table(TABLE, region_name="us-east-1", setup=True)
            )
        self.used += 1
        return self.current


@pytest.mark.parametrize(
    "examples",
    [pytest.param(30, id="fast"), pytest.param(1_000, id="full", marks=pytest.mark.hardening)],
)
def test_puts_and_writes_read_back_as_in_langgraphs_own_saver(examples: int) -> None:
    fast = examples < 100  # reproducible, and reports the failing program unshrunk
    phases = (Phase.explicit, Phase.generate) if fast else tuple(Phase)
    emulations = Emulations()

    @settings(max_examples=examples, deadline=None, derandomize=fast, phases=phases)
    @given(programs)
    @example(REPLAY)
    @example(CHUNKED)
    @example(FORKS)
    def check(program: list[Op]) -> None:
        pair = Pair(emulations.saver())  # a fresh thread: examples share the table
        for op in program:
            pair.apply(op)
        pair.check()

    with emulations.stack:
        check()
