"""Many concurrent callers: the store's own thread pool, cancellation, loop lag, and the
emulation serving 100 clients at once."""

from __future__ import annotations

import asyncio
import gc
import random
import statistics
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.config import Config
from langgraph.store.base import PutOp
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.testing import (
    LexicalEmbeddings,
    local_endpoint,
    local_endpoint_process,
    mock_aws,
)

DIMS = 16
POOL_PREFIX = "dynamodb-store-"


def store_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(POOL_PREFIX)]


def table_keys(store: DynamoDBStore) -> set[tuple[str, str]]:
    keys: set[tuple[str, str]] = set()
    for page in store.client.get_paginator("scan").paginate(
        TableName=store.table_name, ConsistentRead=True
    ):
        keys.update((row["PK"]["S"], row["SK"]["S"]) for row in page["Items"])
    return keys


@pytest.fixture
def vector_store() -> Iterator[DynamoDBStore]:
    """A store whose items embed several texts: one put writes registry, item and extra
    vector rows."""
    with mock_aws():
        store = DynamoDBStore(
            "memory",
            region_name="us-east-1",
            index={"dims": DIMS, "embed": LexicalEmbeddings(dims=DIMS), "fields": ["notes[*]"]},
            max_concurrency=8,
        )
        store.setup()
        yield store
        store.close()


def test_knobs_size_botocore_pool_and_respect_boto_config() -> None:
    with mock_aws():
        default = DynamoDBStore("memory", region_name="us-east-1")
        assert (default.max_concurrency, default.max_connections) == (64, 64)
        assert default.client.meta.config.max_pool_connections == 64
        sized = DynamoDBStore("memory", region_name="us-east-1", max_concurrency=200)
        assert sized.client.meta.config.max_pool_connections == 200
        theirs = DynamoDBStore(
            "memory",
            region_name="us-east-1",
            boto_config=Config(max_pool_connections=300, connect_timeout=2),
        )
        assert theirs.client.meta.config.max_pool_connections == 300
        assert theirs.client.meta.config.connect_timeout == 2
        assert theirs.client.meta.config.retries["mode"] == "adaptive"
        with pytest.raises(ValueError, match="below max_concurrency"):
            DynamoDBStore("memory", region_name="us-east-1", max_connections=10)
        with pytest.raises(ValueError, match="set only one"):
            DynamoDBStore(
                "memory",
                region_name="us-east-1",
                max_connections=100,
                boto_config=Config(max_pool_connections=300),
            )
        with pytest.raises(ValueError, match="max_concurrency"):
            DynamoDBStore("memory", region_name="us-east-1", max_concurrency=0)
        for store in (default, sized, theirs):
            store.close()


async def _mixed_workload(store: DynamoDBStore, seed: int) -> dict[tuple[str, ...], dict]:
    """500 async operations from 50 concurrent writers, each owning its keys and checking
    it reads its own writes; returns the shadow model of the final state."""
    shadow: dict[tuple[str, ...], dict[str, Any]] = {}
    namespaces = [("tenant", f"t{t}", f"user{u}") for t in range(5) for u in range(3)]

    async def writer(w: int) -> None:
        rng = random.Random(seed * 1000 + w)
        mine = {(rng.choice(namespaces), f"w{w}-k{k}") for k in range(4)}
        keys = sorted(mine)
        for step in range(10):
            namespace, key = rng.choice(keys)
            roll = rng.random()
            if roll < 0.5:
                value = {"writer": w, "step": step, "blob": "x" * rng.randrange(1, 3000)}
                await store.aput(namespace, key, value)
                shadow.setdefault(namespace, {})[key] = value
            elif roll < 0.65:
                await store.adelete(namespace, key)
                shadow.get(namespace, {}).pop(key, None)
            elif roll < 0.9:
                item = await store.aget(namespace, key)
                expected = shadow.get(namespace, {}).get(key)
                assert (item.value if item else None) == expected
            else:
                found = await store.asearch(namespace[:2], limit=100)
                assert all(hit.namespace[:2] == namespace[:2] for hit in found)

    await asyncio.gather(*(writer(w) for w in range(50)))
    return {ns: items for ns, items in shadow.items() if items}


def test_500_concurrent_mixed_ops_end_in_the_shadow_models_state() -> None:
    others = set(store_threads())
    with mock_aws():
        store = DynamoDBStore("memory", region_name="us-east-1", max_concurrency=32)
        store.setup()
        shadow = asyncio.run(_mixed_workload(store, seed=14))
        stored: dict[tuple[str, ...], dict[str, Any]] = {}
        for namespace in store.list_namespaces(limit=1000):
            items = store.search(namespace, limit=1000)
            stored[namespace] = {
                item.key: item.value for item in items if item.namespace == namespace
            }
        assert {ns: items for ns, items in stored.items() if items} == shadow
        assert set(store.list_namespaces(limit=1000)) == set(shadow)
        assert len(set(store_threads()) - others) <= 32
        store.close()
        assert set(store_threads()) - others == set()


def _cancel_at_request(store: DynamoDBStore, target: int | None) -> list[str]:
    """`aput` a multi-vector item into a new namespace; cancel the awaiting task while its
    `target`-th request is on the wire (held there until the cancellation is delivered).
    Returns the operations the put sent."""
    sent: list[str] = []
    lock = threading.Lock()

    async def main() -> None:
        loop = asyncio.get_running_loop()
        delivered = threading.Event()
        namespace = ("cancel", f"n{target}")
        task = asyncio.create_task(
            store.aput(namespace, "k", {"notes": ["alpha beta", "gamma delta", "eps zeta"]})
        )

        def cancel() -> None:
            task.cancel()
            delivered.set()

        def hook(model: Any, **_: Any) -> None:
            with lock:
                sent.append(model.name)
                hit = len(sent) == target
            if hit:
                loop.call_soon_threadsafe(cancel)
                assert delivered.wait(10)
                time.sleep(0.05)  # the rest of the write lands after the caller was told

        store.client.meta.events.register("before-call.dynamodb", hook)
        try:
            if target is None:
                await task
            else:
                with pytest.raises(asyncio.CancelledError):
                    await task
        finally:
            store.client.meta.events.unregister("before-call.dynamodb", hook)

    asyncio.run(main())
    return sent


