"""Throughput of the local emulation: store operations per second from several threads,
in-process (`mock_aws`) and through the HTTP endpoint (`local_endpoint`).

Used to check that making every emulated request atomic (one lock around moto's DynamoDB
request handling) costs at most 10% of throughput.

    python -m bench.emulation_throughput [--threads 4 --seconds 5]
"""

from __future__ import annotations

import argparse
import threading
import time
from collections.abc import Callable

from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.testing import local_endpoint, mock_aws
from langgraph.store.dynamodb.testing.mock import fake_credentials_env, patched_env


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    with mock_aws():
        rate = measure(
            lambda: DynamoDBStore("bench", region_name="us-east-1"), args.threads, args.seconds
        )
        print(f"in-process: {rate:8.1f} ops/s ({args.threads} threads)")
    with patched_env(fake_credentials_env()), local_endpoint() as url:
        rate = measure(
            lambda: DynamoDBStore("bench", region_name="us-east-1", endpoint_url=url),
            args.threads,
            args.seconds,
        )
        print(f"endpoint:   {rate:8.1f} ops/s ({args.threads} threads)")


if __name__ == "__main__":
    main()
