"""Throughput of the local emulation: store operations per second from several threads,
in-process (`mock_aws`) and through the HTTP endpoint (`local_endpoint`), with the
emulation's request lock (every request atomic) and without it (moto's own handling).

Issue 8 allows the lock if it costs at most 10% of throughput. Rounds alternate between
the two so that load from other processes hits both alike; the best round of each counts.

    python -m bench.emulation_throughput [--threads 4 --seconds 3 --rounds 3]
"""

from __future__ import annotations

import argparse
import contextlib
import threading
import time
from collections.abc import Callable, Iterator

from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.testing import local_endpoint, mock_aws
from langgraph.store.dynamodb.testing.mock import fake_credentials_env, patched_env
from moto.dynamodb.responses import DynamoHandler


@contextlib.contextmanager
def without_lock() -> Iterator[None]:
    """moto's own request handling, as before the emulation made each request atomic."""
    locked = DynamoHandler.call_action
    DynamoHandler.call_action = locked.__wrapped__  # type: ignore[attr-defined]
    try:
        yield
    finally:
        DynamoHandler.call_action = locked  # type: ignore[method-assign]


def _workload(store: DynamoDBStore, worker: int, stop: threading.Event, done: list[int]) -> None:
    count = 0
    while not stop.is_set():
        ns = ("bench", f"tenant-{count % 7}")
        store.put(ns, f"w{worker}-{count % 50}", {"text": "x" * 200, "n": count})
        store.get(ns, f"w{worker}-{(count * 7) % 50}")
        store.search(ns, limit=5)
        if count % 10 == 9:
            store.delete(ns, f"w{worker}-{count % 50}")
        count += 4
    done.append(count)


def measure(make: Callable[[], DynamoDBStore], threads: int, seconds: float) -> float:
    """Store operations per second over `seconds` with `threads` workers."""
    stores = [make() for _ in range(threads)]
    stores[0].setup()
    stop = threading.Event()
    done: list[int] = []
    workers = [
        threading.Thread(target=_workload, args=(stores[i], i, stop, done)) for i in range(threads)
    ]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    time.sleep(seconds)
    stop.set()
    for worker in workers:
        worker.join()
    return sum(done) / (time.perf_counter() - started)


def _round(mode: str, locked: bool, threads: int, seconds: float) -> float:
    table = f"bench-{time.monotonic_ns()}"
    with contextlib.nullcontext() if locked else without_lock():
        if mode == "in-process":
            with mock_aws():
                return measure(
                    lambda: DynamoDBStore(table, region_name="us-east-1"), threads, seconds
                )
        with patched_env(fake_credentials_env()), local_endpoint() as url:
            return measure(
                lambda: DynamoDBStore(table, region_name="us-east-1", endpoint_url=url),
                threads,
                seconds,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    for mode in ("in-process", "endpoint"):
        best = {True: 0.0, False: 0.0}
        for _ in range(args.rounds):
            for locked in (False, True):
                rate = _round(mode, locked, args.threads, args.seconds)
                best[locked] = max(best[locked], rate)
        change = 100 * (best[True] / best[False] - 1)
        print(
            f"{mode:10}: without lock {best[False]:7.1f} ops/s, with lock {best[True]:7.1f} "
            f"ops/s ({change:+.1f}%), {args.threads} threads, best of {args.rounds}"
        )


if __name__ == "__main__":
    main()
