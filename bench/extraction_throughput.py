"""Throughput of memory formation with several extraction Lambda instances (issue 43), and
what the fair queue gives a quiet tenant while another floods it, on the emulation.

    python -m bench.extraction_throughput [--threads 100] [--instances 1 2 5 10]
        [--fair-instances 1 5] [--converse-s 1.5] [--batching-s 2] [--out DIR]

The pipeline of `bench.extraction` (its `rig`: the stream consumer read every
`--batching-s` seconds, routing each thread's new checkpoint to the extraction queue, a
standard queue whose `MessageGroupId` is the tenant; the semantic facts strategy, idle
trigger 0; Converse answering after `--converse-s` seconds; the consumer embedding the
memories), with N extraction Lambda instances instead of one: each instance has its own
`ExtractionWorker`, `Extractor`, store, saver and clients (as separate Lambda instances
have) and its own poller of the queue (Lambda's event source, batches of 10, one batch at
a time per instance), receiving with the stack's 30-minute visibility timeout so that a
batch in flight is no other instance's. N is the event source's concurrency (the stack
sets none: Lambda scales its pollers with the backlog, up to the function's reserved
concurrency).

The emulated SQS models SQS fair queues' concurrency-share rule (a tenant with more than
10% of the queue's in-flight messages and at least 30 of its own is a noisy neighbour,
whose waiting messages go after the quiet tenants'), not their processing-time rule; see
`langgraph.store.dynamodb.testing._sqs`.

Measures:
- **Throughput**: one turn on each of `--threads` threads of one tenant at once (written
  while the pipeline is stopped; it starts at the moment they count as said: a burst of
  100 records fills the stream consumer's batch of 100, which Lambda invokes without
  waiting out the batching window); per thread, seconds from the turn to its memory
  searchable (p50, p95); threads per second, `--threads` over the time until the last
  memory is searchable; how the requests spread over the instances; and duplicates: the
  current memories of each thread's namespace counted by text (a text held twice is one
  duplicate). One more run at the largest N first delivers every thread's request twice
  more (SQS delivers at least once), the two copies in adjacent batches of 10 so that two
  instances run the same threads at once (then the router's own request, caught up).
- **Fairness**: a tenant floods the queue (`--threads` threads, one turn each, in the
  stream when the pipeline starts), then another tenant sends one turn; seconds from that
  turn to its memory searchable, at each N of `--fair-instances`, with the fair queue and,
  from 3 instances (below, the emulated rule cannot fire: see above), without it
  (`EmulatorSettings(fair_queues=False)`: the queue delivers in the order it was sent).
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.extraction import Extractor
from langgraph.store.dynamodb.extraction.worker.queue_worker import ExtractionWorker
from langgraph.store.dynamodb.handlers.extraction_queue import (
    BATCH_ENTRIES,
    ExtractionRequest,
    send_entry,
)
from langgraph.store.dynamodb.stream.consumer import EXTRACTION_PATTERNS
from langgraph.store.dynamodb.testing import (
    EmulatorSettings,
    LexicalEmbeddings,
    mock_aws,
    run_consumer,
)
from langgraph.store.dynamodb.testing.queues import run_queue

from .extraction import DIMS, LOOK_EVERY, REGION, RESULTS, TABLE, Rig, fact, percentile, rig

# The stack's visibility timeout of the extraction queue (infra/backend.py).
VISIBILITY = 30 * 60
TIMEOUT = 300.0
FLOOD, QUIET = "loud", "quiet"


@dataclass
class Instance:
    """One extraction Lambda instance: its own worker, extractor, store, saver and
    clients; it counts the requests it handled, by tenant."""

    worker: ExtractionWorker
    sqs: Any
    handled: Counter[str] = field(default_factory=Counter)
    threads: set[tuple[str, str]] = field(default_factory=set)
    # seconds each tenant's requests waited in the queue, sent -> received (SQS: dwell)
    dwell: dict[str, list[float]] = field(default_factory=dict)
    _count: threading.Lock = field(default_factory=threading.Lock)

    def handle(self, event: dict[str, Any], context: Any = None) -> Any:
        with self._count:
            for record in event["Records"]:
                request = ExtractionRequest.parse(record["body"])
                self.handled[request.tenant] += 1
                self.threads.add((request.tenant, request.thread_id))
                sent = int(record["attributes"]["SentTimestamp"]) / 1000
                self.dwell.setdefault(request.tenant, []).append(time.time() - sent)
        return self.worker.handle(event, context)


def instance(r: Rig) -> Instance:
    """A new instance of the extraction Lambda of `r`'s table, warm (its chat model's
    client built, as in `bench.extraction.rig`)."""
    index = {"dims": DIMS, "embed": LexicalEmbeddings(dims=DIMS), "fields": ["text"]}
    store = DynamoDBStore(TABLE, region_name=REGION, index={**index, "embed_on": "stream"})  # type: ignore[arg-type]
    saver = DynamoDBSaver(TABLE, region_name=REGION, tenant_key="tenant")
    extractor = Extractor(store, saver)
    config = r.extractor.config()
    for strategy in config.strategies:
        extractor.chat_model(config.model_for(strategy))
    sqs = boto3.client("sqs", region_name=REGION)
    worker = ExtractionWorker(
        extractor, queue_url=r.queue_url, dead_letter_url=r.worker.dead_letter_url, sqs=sqs
    )
    return Instance(worker, sqs)


class Embedded:
    """The stream consumer's batches, counted: a memory becomes searchable only when a
    batch of the consumer embeds it, so the watcher looks after each batch, not
    continuously (a search per pending thread every 50 ms would take this process's one
    core from the instances it measures)."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle
        self._done = threading.Condition()
        self.batches = 0

    def handle(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return self._handle(*args, **kwargs)
        finally:
            with self._done:
                self.batches += 1
                self._done.notify_all()

    def wait_past(self, batches: int, timeout: float) -> int:
        """Wait until more than `batches` batches ran; how many have."""
        with self._done:
            self._done.wait_for(lambda: self.batches > batches, timeout=timeout)
            return self.batches


@contextmanager
def running(r: Rig, instances: list[Instance], batching: float) -> Iterator[Embedded]:
    """The stream consumer and one poller per instance, for the life of the block (all
    reading at once: a burst of 100 records fills the consumer's batch, which Lambda
    then invokes without waiting out its batching window). What the pollers or the
    handlers raised fails the run."""
    pollers: list[Any] = []
    consumer = Embedded(r.consumer.handle)
    with ExitStack() as stack:
        pollers.append(
            stack.enter_context(
                run_consumer(
                    TABLE, consumer.handle, interval=batching, filter_patterns=EXTRACTION_PATTERNS
                )
            )
        )
        for each in instances:
            pollers.append(
                stack.enter_context(
                    run_queue(
                        r.queue_url,
                        each.handle,
                        interval=LOOK_EVERY,
                        client=each.sqs,
                        visibility_timeout=VISIBILITY,
                    )
                )
            )
        yield consumer
    errors = [e for p in pollers for e in [*p.loop_errors, *getattr(p, "report", p).errors]]
    if errors:
        raise SystemExit(f"the pipeline failed: {errors[:3]!r}")


def say(r: Rig, tenant: str, thread: str, text: str) -> tuple[float, str]:
    """One user turn: when it ended, and its checkpoint."""
    config = {"configurable": {"thread_id": thread, "tenant": tenant}}
    r.graph.invoke({"messages": [HumanMessage(text)]}, config)
    checkpoint = r.graph.get_state(config).config["configurable"]["checkpoint_id"]
    return time.monotonic(), str(checkpoint)


def searchable(r: Rig, tenant: str, thread: str, text: str) -> bool:
    hits = r.store.search(("memories", tenant, thread), query=text, limit=5)
    return any(hit.value["text"] == text and hit.score is not None for hit in hits)


def watch(
    r: Rig, consumer: Embedded, said: dict[tuple[str, str], str]
) -> dict[tuple[str, str], float]:
    """When each (tenant, thread)'s memory `text` became searchable: looked for after each
    of the consumer's batches (a memory is found at most one round of searches late)."""
    pending, found = dict(said), {}
    deadline = time.monotonic() + TIMEOUT
    seen = 0
    while pending:
        seen = consumer.wait_past(seen, timeout=1.0)
        for (tenant, thread), text in list(pending.items()):
            if searchable(r, tenant, thread, text):
                found[(tenant, thread)] = time.monotonic()
                del pending[(tenant, thread)]
        if time.monotonic() > deadline:
            raise SystemExit(f"{len(pending)} memories not searchable after {TIMEOUT:.0f} s")
    return found


def duplicates(r: Rig, keys: list[tuple[str, str]]) -> tuple[int, int]:
    """Current memories of the threads' namespaces, and how many repeat a text."""
    memories = repeats = 0
    for tenant, thread in keys:
        texts = Counter(
            item.value["text"] for item in r.store.search(("memories", tenant, thread), limit=100)
        )
        memories += sum(texts.values())
        repeats += sum(n - 1 for n in texts.values())
    return memories, repeats


def flood(r: Rig, tenant: str, threads: int) -> dict[tuple[str, str], tuple[str, float, str]]:
    """One turn on each of `threads` threads of `tenant` at once: (memory, when the turn
    ended, its checkpoint) by (tenant, thread)."""

    def one(n: int) -> tuple[tuple[str, str], tuple[str, float, str]]:
        said, formed = fact(n)
        at, checkpoint = say(r, tenant, f"t{n}", said)
        return (tenant, f"t{n}"), (formed, at, checkpoint)

    with ThreadPoolExecutor(max_workers=min(threads, 20)) as pool:
        return dict(pool.map(one, range(threads)))


def deliver_twice(r: Rig, turns: dict[tuple[str, str], tuple[str, float, str]]) -> None:
    """Each thread's extraction request sent twice (SQS delivers at least once), the two
    copies in adjacent batches of 10 (requests 1-10, their copies, 11-20, theirs, ...), so
    that different instances receive them at once."""
    sqs = boto3.client("sqs", region_name=REGION)
    entries = [
        send_entry(ExtractionRequest(tenant, thread, checkpoint), str(n))
        for n, ((tenant, thread), (_, _, checkpoint)) in enumerate(turns.items())
    ]
    for start in range(0, len(entries), BATCH_ENTRIES):
        batch = entries[start : start + BATCH_ENTRIES]
        for _ in range(2):
            sqs.send_message_batch(QueueUrl=r.queue_url, Entries=batch)


@dataclass(frozen=True)
class Throughput:
    instances: int
    threads: int
    twice: bool
    waits: list[float]  # per thread, turn -> searchable (s)
    span: float  # the turns -> the last memory searchable (s)
    cpu: float  # this process's CPU seconds meanwhile (every instance, the emulator, ...)
    spread: list[int]  # threads handled per instance
    memories: int
    duplicates: int

    @property
    def per_second(self) -> float:
        return self.threads / self.span


def throughput(n: int, threads: int, batching: float, *, twice: bool = False) -> Throughput:
    """`threads` threads of one tenant, one turn each at once, with `n` instances: the
    turns are written with the pipeline stopped, which then starts (the moment the turns
    count as said), so the figures do not depend on how fast this process writes them."""
    r = rig()
    instances = [instance(r) for _ in range(n)]
    turns = flood(r, FLOOD, threads)
    if twice:
        deliver_twice(r, turns)
    with running(r, instances, batching) as consumer:
        said, cpu = time.monotonic(), time.process_time()
        found = watch(r, consumer, {key: text for key, (text, _, _) in turns.items()})
        cpu = time.process_time() - cpu
    memories, repeats = duplicates(r, list(turns))
    return Throughput(
        instances=n,
        threads=threads,
        twice=twice,
        waits=sorted(at - said for at in found.values()),
        span=max(found.values()) - said,
        cpu=cpu,
        spread=sorted((sum(each.handled.values()) for each in instances), reverse=True),
        memories=memories,
        duplicates=repeats,
    )


@dataclass(frozen=True)
class Fairness:
    instances: int
    fair: bool
    flood: int
    wait: float  # the quiet tenant's turn -> searchable (s)
    dwell: float  # its request's time in the queue, sent -> received (s)
    flood_done: int  # the flood's threads an instance had received by then


def fairness(n: int, threads: int, batching: float) -> Fairness:
    """A tenant floods the queue (`threads` threads), then another sends one turn: how
    long until the quiet tenant's memory is searchable (under the settings in force)."""
    from langgraph.store.dynamodb.testing._settings import current_settings

    r = rig()
    instances = [instance(r) for _ in range(n)]
    flood(r, FLOOD, threads)  # in the stream when the pipeline starts, as in `throughput`
    with running(r, instances, batching) as consumer:
        said, formed = fact(0)
        at, _ = say(r, QUIET, "q0", said)
        found = watch(r, consumer, {(QUIET, "q0"): formed})
        done = len({t for each in instances for t in each.threads if t[0] == FLOOD})
    dwell = max(d for each in instances for d in each.dwell.get(QUIET, []))
    return Fairness(
        n, current_settings().fair_queues, threads, found[(QUIET, "q0")] - at, dwell, done
    )


def plot(results: list[Throughput], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    clean = [t for t in results if not t.twice]
    fig, left = plt.subplots(figsize=(6, 3.5))
    xs = [t.instances for t in clean]
    left.plot(xs, [t.per_second for t in clean], "o-", label="threads/s")
    if clean and clean[0].instances == 1:
        one = clean[0].per_second
        left.plot(xs, [x * one for x in xs], ":", color="grey", label="N x one instance's")
    left.set_xlabel("extraction Lambda instances")
    left.set_ylabel("threads per second")
    right = left.twinx()
    right.plot(xs, [percentile(t.waits, 95) for t in clean], "s--", color="C1", label="p95")
    right.plot(xs, [statistics.median(t.waits) for t in clean], "^:", color="C2", label="p50")
    right.set_ylabel("turn -> searchable (s)")
    fig.legend(loc="upper center", ncol=4, fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def report(args: argparse.Namespace, results: list[Throughput], fair: list[Fairness]) -> str:
    command = (
        "python -m bench.extraction_throughput "
        f"--threads {args.threads} --instances {' '.join(map(str, args.instances))} "
        f"--fair-instances {' '.join(map(str, args.fair_instances))} "
        f"--converse-s {args.converse_s:g} --batching-s {args.batching_s:g}"
    )
    lines = [
        "# Memory formation with several extraction Lambda instances",
        "",
        f"`{command}` on the in-process emulation, part of `make bench` (the model: the "
        f"module's docstring). Converse answers after {args.converse_s:g} s, the stream is "
        f"read every {args.batching_s:g} s; each instance is a Lambda of its own (worker, "
        "extractor, clients) polling the one extraction queue in batches of 10.",
        "",
        f"## {args.threads} threads of one tenant at once",
        "",
        "| instances | threads/s | N x one instance's | all searchable | turn -> "
        "searchable p50 | p95 | max | CPU busy (cores) | requests per instance | memories "
        "| duplicates |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|",
    ]
    one = next((t.per_second for t in results if t.instances == 1 and not t.twice), None)
    for t in results:
        name = f"{t.instances}" + (" (each request delivered twice more)" if t.twice else "")
        ideal = f"{t.instances * one:.1f}" if one else "-"
        lines.append(
            f"| {name} | {t.per_second:.1f} | {ideal} | {t.span:.1f} s | "
            f"{statistics.median(t.waits):.1f} s | {percentile(t.waits, 95):.1f} s | "
            f"{max(t.waits):.1f} s | {t.cpu / t.span:.2f} | {', '.join(map(str, t.spread))} "
            f"| {t.memories} | {t.duplicates} |"
        )
    lines += [
        "",
        "The turns are all said at one moment (written before the pipeline starts). "
        "Threads per second: threads / seconds until the last memory is searchable. "
        "Duplicates: the current memories of each thread's namespace counted by text, a "
        "text held twice counting one. Threads per instance: the requests each instance "
        "handled, sorted (copies, and requests deferred because another instance held the "
        "thread, count each time). With each request delivered twice more, the copies of "
        "ten threads sit in adjacent batches, which two instances run at once.",
        "",
        "**The limit of this rig.** Every instance, the stream consumer and the emulator "
        "run in this one Python process, on one core at a time (the GIL), on a machine "
        "shared with other work. CPU busy is the process's CPU seconds over the run's "
        "wall time: near 1, the figure is this process's CPU, not the pipeline's "
        "capacity; on Lambda each instance has its own CPU, and the model's latency, "
        "which overlaps, sets the pace (N x one instance's is what the model's latency "
        "alone allows, before the stream's batching and the table's own limits). The "
        "duplicates, and how the requests spread, do not depend on it.",
        "",
        "![throughput](extraction-throughput.png)",
        "",
        f"## A quiet tenant's turn while another floods the queue ({args.threads} threads)",
        "",
        "| instances | fair queue | quiet tenant: turn -> searchable | its request in the "
        "queue (dwell) | flood's threads received by an instance by then |",
        "|---:|---|---:|---:|---:|",
        *(
            f"| {f.instances} | {'on' if f.fair else 'off (arrival order)'} | "
            f"{f.wait:.1f} s | {f.dwell:.1f} s | {f.flood_done} of {f.flood} |"
            for f in fair
        ),
        "",
        "The quiet tenant's turn is said just after the pipeline starts, with the flood's "
        f"{args.threads} turns in the stream; its request reaches the queue behind the "
        "flood's at the consumer's next read. Dwell: from its request's `SentTimestamp` to "
        "an instance receiving it (what fair queues act on); the rest of the wait is the "
        "stream's two "
        "reads (routing, then embedding) and the run itself, slowed like every run here by "
        "this process's CPU (above).",
        "",
        "**What the emulation models of SQS fair queues.** Before issue 43 nothing: moto "
        "ignores `MessageGroupId` on a standard queue and delivers in the order messages "
        "were sent. Now SQS's concurrency-share rule (`testing/_sqs.py`, from the SQS "
        'Developer Guide\'s "How Amazon SQS fair queues work"): a tenant with more than '
        "10% of the queue's in-flight messages and at least 30 of its own is a noisy "
        "neighbour, and the quiet tenants' waiting messages are delivered before its own "
        "until none of its messages waits. One instance holds at most 10 messages in "
        "flight and two at most 20, so below three instances this rule cannot fire: at "
        "one instance the quiet tenant waits behind every flood request sent before its "
        "own, as on a queue without fairness. SQS's second rule, a tenant's share of "
        "recent consumer processing time above 10%, is not modelled (the guide does not "
        "say over what window, nor when shares count as comparable again); on AWS it "
        "would likely mark the flooding tenant at one instance too (it has all the "
        "processing time), so the one-instance figure here is an upper bound of what AWS "
        "gives. AWS's thresholds are approximate (a distributed service); the emulation "
        "applies them exactly.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=100)
    parser.add_argument("--instances", type=int, nargs="+", default=[1, 2, 5, 10])
    parser.add_argument("--fair-instances", type=int, nargs="+", default=[1, 5])
    parser.add_argument("--converse-s", type=float, default=1.5)
    parser.add_argument("--batching-s", type=float, default=2.0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    results, fair = [], []
    for n in args.instances:
        with mock_aws(settings=EmulatorSettings(converse_latency=args.converse_s)):
            results.append(throughput(n, args.threads, args.batching_s))
        print(f"{n} instances: {results[-1].per_second:.1f} threads/s", flush=True)
    with mock_aws(settings=EmulatorSettings(converse_latency=args.converse_s)):
        results.append(throughput(max(args.instances), args.threads, args.batching_s, twice=True))
    for n in args.fair_instances:
        for on in (True, False) if n >= 3 else (True,):
            settings = EmulatorSettings(converse_latency=args.converse_s, fair_queues=on)
            with mock_aws(settings=settings):
                fair.append(fairness(n, args.threads, args.batching_s))
            print(f"fairness, {n} instances, fair={on}: {fair[-1].wait:.1f} s", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    plot(results, args.out / "extraction-throughput.png")
    text = report(args, results, fair)
    (args.out / "extraction-throughput.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
