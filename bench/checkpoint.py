"""Checkpointers on one graph workload: ours (`langgraph.checkpoint.dynamodb`) against
`langgraph-checkpoint-aws`'s `DynamoDBSaver`, in the same run, on the same emulation.

    python -m bench.checkpoint [--threads 3] [--turns 4] [--sizes-mb 1 10]

Workload, run alike on each saver (each on its own table, the peer's keyed PK/SK as its
own tests create it): a ReAct-like graph (an agent node whose fake chat model asks a
tool every other reply, a tool node, a `messages` channel) invoked for `--turns` turns on
each of `--threads` threads; then, per thread, `get_tuple` and `list(limit=10)`; on the
first thread the calls ours adds to the interface (`copy_thread`, `prune`, and
`delete_for_runs` of the last run of another thread), reported "not supported" for a
saver that raises NotImplementedError (and with its error for one that fails); last,
`delete_thread` of every thread.

Every call a saver receives, from the graph or from the bench, is measured one at a time
by `bench.instrument.Meter` (its latency model: a fixed round trip per DynamoDB request,
the emulator's own time subtracted): DynamoDB requests per API, read and write units from
the stored items' sizes (`bench.capacity`; moto's `ConsumedCapacity` is a constant, not a
measure), the bytes of the request bodies, and the latency.

Large values: a checkpoint whose one channel holds `--sizes-mb` megabytes is put and read
back; a saver that fails is reported with its error, the rows it left in its table and
what a reader then sees.

Prints the report as markdown (`make bench` saves it as `results/checkpoint.md`); progress
goes to stderr.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import statistics
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Annotated, Any, TypedDict

import boto3
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    empty_checkpoint,
)
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.store.dynamodb.testing import mock_aws

from . import fill, tables
from .instrument import Latency, Meter, Sample, Usage
from .stores import CHECKPOINT_AWS, OURS, REGION
from .workloads import TOPICS

LIST_LIMIT = 10
LIST = f"list(limit={LIST_LIMIT})"
EXTENDED = ("copy_thread", "prune(keep_latest)", "delete_for_runs")
KINDS = ("put", "put_writes", "get_tuple", LIST, *EXTENDED, "delete_thread")
# Issue 22's request budget per call of ours: at most this many DynamoDB requests.
BUDGETS = {"put": 1, "put_writes": 1, "get_tuple": 2, LIST: 3}
NOT_SUPPORTED = "not supported"
ROUND_TRIP = "round-trips"
TABLES = {OURS: "bench-checkpoint-ours", CHECKPOINT_AWS: "bench-checkpoint-peer"}
MB = 1 << 20


@dataclass
class Plan:
    threads: int = 3
    turns: int = 4
    sizes: tuple[int, ...] = (MB, 10 * MB)  # bytes of the large channel values
    latency: Latency = field(default_factory=Latency)


@dataclass
class Calls:
    """Every measured call of one kind on one saver, or why there is none."""

    samples: list[Sample] = field(default_factory=list)
    status: str = "ok"

    def mean(self, attribute: str) -> float:
        return statistics.fmean(float(getattr(s.usage, attribute)) for s in self.samples)

    def most(self, attribute: str) -> float:
        return max(float(getattr(s.usage, attribute)) for s in self.samples)

    @property
    def latency_ms(self) -> float:
        return statistics.median(s.latency_ms for s in self.samples)

    @property
    def apis(self) -> dict[str, int]:
        """Requests per API, summed over the calls."""
        total: dict[str, int] = {}
        for sample in self.samples:
            for api, n in sample.usage.calls.items():
                total[api] = total.get(api, 0) + n
        return total


@dataclass
class LargeValue:
    """One large channel value on one saver: whether it came back byte for byte."""

    size: int
    status: str  # ROUND_TRIP, or what went wrong
    put: Usage
    get: Usage | None  # None: not read back (the put failed)
    rows_before: int
    rows_after: int
    reader_sees: str  # what get_tuple of the thread answers after the put


@dataclass
class Results:
    plan: Plan
    calls: dict[str, dict[str, Calls]]  # saver -> call kind -> its calls
    turns: dict[str, list[int]]  # saver -> requests of each graph.invoke
    large: dict[str, list[LargeValue]]
    seconds: float = 0.0


class Metered(BaseCheckpointSaver[Any]):
    """Hands every call to `inner` and measures it, one call at a time (LangGraph may
    call from its background threads): the graph's calls and the bench's alike."""

    def __init__(self, inner: BaseCheckpointSaver[Any], meter: Meter) -> None:
        super().__init__(serde=inner.serde)
        self.inner = inner
        self.meter = meter
        self.calls: dict[str, Calls] = {}
        self._one_at_a_time = threading.Lock()

    def _measure(self, kind: str, call: Callable[[], Any]) -> Any:
        with self._one_at_a_time:
            sample = self.meter.measure(call)
        self.calls.setdefault(kind, Calls()).samples.append(sample)
        return sample.result

    def requests(self) -> int:
        return sum(s.usage.requests for c in self.calls.values() for s in c.samples)

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        found: CheckpointTuple | None = self._measure(
            "get_tuple", lambda: self.inner.get_tuple(config)
        )
        return found

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        found = self._measure(
            f"list(limit={limit})",
            lambda: list(self.inner.list(config, filter=filter, before=before, limit=limit)),
        )
        return iter(found)

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        stored: RunnableConfig = self._measure(
            "put", lambda: self.inner.put(config, checkpoint, metadata, new_versions)
        )
        return stored

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        self._measure(
            "put_writes", lambda: self.inner.put_writes(config, writes, task_id, task_path)
        )

    def delete_thread(self, thread_id: str) -> None:
        self._measure("delete_thread", lambda: self.inner.delete_thread(thread_id))

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        self._measure(
            "copy_thread", lambda: self.inner.copy_thread(source_thread_id, target_thread_id)
        )

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        self._measure(f"prune({strategy})", lambda: self.inner.prune(thread_ids, strategy=strategy))

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        self._measure("delete_for_runs", lambda: self.inner.delete_for_runs(run_ids))

    def get_next_version(self, current: Any, channel: None) -> Any:
        return self.inner.get_next_version(current, channel)


# the savers


def _ours(table: str) -> BaseCheckpointSaver[Any]:
    ours = DynamoDBSaver(table, region_name=REGION)
    ours.setup()  # the store's table, as `DynamoDBStore.setup()` creates it
    saver: BaseCheckpointSaver[Any] = ours
    return saver


def _peer(table: str) -> BaseCheckpointSaver[Any]:
    from langgraph_checkpoint_aws.checkpoint.dynamodb import DynamoDBSaver as Peer

    # the peer creates no table: its tests create PK (hash) and SK (range), on demand
    tables.create_table(boto3.client("dynamodb", region_name=REGION), table)
    saver: BaseCheckpointSaver[Any] = Peer(table_name=table, region_name=REGION)
    return saver


SAVERS: dict[str, Callable[[str], BaseCheckpointSaver[Any]]] = {
    OURS: _ours,
    CHECKPOINT_AWS: _peer,
}


# the graph


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


def _replies() -> Iterator[AIMessage]:
    """The fake model's replies: a tool call, then an answer, and again."""
    for i in itertools.count():
        topic = TOPICS[i // 2 % len(TOPICS)]
        if i % 2 == 0:
            call = {"name": "lookup", "args": {"topic": topic}, "id": f"call-{i}"}
            yield AIMessage("", tool_calls=[call])
        else:
            yield AIMessage(f"From your notes: the customer {topic}.")


def graph(saver: BaseCheckpointSaver[Any]) -> Any:
    """agent -> tools -> agent -> end, one turn; the model is fake, the checkpointer real."""
    model = GenericFakeChatModel(messages=_replies())

    def agent(state: State) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    def tools(state: State) -> dict[str, Any]:
        last = state["messages"][-1]
        assert isinstance(last, AIMessage)
        return {
            "messages": [
                ToolMessage(f"notes on {c['args']['topic']}: 3 entries", tool_call_id=c["id"])
                for c in last.tool_calls
            ]
        }

    def route(state: State) -> str:
        last = state["messages"][-1]
        return "tools" if isinstance(last, AIMessage) and last.tool_calls else END

    builder = StateGraph(State)
    builder.add_node("agent", agent)
    builder.add_node("tools", tools)
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", route, ["tools", END])
    builder.add_edge("tools", "agent")
    return builder.compile(checkpointer=saver)


def _thread(t: int) -> str:
    return f"thread-{t}"


def _config(thread_id: str) -> RunnableConfig:
    return {"configurable": {"thread_id": thread_id}}


def _workload(saver: Metered, plan: Plan) -> list[int]:
    """The graph's turns, the reads, the extended calls, the deletes; requests per turn."""
    app = graph(saver)
    per_turn = []
    last_run: dict[str, str] = {}
    for t in range(plan.threads):
        for turn in range(plan.turns):
            run_id = str(uuid.uuid4())
            # the run's id in the metadata of its checkpoints, as Agent Server puts it
            config: RunnableConfig = {**_config(_thread(t)), "metadata": {"run_id": run_id}}
            before = saver.requests()
            message = HumanMessage(f"turn {turn}: what do you know about my account?")
            app.invoke({"messages": [message]}, config, durability="sync")
            per_turn.append(saver.requests() - before)
            last_run[_thread(t)] = run_id
    for t in range(plan.threads):
        saver.get_tuple(_config(_thread(t)))
        list(saver.list(_config(_thread(t)), limit=LIST_LIMIT))
    first, other = _thread(0), _thread(plan.threads - 1)
    extended: list[tuple[str, Callable[[], None]]] = [
        ("copy_thread", lambda: saver.copy_thread(first, f"{first}-copy")),
        ("prune(keep_latest)", lambda: saver.prune([f"{first}-copy"], strategy="keep_latest")),
        ("delete_for_runs", lambda: saver.delete_for_runs([last_run[other]])),
    ]
    for kind, call in extended:
        try:
            call()
        except NotImplementedError:
            saver.calls[kind] = Calls(status=NOT_SUPPORTED)
        except Exception as error:  # a saver that cannot do it: report, not crash
            saver.calls[kind] = Calls(status=f"fails: {type(error).__name__}: {error}"[:120])
    for thread_id in [_thread(t) for t in range(plan.threads)] + [f"{first}-copy"]:
        saver.delete_thread(thread_id)
    return per_turn


# large values


def _attempt(call: Callable[[], Any]) -> Any:
    """`call()`, or the exception it raised (measured like an answer)."""
    try:
        return call()
    except Exception as error:
        return error


def _reading(answer: Any) -> str:
    if isinstance(answer, Exception):
        return f"{type(answer).__name__}"
    if answer is None:
        return "nothing (None)"
    return "a checkpoint"


def large_value(saver: BaseCheckpointSaver[Any], meter: Meter, table: str, size: int) -> LargeValue:
    """Put a checkpoint whose one channel holds `size` random bytes, then read it back."""
    data = random.Random(size).randbytes(size)
    config: RunnableConfig = {"configurable": {"thread_id": f"large-{size}", "checkpoint_ns": ""}}
    version = saver.get_next_version(None, None)
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"blob": data}
    checkpoint["channel_versions"] = {"blob": version}
    metadata: CheckpointMetadata = {"source": "input", "step": -1, "parents": {}}
    rows_before = fill.item_count(table)
    put = meter.measure(
        lambda: _attempt(lambda: saver.put(config, checkpoint, metadata, {"blob": version}))
    )
    rows_after = fill.item_count(table)
    if isinstance(put.result, Exception):
        seen = _attempt(lambda: saver.get_tuple(config))
        error = put.result
        status = f"fails: {type(error).__name__}: {str(error)[:160]}"
        return LargeValue(size, status, put.usage, None, rows_before, rows_after, _reading(seen))
    got = meter.measure(lambda: _attempt(lambda: saver.get_tuple(put.result)))
    found = got.result
    values = found.checkpoint["channel_values"] if isinstance(found, CheckpointTuple) else {}
    if values.get("blob") == data:
        status = ROUND_TRIP
    else:
        status = f"WRONG: read back {_reading(found)} without the same bytes"
    return LargeValue(size, status, put.usage, got.usage, rows_before, rows_after, _reading(found))


