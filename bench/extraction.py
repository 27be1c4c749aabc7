"""Memories that form themselves (issue 32), measured on the emulation: how long from a
turn to a searchable memory, what a trigger costs in model calls and tokens, what a
memory costs in requests and write units, and how fast one tenant's 100 busy threads are
caught up.

    python -m bench.extraction [--turns 20] [--threads 100] [--converse-s 1.5] [--out DIR]

The deployed topology runs in this process on the in-process emulation: the stream
consumer (`StreamConsumer`, one reader of the stream) embeds and routes new checkpoints
to the extraction queue; the extraction worker (`ExtractionWorker`, as Lambda's SQS event
source delivers it) forms the memories with the semantic facts strategy, idle trigger 0,
and the default consolidator, embedding each memory as it writes it (the Lambda's store:
`embed_on="write"`). Each turn states one fact ("My favourite number is n."), so each
trigger forms one memory.

Latency model: the emulated Converse answers after `--converse-s` seconds (a real
model's structured-output call; `EmulatorSettings.converse_latency`), and the stream is read
every `--batching-s` seconds (the stack's `max_batching_window` on the consumer's event
source: a quiet table waits that long at most), turns arriving at random moments of it.
A turn's memory waits for the stream once: its checkpoint to be routed.
Not modelled: the stream's own propagation (sub-second on AWS), Lambda's invocation
overhead and DynamoDB's round trips (milliseconds each, against seconds of model time).
The emulation runs one extraction Lambda at a time (10 threads a batch, concurrently): the
100-thread figure is one Lambda instance's; the deployed event source runs several.

Costs are counted at botocore's boundary (`bench.instrument.Meter`) over the extraction
alone (routing, extraction, embedding of the memories; the turns' own writes excluded),
with the pipeline driven deterministically (`drain_stream`, `drain_queue`).
"""

from __future__ import annotations

import argparse
import random
import statistics
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3
from botocore.client import BaseClient
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.extraction import ExtractionConfig, Extractor, SemanticFacts, Trigger
from langgraph.store.dynamodb.extraction.worker.queue_worker import ExtractionWorker
from langgraph.store.dynamodb.handlers.extraction_queue import ExtractionRequest, message
from langgraph.store.dynamodb.stream.consumer import EXTRACTION_PATTERNS, StreamConsumer
from langgraph.store.dynamodb.table.schema import (
    CURSOR,
    DAY,
    EXTRACTION_CONFIG,
    EXTRACTION_KIND,
    GROUPS_PK,
    ITEM_PREFIX,
    LEDGER,
    LEDGER_INDEX,
    META_PK,
    PK,
    RECENCY_INDEX,
    REGISTRY_PREFIX,
    SK,
    THREAD_KIND,
)
from langgraph.store.dynamodb.table.usage import CONVERSE, UsageRecord
from langgraph.store.dynamodb.testing import (
    EmulatorSettings,
    LexicalEmbeddings,
    drain_stream,
    mock_aws,
    run_consumer,
)
from langgraph.store.dynamodb.testing.auto_extract import extraction_queues
from langgraph.store.dynamodb.testing.queues import drain_queue, run_queue

from .instrument import Meter, Usage

TABLE = "extraction"
REGION = "us-east-1"
TENANT = "acme"
DIMS = 64
RESULTS = Path(__file__).parent / "results"
# How often a turn's memory is looked for while waiting for it (a search each time).
LOOK_EVERY = 0.05
TIMEOUT = 120.0


@dataclass
class Rig:
    """The table, its store and saver, the pipeline's consumer and worker."""

    store: DynamoDBStore
    saver: DynamoDBSaver
    extractor: Extractor
    consumer: StreamConsumer
    worker: ExtractionWorker
    queue_url: str
    graph: Any
    usage: list[UsageRecord]

    def turn(self, thread: str, text: str) -> str:
        """One user turn; the checkpoint it ended with."""
        config = {"configurable": {"thread_id": thread, "tenant": TENANT}}
        self.graph.invoke({"messages": [HumanMessage(text)]}, config)
        return str(self.graph.get_state(config).config["configurable"]["checkpoint_id"])

    def searchable(self, thread: str, text: str) -> bool:
        hits = self.store.search(("memories", TENANT, thread), query=text, limit=5)
        return any(hit.value["text"] == text and hit.score is not None for hit in hits)


