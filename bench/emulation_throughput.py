"""Throughput of the local emulation: store operations per second from several threads,
in-process (`mock_aws`) and through the HTTP endpoint (`local_endpoint`), with the
emulation's request lock (every request atomic) and without it (moto's own handling).

Issue 8 allows the lock if it costs at most 10% of throughput. On a shared, noisy machine
absolute rates drift with other processes' load, so the lock is toggled inside one
running workload: the same threads, table and process alternate between short slices
with and without the lock (ABAB...), and the figure is the median over adjacent pairs of
slices of with / without, with a bootstrap interval over the pairs. Rates per CPU second
of this process (client and emulation both run in it) are reported too: other
processes' load disturbs them far less. Without the lock moto lets readers see
half-applied writes; the workload counts those failures and goes on, so both variants run
the same loop. Prints a Markdown report (`bench/results/emulation_throughput.md`); takes
about 2 x (warm-up + 2 x pairs x slice) seconds, so it is not part of `make bench`.

    python -m bench.emulation_throughput [--threads 4 --slice 0.6 --pairs 50]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.testing import local_endpoint, mock_aws
from langgraph.store.dynamodb.testing.mock import fake_credentials_env, patched_env
from moto.dynamodb.responses import DynamoHandler

BOOTSTRAP = 4000
_WITH_LOCK: list[Any] = []


def set_lock(locked: bool) -> None:
    """Handle the next DynamoDB requests with the emulation's request lock, or with
    moto's own handling as before the emulation made each request atomic."""
    if not _WITH_LOCK:
        _WITH_LOCK.append(DynamoHandler.call_action)  # the emulation's, once installed
        assert getattr(_WITH_LOCK[0], "__emulated__", False), "start the emulation first"
    with_lock = _WITH_LOCK[0]
    DynamoHandler.call_action = with_lock if locked else with_lock.__wrapped__  # type: ignore[method-assign]


@dataclass
class Counters:
    """Per-worker operation and error counts (each slot written by one thread only)."""

    ops: list[int] = field(default_factory=list)
    errors: list[int] = field(default_factory=list)

    def totals(self) -> tuple[int, int]:
        return sum(self.ops), sum(self.errors)


def _attempt(
    counts: Counters, worker: int, call: Callable[..., object], *args: Any, **kwargs: Any
) -> None:
    try:
        call(*args, **kwargs)
    except Exception:  # moto without the lock: a reader saw a half-applied write
        counts.errors[worker] += 1
    else:
        counts.ops[worker] += 1


def _workload(store: DynamoDBStore, worker: int, stop: threading.Event, counts: Counters) -> None:
    count = 0
    while not stop.is_set():
        ns = ("bench", f"tenant-{count % 7}")
        key = f"w{worker}-{count % 50}"
        _attempt(counts, worker, store.put, ns, key, {"text": "x" * 200, "n": count})
        _attempt(counts, worker, store.get, ns, f"w{worker}-{(count * 7) % 50}")
        _attempt(counts, worker, store.search, ns, limit=5)
        if count % 10 == 9:
            _attempt(counts, worker, store.delete, ns, key)
        count += 4


@dataclass
class Slice:
    locked: bool
    rate: float  # operations per wall-clock second
    cpu_rate: float  # operations per CPU second of this process (client and emulation)
    errors: int


def toggled(
    make: Callable[[], DynamoDBStore], threads: int, slice_seconds: float, pairs: int
) -> list[tuple[Slice, Slice]]:
    """(without, with) slices of one running workload; odd pairs run the lock first."""
    stores = [make() for _ in range(threads)]
    stores[0].setup()
    stop = threading.Event()
    counts = Counters([0] * threads, [0] * threads)
    workers = [
        threading.Thread(target=_workload, args=(stores[i], i, stop, counts))
        for i in range(threads)
    ]
    for worker in workers:
        worker.start()
    time.sleep(2 * slice_seconds)  # warm-up: connections, first registrations
    found: list[tuple[Slice, Slice]] = []
    try:
        for i in range(pairs):
            measured: dict[bool, Slice] = {}
            for locked in (False, True) if i % 2 == 0 else (True, False):
                set_lock(locked)
                ops, errors = counts.totals()
                started, cpu = time.perf_counter(), time.process_time()
                time.sleep(slice_seconds)
                ops_after, errors_after = counts.totals()
                done = ops_after - ops
                elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
                measured[locked] = Slice(
                    locked, done / elapsed, done / max(cpu, 1e-9), errors_after - errors
                )
            found.append((measured[False], measured[True]))
    finally:
        stop.set()
        for worker in workers:
            worker.join()
        set_lock(True)
    return found


