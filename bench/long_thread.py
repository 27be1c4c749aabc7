"""A long thread, turn after turn: does a turn cost what it adds, or what the thread holds?

    python -m bench.long_thread [--turns 1000] [--peer-turns 100] [--out results]

One chat thread, one 400-character user message and one reply per turn, run on three
savers in one emulation: ours (`langgraph.checkpoint.dynamodb`), `langgraph-checkpoint-aws`'s
`DynamoDBSaver` (the peer) and LangGraph's `InMemorySaver` (requests: none), each with two
graphs: `messages` reduced by `add_messages` (LangGraph hands the saver the whole list
every step) and by LangGraph's `DeltaChannel` (each checkpoint stores the step's writes;
a snapshot of the whole list every `--snapshot-frequency` updates, LangGraph's default
100). Every turn is measured by `bench.instrument.Meter`: DynamoDB requests, bytes of the
request bodies, read and write units from the stored items' sizes, and, at the reported
turns only, the latency model's round trips (5 ms a request) plus client work.

Reported: per-turn figures at turns 10, 100 and 1,000 (those run; and 99 and 999, the
neighbours of `DeltaChannel`'s snapshot turns 100 and 1,000), the whole thread's
read and write units and its dollars at on-demand prices (`bench.prices`), and a plot of
requests and kilobytes per turn (`long-thread.png`). The peer runs `--peer-turns` turns
(100 by default): with `DeltaChannel` it reads one checkpoint per ancestor back to the
snapshot on every turn, which makes a thousand of its turns take most of an hour here.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.store.dynamodb.testing import mock_aws

from . import prices
from .checkpoint import SAVERS, Metered
from .instrument import Latency, Meter, Sample
from .stores import CHECKPOINT_AWS, OURS

IN_MEMORY = "InMemorySaver"
# Turns 100 and 1,000 write DeltaChannel's snapshot (the whole list) at the default
# frequency: 99 and 999 are their neighbours that do not.
REPORTED = (10, 99, 100, 999, 1000)
MESSAGE_CHARS = 400
ADD = "add_messages"
DELTA = "DeltaChannel"


def append_messages(state: list[Any], writes: Sequence[Any]) -> list[Any]:
    """`add_messages` over a batch of writes (DeltaChannel's reducer shape)."""
    merged: Any = list(state or [])
    for write in writes:
        merged = add_messages(merged, write)
    return list(merged)


def _reply(state: dict[str, Any]) -> dict[str, Any]:
    last = str(state["messages"][-1].content)
    return {"messages": [AIMessage(("echo " + last)[:MESSAGE_CHARS])]}


def chat_graph(checkpointer: Any, channel: str = ADD, snapshot_frequency: int = 100) -> Any:
    """START -> reply -> END; `messages` reduced by `add_messages` or a `DeltaChannel`."""
    reducer: Any = (
        add_messages
        if channel == ADD
        else DeltaChannel(append_messages, snapshot_frequency=snapshot_frequency)
    )

    # The functional form: the class form's annotation would name `reducer`, a local.
    state = TypedDict("state", {"messages": Annotated[list[AnyMessage], reducer]})  # noqa: UP013
    graph = StateGraph(state)
    graph.add_node("reply", _reply)  # type: ignore[type-var]
    graph.add_edge(START, "reply")
    graph.add_edge("reply", END)
    return graph.compile(checkpointer=checkpointer)


def say(turn: int) -> dict[str, Any]:
    """The user's message of a turn: 400 characters."""
    return {"messages": [HumanMessage(f"turn {turn} ".ljust(MESSAGE_CHARS, "x"))]}


@dataclass
class Thread:
    """Every turn's usage of one saver on one graph."""

    saver: str
    channel: str
    turns: list[Sample] = field(default_factory=list)

    def at(self, turn: int) -> Sample | None:
        return self.turns[turn - 1] if turn <= len(self.turns) else None

    @property
    def dollars(self) -> float:
        reads = sum(s.usage.read_units for s in self.turns)
        writes = sum(s.usage.write_units for s in self.turns)
        return (
            reads * prices.USD_PER_MILLION_READ_UNITS + writes * prices.USD_PER_MILLION_WRITE_UNITS
        ) / 1e6


def _savers() -> dict[str, Callable[[str], BaseCheckpointSaver[Any]]]:
    return {OURS: SAVERS[OURS], CHECKPOINT_AWS: SAVERS[CHECKPOINT_AWS], IN_MEMORY: _in_memory}


def _in_memory(_: str) -> BaseCheckpointSaver[Any]:
    return InMemorySaver()


def run(turns: int, peer_turns: int, snapshot_frequency: int) -> list[Thread]:
    """Every saver on both graphs, turn after turn."""
    threads = []
    with mock_aws(), Meter() as meter:
        for name, make in _savers().items():
            for channel in (ADD, DELTA):
                saver = make(f"bench-long-{name}-{channel}".replace(" ", "-").lower())
                graph = chat_graph(saver, channel, snapshot_frequency)
                thread = Thread(name, channel)
                config = {"configurable": {"thread_id": f"{name}-{channel}"}}
                count = peer_turns if name == CHECKPOINT_AWS else turns
                for turn in range(1, count + 1):
                    latency = Latency() if turn in REPORTED else None
                    with meter.delays(latency):
                        thread.turns.append(
                            meter.measure(functools.partial(graph.invoke, say(turn), config))
                        )
                    if turn % 100 == 0:
                        print(f"{name} {channel}: turn {turn}", file=sys.stderr)
                threads.append(thread)
    return threads


# Turns whose write units `units_by_call` splits by saver call.
UNIT_TURNS = (10, 100)


@dataclass
class Split:
    """One turn's write units on one saver, by call: each put's, each put_writes'."""

    saver: str
    turn: int
    puts: list[float]
    writes: list[float]
    apis: dict[str, int]


def units_by_call(turns: Sequence[int] = UNIT_TURNS) -> list[Split]:
    """Where an `add_messages` turn's write units go, on ours and on the peer: every
    saver call measured alone (`bench.checkpoint.Metered`), at each of `turns`."""
    found = []
    with mock_aws(), Meter() as meter:
        for name in (OURS, CHECKPOINT_AWS):
            saver = Metered(SAVERS[name](f"bench-units-{name}".replace(" ", "-").lower()), meter)
            graph = chat_graph(saver, ADD)
            config = {"configurable": {"thread_id": "units"}}
            for turn in range(1, max(turns) + 1):
                saver.calls.clear()
                graph.invoke(say(turn), config)
                if turn not in turns:
                    continue
                samples = {k: c.samples for k, c in saver.calls.items()}
                apis: dict[str, int] = {}
                for kind in ("put", "put_writes"):
                    for sample in samples.get(kind, []):
                        for api, n in sample.usage.calls.items():
                            apis[f"{kind}: {api}"] = apis.get(f"{kind}: {api}", 0) + n
                found.append(
                    Split(
                        name,
                        turn,
                        [s.usage.write_units for s in samples.get("put", [])],
                        [s.usage.write_units for s in samples.get("put_writes", [])],
                        apis,
                    )
                )
    return found


def units_markdown(splits: list[Split]) -> str:
    """The split of an `add_messages` turn's write units, and why."""
    lines = [
        "# A long thread: where a turn's write units go",
        "",
        "`add_messages` chat (`python -m bench.long_thread`), each saver call measured "
        "alone. A turn is 3 puts (input, the node's step, the end) and 2 `put_writes` "
        "(the input, the node's reply).",
        "",
        "| saver | turn | puts (write units each) | put_writes (each) | turn total | requests |",
        "| --- | ---: | --- | --- | ---: | --- |",
    ]
    for split in splits:
        total = sum(split.puts) + sum(split.writes)
        apis = ", ".join(f"{k}={v}" for k, v in sorted(split.apis.items()))
        lines.append(
            f"| {split.saver} | {split.turn} | {' + '.join(f'{u:.0f}' for u in split.puts)} | "
            f"{' + '.join(f'{u:.0f}' for u in split.writes)} | {total:.0f} | {apis} |"
        )
    lines += [
        "",
        "How ours stays at or below the peer on this column. A `put_writes` updates the "
        "checkpoint's writes row, a row of its own beside the checkpoint row (DynamoDB "
        "bills an update at the whole item's size: in the checkpoint row it would pay for "
        "the whole list again); `get_tuple` still reads both in one request. A checkpoint "
        "row holds up to 180 KB of values, so a put of a list that changed is one "
        "single-item write, billed once (turn 100: 117 KB). A put that writes other rows "
        "too (a run's first put writes its run index row; the input checkpoint, whose list "
        "the put did not change, stores it as a value row past 64 KB) is one "
        "TransactWriteItems while they come to less than 16 KB, and past that those rows "
        "first and the checkpoint row alone after them (BatchWriteItem, then UpdateItem), "
        "since a transaction bills every unit twice. Past 180 KB (about turn 150) the list "
        "is a value row of its own, written by each put that changes it. `DeltaChannel` "
        "keeps the checkpoint row small: its turns cost the same write units at turn 10 "
        "and at turn 999 (`long-thread.md`).",
        "",
    ]
    return "\n".join(lines)


def markdown(threads: list[Thread], snapshot_frequency: int) -> str:
    """The per-turn table and the whole thread's cost."""
    lines = [
        "# A long thread: per-turn cost",
        "",
        f"One 400-character message each way per turn; `DeltaChannel` snapshots every "
        f"{snapshot_frequency} updates (2 a turn). Bytes: request bodies. Units: DynamoDB "
        "read and write units from the items' sizes. Latency: 5 ms a request plus client "
        "work (the emulator's time subtracted). At 2 updates a turn, `DeltaChannel`'s "
        f"turns {snapshot_frequency // 2}, {snapshot_frequency}, ... write the snapshot (the "
        "whole list): turns 100 and 1,000 are such turns at the default frequency; the "
        "turns between send what turn 10 sends (`tests/checkpoint/test_long_thread.py`).",
        "",
        "This run: "
        + ", ".join(f"{t.saver} {t.channel} {len(t.turns)} turns" for t in threads)
        + ". The peer runs fewer: its `DeltaChannel` turn reads one checkpoint per ancestor "
        "back to the snapshot (hundreds of requests a turn). Read units grow with a "
        "`DeltaChannel` thread although requests and bytes sent do not: every turn reads "
        "the snapshot, the whole list, to rebuild the channel (`InMemorySaver`'s client "
        "time grows for the same reason).",
        "",
        "| saver | channel | turn | requests | KB sent | read units | write units | latency ms |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for thread in threads:
        for turn in REPORTED:
            sample = thread.at(turn)
            if sample is None:
                continue
            u = sample.usage
            lines.append(
                f"| {thread.saver} | {thread.channel} | {turn} | {u.requests} | "
                f"{u.bytes_sent / 1024:.1f} | {u.read_units:.1f} | {u.write_units:.1f} | "
                f"{sample.latency_ms:.0f} |"
            )
    lines += [
        "",
        "| saver | channel | turns | read units | write units | dollars (on demand) |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for thread in threads:
        reads = sum(s.usage.read_units for s in thread.turns)
        writes = sum(s.usage.write_units for s in thread.turns)
        lines.append(
            f"| {thread.saver} | {thread.channel} | {len(thread.turns)} | {reads:.0f} | "
            f"{writes:.0f} | {thread.dollars:.6f} |"
        )
    lines += ["", prices.statement(), ""]
    return "\n".join(lines)


def plot(threads: list[Thread], out: Path) -> Path:
    """Requests and KB sent per turn, per saver and channel."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (requests, sent) = plt.subplots(1, 2, figsize=(12, 4.5))
    for thread in threads:
        if thread.saver == IN_MEMORY:
            continue
        x = range(1, len(thread.turns) + 1)
        label = f"{thread.saver}, {thread.channel}"
        requests.plot(x, [s.usage.requests for s in thread.turns], label=label, linewidth=0.8)
        sent.plot(x, [s.usage.bytes_sent / 1024 for s in thread.turns], label=label, linewidth=0.8)
    requests.set(xlabel="turn", ylabel="DynamoDB requests", yscale="log")
    sent.set(xlabel="turn", ylabel="KB of request bodies", yscale="log")
    requests.legend(fontsize=7)
    figure.tight_layout()
    path = out / "long-thread.png"
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--peer-turns", type=int, default=100)
    parser.add_argument("--snapshot-frequency", type=int, default=100)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument(
        "--units-only", action="store_true", help="only the split of write units by call"
    )
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    units = units_markdown(units_by_call())
    (args.out / "long-thread-units.md").write_text(units)
    print(units)
    if args.units_only:
        return
    threads = run(args.turns, args.peer_turns, args.snapshot_frequency)
    plot(threads, args.out)
    report = markdown(threads, args.snapshot_frequency)
    (args.out / "long-thread.md").write_text(report)
    print(report)


if __name__ == "__main__":
    main()