def _reply(state: MessagesState) -> dict[str, Any]:
    return {"messages": [AIMessage("Noted.")]}


def rig() -> Rig:
    """The pipeline on the emulation already running."""
    usage: list[UsageRecord] = []
    embeddings = LexicalEmbeddings(dims=DIMS)
    index = {"dims": DIMS, "embed": embeddings, "fields": ["text"], "embed_on": "stream"}
    store = DynamoDBStore(TABLE, region_name=REGION, index=index, on_usage=usage.append)  # type: ignore[arg-type]
    store.setup()
    saver = DynamoDBSaver(TABLE, region_name=REGION, tenant_key="tenant")
    # The extraction Lambda's own store (`worker_from_env`): it embeds as it writes.
    embedded = DynamoDBStore(
        TABLE,
        region_name=REGION,
        index={**index, "embed_on": "write"},  # type: ignore[arg-type]
        on_usage=usage.append,
    )
    extractor = Extractor(embedded, saver)
    facts = SemanticFacts(
        name="facts",
        namespace=("memories", "{tenant}", "{thread_id}"),
        trigger=Trigger(idle_seconds=0),
    )
    config = ExtractionConfig(strategies=[facts])
    extractor.set_config(config)
    # A warm Lambda: its chat model's client exists (building one costs ~0.5 s of CPU, and
    # a batch's threads racing to build it on a cold start would each build their own).
    extractor.chat_model(config.model_for(facts))
    sqs = boto3.client("sqs", region_name=REGION)
    queue_url, dead_letter_url = extraction_queues(sqs, TABLE)
    consumer = StreamConsumer(
        TABLE, embeddings=embeddings, region_name=REGION, extraction_queue_url=queue_url, sqs=sqs
    )
    worker = ExtractionWorker(
        extractor, queue_url=queue_url, dead_letter_url=dead_letter_url, sqs=sqs
    )
    graph = StateGraph(MessagesState)
    graph.add_node("reply", _reply)
    graph.add_edge(START, "reply")
    graph.add_edge("reply", END)
    compiled = graph.compile(checkpointer=saver)
    return Rig(store, saver, extractor, consumer, worker, queue_url, compiled, usage)


def fact(n: int) -> tuple[str, str]:
    """A turn stating one fact, and the memory it forms."""
    return f"My favourite number is {n}.", f"User's favourite number is {n}"


# What a request is for, by the rows it touches (a transaction: every purpose of its rows).
LEASE_ATTRIBUTES = ("#owner", "#until")


def purpose(operation: str, params: dict[str, Any], embedding: bool) -> str:
    """What one request of the extraction is for: the rows it names say it."""
    if embedding:
        return "embedding (the stream consumer)"
    if operation == "Query" and params.get("IndexName") == RECENCY_INDEX:
        return "second look (memories written meanwhile)"
    if operation == "Query":
        (pk,) = [v["S"] for k, v in params["ExpressionAttributeValues"].items() if k == ":pk"]
        return "thread (read)" if pk.startswith(THREAD_KIND) else "decisions (nearest memories)"
    if operation == "SearchVectors":
        return "decisions (nearest memories)"
    keys: list[dict[str, Any]] = []
    for entry in params.get("TransactItems", []):
        for body in entry.values():
            keys.append(body.get("Key") or body.get("Item"))
    for spec in params.get("RequestItems", {}).values():
        keys += spec["Keys"] if isinstance(spec, dict) else []
    keys += [params[k] for k in ("Key", "Item") if k in params]
    kinds = [_row_purpose(key, params.get("UpdateExpression", "")) for key in keys]
    return " + ".join(dict.fromkeys(kinds)) or operation