# the run


def run(plan: Plan) -> Results:
    os.environ.setdefault("AWS_DEFAULT_REGION", REGION)
    started = time.perf_counter()
    results = Results(plan, {}, {}, {})
    with mock_aws(), Meter() as meter:
        for name, make in SAVERS.items():
            began = time.perf_counter()
            metered = Metered(make(TABLES[name]), meter)
            with meter.delays(plan.latency):
                results.turns[name] = _workload(metered, plan)
                results.calls[name] = metered.calls
                results.large[name] = [
                    large_value(metered.inner, meter, TABLES[name], size) for size in plan.sizes
                ]
            print(f"  {name}: {time.perf_counter() - began:.1f} s", file=sys.stderr, flush=True)
    results.seconds = time.perf_counter() - started
    return results


# the report


def _ratio(ours: float, peer: float) -> str:
    return f"{ours / peer:.2f}x" if peer else "-"


def _cell(results: Results, kind: str, value: Callable[[Calls], float], fmt: str) -> str:
    """`ours / peer (ours/peer)` for one metric of one call kind."""
    ours, peer = (results.calls[name].get(kind) for name in (OURS, CHECKPOINT_AWS))
    if ours is None or ours.status != "ok":
        return ours.status if ours else "-"
    if peer is None or peer.status != "ok":
        return f"{value(ours):{fmt}} / peer: {peer.status if peer else '-'}"
    return _pair(value(ours), value(peer), fmt)


