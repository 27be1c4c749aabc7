"""Concurrent async callers: wall time, median and p99 latency per call, and the client's
CPU per call, with a fixed service latency and the emulator's CPU off the clock.

Each of 1, 10, 100 and 500 concurrent callers makes one call: `aget` (an existing key),
`asearch` (one namespace, limit 10), `aput` (a new key), a mixed `abatch` (a put, a get
and a search), or a sync `get` from a thread of its own. Each round is first recorded
against the local endpoint (in another process), then replayed by `bench.replay`, which
answers every recorded request after `--latency` milliseconds, all in flight at once, as
DynamoDB would: what is measured is the store's own work and how it overlaps round
trips. Stores: ours; ours before the
store-owned pool (`--baseline`, imported from `git archive`: asyncio's default pool,
botocore's 10 connections); both peers.

    python -m bench.concurrency [--latency 5 20] [--callers 1 10 100 500] [--calls aget ...]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import statistics
import time
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from langgraph.store.base import BaseStore, GetOp, PutOp, SearchOp
from langgraph.store.dynamodb.testing import local_endpoint_process

from bench.recency import baseline_factory
from bench.replay import ReplayEndpoint, replay_endpoint
from bench.stores import KINDS

BASELINE = "355b776"  # main just before the store-owned pool
NS = ("bench", "tenant", "user")
KEYS = 200
Call = Callable[[BaseStore, int], Awaitable[Any]]
CALLER_THREADS = ThreadPoolExecutor(max_workers=500, thread_name_prefix="caller")


CALLS: dict[str, Call] = {
    "aget": lambda store, i: store.aget(NS, f"k{i % KEYS}"),
    "asearch": lambda store, i: store.asearch(NS, limit=10),
    "aput": lambda store, i: store.aput(NS, f"new{i}", {"i": i, "text": "x" * 200}),
    "abatch": lambda store, i: store.abatch(
        [
            PutOp(NS, f"mixed{i}", {"i": i}),
            GetOp(NS, f"k{i % KEYS}"),
            SearchOp(NS, limit=10),
        ]
    ),
    # Sync callers, one thread each (as a threaded server would call the store).
    "get from threads": lambda store, i: asyncio.get_running_loop().run_in_executor(
        CALLER_THREADS, store.get, NS, f"k{i % KEYS}"
    ),
}


async def run(store: BaseStore, call: Call, callers: int) -> tuple[float, list[float]]:
    async def timed(i: int) -> float:
        start = time.perf_counter()
        await call(store, i)
        return time.perf_counter() - start

    start = time.perf_counter()
    latencies = await asyncio.gather(*(timed(i) for i in range(callers)))
    return time.perf_counter() - start, list(latencies)


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, nargs="+", default=[5.0, 20.0])
    parser.add_argument("--callers", type=int, nargs="+", default=[1, 10, 100, 500])
    parser.add_argument("--baseline", default=BASELINE)
    parser.add_argument("--stores", nargs="+", default=None)
    parser.add_argument("--calls", nargs="+", default=list(CALLS))
    args = parser.parse_args()
    # Every store as `bench.stores` builds it (key-value only), and ours before the pool.
    factories: dict[str, Callable[[], BaseStore]] = {
        **{kind.name: functools.partial(kind.make, kind.table, None, None) for kind in KINDS},
        "ours before": baseline_factory(args.baseline),
    }
    names = args.stores or list(factories)
    print(
        "| store | call | callers | latency ms | wall ms | median ms | p99 ms "
        "| client CPU ms per call | replayed |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    with local_endpoint_process() as upstream, replay_endpoint(upstream) as endpoint:
        os.environ.update(
            AWS_ENDPOINT_URL=endpoint.url,
            AWS_ACCESS_KEY_ID="testing",
            AWS_SECRET_ACCESS_KEY="testing",
            AWS_DEFAULT_REGION="us-east-1",
        )
        stores = {name: factories[name]() for name in names}
        for store in stores.values():
            store.batch([PutOp(NS, f"k{i}", {"i": i, "text": "x" * 200}) for i in range(KEYS)])
        for name, store in stores.items():
            for call_name in args.calls:
                for callers in args.callers:
                    for row in measure(endpoint, store, CALLS[call_name], callers, args.latency):
                        print(f"| {name} | {call_name} | {callers} | {row}", flush=True)


def measure(
    endpoint: ReplayEndpoint, store: BaseStore, call: Call, callers: int, latencies: list[float]
) -> Iterator[str]:
    """Record one round of `callers` concurrent calls (which also warms threads and
    connections), then replay it once per latency: one table row each."""
    endpoint.switch("record")
    try:
        asyncio.run(run(store, call, callers))
    except Exception as error:  # a peer's limit, reported as such
        endpoint.switch("forward")
        yield f"{latencies[0]:g} | error: {type(error).__name__} | | | | |"
        return
    for ms in latencies:
        endpoint.switch("replay", ms / 1000)
        cpu = time.process_time()
        wall, each = asyncio.run(run(store, call, callers))
        cpu = time.process_time() - cpu
        counts = endpoint.switch("forward")
        replayed = counts["hits"] / max(1, counts["hits"] + counts["misses"])
        yield (
            f"{ms:g} | {wall * 1e3:.0f} | {statistics.median(each) * 1e3:.0f} | "
            f"{p99(each) * 1e3:.0f} | {cpu / callers * 1e3:.2f} | {replayed:.0%} |"
        )


if __name__ == "__main__":
    main()