def _row_purpose(key: dict[str, Any], update: str) -> str:
    pk, sk = key[PK]["S"], key[SK]["S"]
    if pk == META_PK:
        return "config" if sk.startswith(EXTRACTION_CONFIG) else "model pin"
    if pk.startswith(REGISTRY_PREFIX) or pk == GROUPS_PK:
        return "namespace registry"
    if pk.startswith(EXTRACTION_KIND):
        if sk.startswith(CURSOR):
            lease_only = update and all(
                a in LEASE_ATTRIBUTES for a in update.replace(",", " ").split() if a[0] == "#"
            )
            return "lease" if lease_only else "cursor"
        if sk.startswith(DAY):
            return "usage (token budget)"
        if sk.startswith((LEDGER, LEDGER_INDEX)):
            return "ledger"
    if sk.startswith(ITEM_PREFIX):
        return "memory"
    return f"{pk[:3]}..{sk[:2]}"


@dataclass
class Purposes:
    """Requests and write units of the extraction by purpose (`purpose`), counted around
    the meter's own accounting (one request at a time, so each request's units are its
    own)."""

    meter: Meter
    requests: Counter[str] = field(default_factory=Counter)
    write_units: Counter[str] = field(default_factory=Counter)
    _one: threading.RLock = field(default_factory=threading.RLock)
    _embedding: bool = False  # inside the consumer (drained alone: any thread's request)

    @contextmanager
    def counting(self) -> Iterator[None]:
        original = BaseClient._make_api_call
        purposes = self

        def call(client: BaseClient, operation: str, params: dict[str, Any]) -> Any:
            if client.meta.service_model.service_name != "dynamodb":
                return original(client, operation, params)
            with purposes._one:
                before = purposes.meter.usage.write_units
                try:
                    return original(client, operation, params)
                finally:
                    what = purpose(operation, params, purposes._embedding)
                    purposes.requests[what] += 1
                    purposes.write_units[what] += purposes.meter.usage.write_units - before

        BaseClient._make_api_call = call  # type: ignore[method-assign]
        try:
            yield
        finally:
            BaseClient._make_api_call = original  # type: ignore[method-assign]

    def embedding(self, handle: Callable[..., Any]) -> Callable[..., Any]:
        """`handle` (the stream consumer's) with its requests counted as embedding."""

        def handled(*args: Any, **kwargs: Any) -> Any:
            self._embedding = True
            try:
                return handle(*args, **kwargs)
            finally:
                self._embedding = False

        return handled


@dataclass(frozen=True)
class Costs:
    memories: int
    triggers: int
    model_calls: int
    input_tokens: int
    output_tokens: int
    dynamodb_requests: int
    sqs_requests: int
    write_units: float
    read_units: float
    calls: dict[str, int]
    requests_by_purpose: dict[str, int]
    write_units_by_purpose: dict[str, float]
    idle_triggers: int
    idle_requests: int
    idle_by_purpose: dict[str, int]