def test_cancelled_put_is_applied_whole_once_its_requests_started(
    vector_store: DynamoDBStore,
) -> None:
    others = set(store_threads())
    before = table_keys(vector_store)
    requests = _cancel_at_request(vector_store, None)
    full = table_keys(vector_store) - before
    assert len(full) >= 4, full  # registry, item and extra vector rows: a multi-row write
    assert len(requests) >= 2
    for target in range(1, len(requests) + 1):
        start = table_keys(vector_store)
        _cancel_at_request(vector_store, target)
        added = table_keys(vector_store) - start
        assert len(added) == len(full), (target, requests, added)
    assert len(set(store_threads()) - others) <= 8


def test_put_cancelled_before_it_runs_writes_nothing(vector_store: DynamoDBStore) -> None:
    before = table_keys(vector_store)

    async def main() -> None:
        task = asyncio.create_task(vector_store.aput(("cancel", "early"), "k", {"notes": ["a"]}))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert table_keys(vector_store) == before


@pytest.fixture
def endpoint_elsewhere() -> Iterator[str]:
    """The local endpoint in another process, as DynamoDB is: its CPU is not ours."""
    with local_endpoint_process() as url:
        yield url


def test_event_loop_keeps_ticking_while_100_reads_run(endpoint_elsewhere: str) -> None:
    """While rounds of 100 concurrent `aget`s of 10 KB values run, the loop is never busy
    for 20 ms between two wakes of a 1 ms ticker: validation, requests and decoding happen
    on the store's threads. Busy means CPU time of the loop's thread (`thread_time`), so
    that a loaded machine (a 2-core CI runner, other threads holding the GIL) does not
    count as blocking (a socket wait on the loop would not be CPU, so the median wall-clock
    lag is held under the same bound). Measured after a first round that starts the
    threads and opens the connections, with the objects of that start frozen out of the
    garbage collector (`gc.freeze()`, as servers do after start-up): a full collection of
    botocore's models would otherwise stop every thread for tens of ms."""
    store = DynamoDBStore("memory", region_name="us-east-1", endpoint_url=endpoint_elsewhere)
    store.setup()
    blob = {"text": "y" * 10_000, "nested": [{"n": i} for i in range(50)]}
    store.batch([PutOp(("lag",), f"k{i}", blob) for i in range(100)])

    async def reads() -> None:
        items = await asyncio.gather(*(store.aget(("lag",), f"k{i}") for i in range(100)))
        assert all(item is not None and item.value == blob for item in items)

    async def main() -> tuple[list[float], list[float]]:
        await reads()
        gc.freeze()
        busy: list[float] = []
        lags: list[float] = []
        done = False

        async def ticker() -> None:
            while not done:
                start, cpu = time.perf_counter(), time.thread_time()
                await asyncio.sleep(0.001)
                busy.append(time.thread_time() - cpu)
                lags.append(time.perf_counter() - start - 0.001)

        ticking = asyncio.create_task(ticker())
        for _ in range(3):
            await reads()
        done = True
        await ticking
        return busy, lags

    try:
        busy, lags = asyncio.run(main())
    finally:
        gc.unfreeze()
        store.close()
    assert len(busy) >= 10
    figures = (
        f"loop busy max {max(busy) * 1e3:.1f} ms, median {statistics.median(busy) * 1e3:.2f} "
        f"ms; wall lag max {max(lags) * 1e3:.1f} ms, median {statistics.median(lags) * 1e3:.2f} ms"
    )
    assert max(busy) < 0.020 and statistics.median(lags) < 0.020, figures


@pytest.mark.parametrize("mode", ["mock_aws", "local_endpoint"])
def test_emulation_serves_100_concurrent_clients(mode: str) -> None:
    async def main(store: DynamoDBStore) -> None:
        await asyncio.gather(
            *(store.aput(("c", f"n{i % 7}"), f"k{i}", {"i": i}) for i in range(100))
        )
        items = await asyncio.gather(*(store.aget(("c", f"n{i % 7}"), f"k{i}") for i in range(100)))
        assert [item.value["i"] if item else None for item in items] == list(range(100))

    with local_endpoint() as url, mock_aws():
        store = DynamoDBStore(
            "memory",
            region_name="us-east-1",
            endpoint_url=url if mode == "local_endpoint" else None,
            max_concurrency=100,
        )
        store.setup()
        asyncio.run(main(store))
        store.close()


def test_nested_fan_out_on_a_saturated_pool_runs_inline_instead_of_deadlocking() -> None:
    """Searches under a prefix fan out (registry, then each namespace) from pool workers;
    with two workers and twenty callers every helper request waits behind them."""

    async def main(store: DynamoDBStore) -> None:
        await asyncio.gather(*(store.aput(("a", f"n{i}"), "k", {"x": i}) for i in range(20)))
        found = await asyncio.gather(*(store.asearch(("a",), limit=50) for _ in range(20)))
        assert all(len(hits) == 20 for hits in found)

    with mock_aws():
        store = DynamoDBStore("memory", region_name="us-east-1", max_concurrency=2)
        store.setup()
        asyncio.run(asyncio.wait_for(main(store), 120))
        store.close()