def _pair(mine: float, theirs: float, fmt: str) -> str:
    return f"{mine:{fmt}} / {theirs:{fmt}} ({_ratio(mine, theirs)})"


def per_checkpoint(calls: dict[str, Calls], attribute: str) -> float:
    """`attribute` of every put and put_writes, per checkpoint put (the issue's measure of
    requests per checkpoint)."""
    puts = calls["put"].samples
    writes = calls["put_writes"].samples if "put_writes" in calls else []
    return sum(float(getattr(s.usage, attribute)) for s in puts + writes) / len(puts)


def markdown(results: Results) -> str:
    plan, lat = results.plan, results.plan.latency
    peer = CHECKPOINT_AWS
    checkpoints = {n: len(c["put"].samples) for n, c in results.calls.items()}
    lines = [
        f"# Checkpointers: ours vs {peer}'s `DynamoDBSaver`",
        "",
        f"Generated by `make bench` (`python -m bench.checkpoint`) on "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, on the local emulation, in "
        f"{results.seconds:.0f} s.",
        "",
        f"Workload: a ReAct-like graph (agent with a fake chat model, a tool node, a "
        f"`messages` channel), {plan.turns} turns on each of {plan.threads} threads "
        f'(`durability="sync"`; {checkpoints[OURS]} checkpoints on ours, '
        f"{checkpoints[peer]} on the peer), then per thread `get_tuple` and `{LIST}`, the "
        f"extended calls on one thread, and `delete_thread` of every thread. Each cell: "
        f"ours / peer (ours/peer; below 1: ours sends less or is faster), the mean per "
        f"call. Units from the stored items' sizes (`bench/capacity.py`; a transactional "
        f"write costs two units per KB); bytes: request bodies sent. Latency model: "
        f"{lat.dynamodb_ms:g} ms per DynamoDB request, the emulator's time subtracted "
        f"(`bench/instrument.py`), median per call: it does not charge for bytes.",
        "",
        "| call | calls | requests | write units | read units | KB sent | latency ms |",
        "|---|---|---|---|---|---|---|",
    ]
    for kind in KINDS:
        counts = [results.calls[n].get(kind) for n in (OURS, peer)]
        made = " / ".join(str(len(c.samples)) if c and c.samples else "-" for c in counts)
        cells = [
            _cell(results, kind, lambda c: c.mean("requests"), ".2f"),
            _cell(results, kind, lambda c: c.mean("write_units"), ".1f"),
            _cell(results, kind, lambda c: c.mean("read_units"), ".1f"),
            _cell(results, kind, lambda c: c.mean("bytes_sent") / 1024, ".1f"),
            _cell(results, kind, lambda c: c.latency_ms, ".1f"),
        ]
        lines.append(f"| {kind} | {made} | " + " | ".join(cells) + " |")
    checkpoint = [
        _pair(
            per_checkpoint(results.calls[OURS], attribute) / scale,
            per_checkpoint(results.calls[peer], attribute) / scale,
            fmt,
        )
        for attribute, scale, fmt in (
            ("requests", 1, ".2f"),
            ("write_units", 1, ".1f"),
            ("bytes_sent", 1024, ".1f"),
        )
    ]
    ours_turn, peer_turn = (statistics.fmean(results.turns[n]) for n in (OURS, peer))
    lines += [
        f"| per checkpoint (its put and put_writes) | - | {checkpoint[0]} | {checkpoint[1]} "
        f"| | {checkpoint[2]} | |",
        f"| per turn (`graph.invoke`) | {len(results.turns[OURS])} / "
        f"{len(results.turns[peer])} | {_pair(ours_turn, peer_turn, '.2f')} | | | | |",
        "",
        "## Request budgets of ours (issue 22)",
        "",
        "| call | budget (requests) | ours: most / mean | peer: most / mean | met |",
        "|---|---:|---|---|---|",
    ]
    for kind, budget in BUDGETS.items():
        mine, theirs = results.calls[OURS][kind], results.calls[peer][kind]
        most = mine.most("requests")
        lines.append(
            f"| {kind} | {budget} | {most:g} / {mine.mean('requests'):.2f} | "
            f"{theirs.most('requests'):g} / {theirs.mean('requests'):.2f} | "
            f"{'yes' if most <= budget else '**no**'} |"
        )
    lines += ["", "## Requests by API (all calls of a kind)", ""]
    for kind in KINDS:
        parts = []
        for name in (OURS, peer):
            calls = results.calls[name].get(kind)
            if calls is None or calls.status != "ok":
                parts.append(f"{name}: {calls.status if calls else '-'}")
            else:
                apis = ", ".join(f"{api}={n}" for api, n in sorted(calls.apis.items()))
                parts.append(f"{name}: {apis or 'none'}")
        lines.append(f"- {kind}: " + "; ".join(parts))
    lines += [
        "",
        "## Large channel values",
        "",
        "One checkpoint whose one channel holds random bytes, put then read back with "
        "`get_tuple`; rows: the saver's table before and after the put; a reader: what "
        "`get_tuple` of the thread answers after it. The peer runs without an S3 bucket "
        "(`s3_offload_config` unset), as configured by default.",
        "",
        "| saver | value | result | put: requests / write units / MB sent | get_tuple: "
        "requests / read units | rows before -> after | a reader sees |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, values in results.large.items():
        for v in values:
            put = f"{v.put.requests} / {v.put.write_units:g} / {v.put.bytes_sent / MB:.1f}"
            get = f"{v.get.requests} / {v.get.read_units:g}" if v.get else "-"
            lines.append(
                f"| {name} | {v.size / MB:g} MB | {v.status} | {put} | {get} | "
                f"{v.rows_before} -> {v.rows_after} | {v.reader_sees} |"
            )
    lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=Plan.threads)
    parser.add_argument("--turns", type=int, default=Plan.turns)
    parser.add_argument("--sizes-mb", type=float, nargs="+", default=[1, 10])
    parser.add_argument("--dynamodb-ms", type=float, default=Latency.dynamodb_ms)
    args = parser.parse_args(argv)
    plan = Plan(
        threads=args.threads,
        turns=args.turns,
        sizes=tuple(int(mb * MB) for mb in args.sizes_mb),
        latency=Latency(dynamodb_ms=args.dynamodb_ms),
    )
    print(markdown(run(plan)))


if __name__ == "__main__":
    main()