def costs(meter: Meter, threads: int) -> Costs:
    """One turn on each of `threads` threads, then the extraction alone, metered."""
    r = rig()
    drain_stream(TABLE, r.consumer.handle, filter_patterns=EXTRACTION_PATTERNS)
    checkpoints = [r.turn(f"c{n}", fact(n)[0]) for n in range(threads)]
    r.usage.clear()
    meter.usage = Usage()
    purposes = Purposes(meter)
    consume = purposes.embedding(r.consumer.handle)
    with purposes.counting():
        drain_stream(TABLE, consume, filter_patterns=EXTRACTION_PATTERNS)
        drain_queue(r.queue_url, r.worker.handle)
        drain_stream(TABLE, consume, filter_patterns=EXTRACTION_PATTERNS)
    usage, meter.usage = meter.usage, Usage()
    # A trigger that finds nothing new: each thread's request delivered again.
    sqs = boto3.client("sqs", region_name=REGION)
    for n, checkpoint in enumerate(checkpoints):
        sqs.send_message(
            QueueUrl=r.queue_url, **message(ExtractionRequest(TENANT, f"c{n}", checkpoint))
        )
    idle = Purposes(meter)
    with idle.counting():
        drain_queue(r.queue_url, r.worker.handle)
    meter.usage = Usage()
    memories = sum(r.searchable(f"c{n}", fact(n)[1]) for n in range(threads))
    conversed = [u for u in r.usage if u.operation == CONVERSE]
    sqs_ops = set(sqs.meta.service_model.operation_names)
    sqs = sum(n for op, n in usage.calls.items() if op in sqs_ops)
    return Costs(
        memories=memories,
        triggers=len(conversed),
        model_calls=sum(u.model_calls for u in conversed),
        input_tokens=sum(u.input_tokens for u in conversed),
        output_tokens=sum(u.output_tokens for u in conversed),
        dynamodb_requests=usage.requests - sqs - usage.calls.get(CONVERSE, 0),
        sqs_requests=sqs,
        write_units=usage.write_units,
        read_units=usage.read_units,
        calls=dict(usage.calls),
        requests_by_purpose=dict(purposes.requests),
        write_units_by_purpose=dict(purposes.write_units),
        idle_triggers=threads,
        idle_requests=sum(idle.requests.values()),
        idle_by_purpose=dict(idle.requests),
    )


def latencies(turns: int, batching: float) -> list[float]:
    """Seconds from each turn's end to its memory being searchable, turns one by one."""
    r = rig()
    found = []
    arrivals = random.Random(32)
    with (
        run_consumer(
            TABLE, r.consumer.handle, interval=batching, filter_patterns=EXTRACTION_PATTERNS
        ),
        run_queue(r.queue_url, r.worker.handle, interval=LOOK_EVERY),
    ):
        for n in range(turns):
            said, formed = fact(n)
            # Turns arrive at random moments of the stream's batching window.
            time.sleep(arrivals.uniform(0, batching))
            r.turn(f"l{n}", said)
            started = time.monotonic()
            while not r.searchable(f"l{n}", formed):
                if time.monotonic() - started > TIMEOUT:
                    raise SystemExit(f"turn {n}: no searchable memory after {TIMEOUT:.0f} s")
                time.sleep(LOOK_EVERY)
            found.append(time.monotonic() - started)
    return found