def _describe(ratios: list[float]) -> str:
    """Median, its 95% bootstrap interval (resampling the pairs) and the quartiles."""
    rng = random.Random(0)
    medians = sorted(
        statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(BOOTSTRAP)
    )
    low, high = medians[int(0.025 * BOOTSTRAP)], medians[int(0.975 * BOOTSTRAP) - 1]
    quartiles = statistics.quantiles(ratios, n=4)
    median = statistics.median(ratios)
    return (
        f"median {median:.3f} ({100 * (median - 1):+.1f}%), 95% interval {low:.3f} to "
        f"{high:.3f}, quartiles {quartiles[0]:.3f} to {quartiles[2]:.3f}"
    )


@contextlib.contextmanager
def _stores(mode: str) -> Iterator[Callable[[], DynamoDBStore]]:
    table = f"bench-{time.monotonic_ns()}"
    if mode == "in-process":
        with mock_aws():
            yield lambda: DynamoDBStore(table, region_name="us-east-1")
        return
    with patched_env(fake_credentials_env()), local_endpoint() as url:
        yield lambda: DynamoDBStore(table, region_name="us-east-1", endpoint_url=url)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--slice", type=float, default=0.6, help="seconds per slice")
    parser.add_argument("--pairs", type=int, default=50)
    args = parser.parse_args()
    started = time.time()
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started))
    print("# Emulation throughput with and without the request lock\n")
    print(
        f"`python -m bench.emulation_throughput --threads {args.threads} --slice "
        f"{args.slice:g} --pairs {args.pairs}`, {stamp}, {os.cpu_count()} CPUs shared with "
        f"other work (load average {os.getloadavg()[0]:.2f} at start). One workload per mode "
        f"({args.threads} threads: put, get, search, a delete every tenth round) runs "
        f"throughout; the lock is toggled every {args.slice:g} s, alternating which goes "
        "first in each pair; ratio = with / without, store operations per second (and per "
        "CPU second of this process, which other processes' load disturbs less). Errors: "
        "operations that failed because a reader saw a half-applied write.\n"
    )
    summary = []
    for mode in ("in-process", "endpoint"):
        with _stores(mode) as make:
            measured = toggled(make, args.threads, args.slice, args.pairs)
        ratios = [locked.rate / unlocked.rate for unlocked, locked in measured]
        cpu_ratios = [locked.cpu_rate / unlocked.cpu_rate for unlocked, locked in measured]
        print(f"## {mode}\n")
        print(
            "| pair | first | without lock (ops/s) | with lock (ops/s) | ratio "
            "| ratio per CPU second | errors |"
        )
        print("|---|---|---|---|---|---|---|")
        rows = zip(measured, ratios, cpu_ratios, strict=True)
        for i, ((unlocked, locked), ratio, cpu_ratio) in enumerate(rows):
            first = "without" if i % 2 == 0 else "with"
            print(
                f"| {i + 1} | {first} | {unlocked.rate:.1f} | {locked.rate:.1f} | {ratio:.3f} "
                f"| {cpu_ratio:.3f} "
                f"| {unlocked.errors} without, {locked.errors} with |"
            )
        summary.append(
            f"- **{mode}** ({len(ratios)} pairs): with / without {_describe(ratios)}; per CPU "
            f"second {_describe(cpu_ratios)}; median rate "
            f"{statistics.median(u.rate for u, _ in measured):.1f} ops/s without, "
            f"{statistics.median(w.rate for _, w in measured):.1f} with; errors "
            f"{sum(u.errors for u, _ in measured)} without, "
            f"{sum(w.errors for _, w in measured)} with"
        )
        print()
    print("## Result\n")
    print("\n".join(summary))
    print(
        f"\nLoad average {os.getloadavg()[0]:.2f} at the end; {time.time() - started:.0f} s in all."
    )


if __name__ == "__main__":
    main()