def throughput(threads: int, batching: float) -> tuple[float, float]:
    """One turn on each of `threads` threads at once: seconds until every thread is
    processed (the extractor's wait), and until every memory is searchable."""
    r = rig()
    with (
        run_consumer(
            TABLE, r.consumer.handle, interval=batching, filter_patterns=EXTRACTION_PATTERNS
        ),
        run_queue(r.queue_url, r.worker.handle, interval=LOOK_EVERY),
    ):
        with ThreadPoolExecutor(max_workers=min(threads, 20)) as pool:
            checkpoints = list(pool.map(lambda n: r.turn(f"p{n}", fact(n)[0]), range(threads)))
        started = time.monotonic()
        for n, checkpoint in enumerate(checkpoints):
            r.extractor.wait_until_processed(TENANT, f"p{n}", checkpoint, timeout=TIMEOUT * 5)
        processed = time.monotonic() - started
        for n in range(threads):
            while not r.searchable(f"p{n}", fact(n)[1]):
                if time.monotonic() - started > TIMEOUT * 5:
                    raise SystemExit(f"thread p{n}: no searchable memory in time")
                time.sleep(LOOK_EVERY)
        return processed, time.monotonic() - started


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def report(
    args: argparse.Namespace, waits: list[float], c: Costs, processed: float, searchable: float
) -> str:
    p50, p95 = statistics.median(waits), percentile(waits, 95)
    per = max(c.memories, 1)
    calls = ", ".join(f"{op} {n}" for op, n in sorted(c.calls.items()))
    return "\n".join(
        [
            "# Memories that form themselves: latency, cost, throughput",
            "",
            "`python -m bench.extraction "
            f"--turns {args.turns} --threads {args.threads} --converse-s {args.converse_s:g} "
            f"--batching-s {args.batching_s:g}` on the in-process emulation (see the module's "
            "docstring for the model: Converse "
            f"{args.converse_s:g} s a call, the stream read every {args.batching_s:g} s; "
            "idle trigger 0; one extraction Lambda at a time).",
            "",
            "| measure | value | goal / comparison |",
            "|---|---:|---|",
            f"| turn -> memory searchable, p50 ({len(waits)} turns) | {p50:.2f} s | "
            "<= 10 s (AgentCore: 20-40 s to a minute) |",
            f"| turn -> memory searchable, p95 ({len(waits)} turns) | {p95:.2f} s | <= 20 s |",
            f"| turn -> memory searchable, max | {max(waits):.2f} s | |",
            f"| model calls per trigger | {c.model_calls / max(c.triggers, 1):.2f} | "
            f"{c.triggers} triggers |",
            f"| input tokens per trigger | {c.input_tokens / max(c.triggers, 1):.0f} | |",
            f"| output tokens per trigger | {c.output_tokens / max(c.triggers, 1):.0f} | |",
            f"| DynamoDB requests per memory | {c.dynamodb_requests / per:.1f} | "
            f"{c.memories} memories |",
            f"| SQS requests per memory | {c.sqs_requests / per:.1f} | |",
            f"| write units per memory | {c.write_units / per:.1f} | "
            "transactional writes count double |",
            f"| read units per memory | {c.read_units / per:.1f} | |",
            f"| {args.threads} threads of one tenant at once: all processed | {processed:.1f} s "
            f"| {args.threads / processed:.1f} threads/s, one Lambda instance |",
            f"| {args.threads} threads of one tenant at once: all searchable | "
            f"{searchable:.1f} s | {args.threads / searchable:.1f} memories/s |",
            "",
            f"Calls of the extraction of {c.memories} memories, by operation: {calls}.",
            "",
            "DynamoDB requests and write units per memory, by purpose (what the rows a "
            "request names are for; a transaction counts once, under all its purposes):",
            "",
            "| purpose | requests per memory | write units per memory |",
            "|---|---:|---:|",
            *(
                f"| {what} | {n / per:.2f} | {c.write_units_by_purpose.get(what, 0) / per:.2f} |"
                for what, n in sorted(c.requests_by_purpose.items(), key=lambda kv: -kv[1])
            ),
            "",
            f"A trigger that finds nothing new (each thread's request delivered again, "
            f"{c.idle_triggers} triggers): "
            f"{c.idle_requests / max(c.idle_triggers, 1):.2f} DynamoDB requests each ("
            + ", ".join(
                f"{what} {n / max(c.idle_triggers, 1):.2f}"
                for what, n in sorted(c.idle_by_purpose.items(), key=lambda kv: -kv[1])
            )
            + ").",
            "",
            "Turn-to-searchable waits (s): " + ", ".join(f"{w:.2f}" for w in waits),
            "",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=20, help="turns timed one by one")
    parser.add_argument("--threads", type=int, default=100, help="threads busy at once")
    parser.add_argument("--converse-s", type=float, default=1.5, help="a model call's latency")
    parser.add_argument("--batching-s", type=float, default=2.0, help="stream read interval")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    settings = EmulatorSettings(converse_latency=args.converse_s)
    with mock_aws(), Meter() as meter:
        measured = costs(meter, min(args.threads, 20))
    with mock_aws(settings=settings):
        waits = latencies(args.turns, args.batching_s)
    with mock_aws(settings=settings):
        processed, searchable = throughput(args.threads, args.batching_s)
    text = report(args, waits, measured, processed, searchable)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "extraction.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
