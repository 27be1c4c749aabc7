"""batch/abatch: op order, BatchGetItem/BatchWriteItem, unprocessed work retried, async parity."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.store.base import GetOp, ListNamespacesOp, PutOp, SearchOp
from langgraph.store.dynamodb import DynamoDBStore

from tests.support import RequestCounter


def test_large_batch_results_in_op_order(kv_store: DynamoDBStore, requests: RequestCounter) -> None:
    puts = [PutOp(("b", f"n{i % 3}"), f"k{i}", {"i": i}) for i in range(150)]
    assert kv_store.batch(puts) == [None] * 150
    assert requests.calls["BatchWriteItem"] == 6  # 25 per call
    gets = [GetOp(("b", f"n{i % 3}"), f"k{i}") for i in reversed(range(150))]
    requests.reset()
    results = kv_store.batch(gets)
    assert [r.value["i"] for r in results] == list(reversed(range(150)))  # type: ignore[union-attr]
    assert requests.calls == {"BatchGetItem": 2}  # 100 per call


def test_reads_see_the_state_before_the_batch_and_last_write_wins(kv_store: DynamoDBStore) -> None:
    kv_store.put(("b",), "k", {"v": 0})
    results = kv_store.batch(
        [
            PutOp(("b",), "k", {"v": 1}),
            GetOp(("b",), "k"),
            PutOp(("b",), "k", {"v": 2}),
            SearchOp(("b",)),
            PutOp(("b",), "gone", {"v": 9}),
            PutOp(("b",), "gone", None),
            ListNamespacesOp(),
        ]
    )
    assert results[1].value == {"v": 0}  # type: ignore[union-attr]
    assert [r.value for r in results[3]] == [{"v": 0}]  # type: ignore[union-attr]
    assert results[6] == [("b",)]
    item = kv_store.get(("b",), "k")
    assert item is not None and item.value == {"v": 2}
    assert kv_store.get(("b",), "gone") is None


def _drop_half_of_first_calls(client: Any, operation: str, rounds: int) -> list[int]:
    """Fault injection at the AWS boundary: DynamoDB may process only part of a batch and
    return the rest as unprocessed; make the first `rounds` calls do exactly that."""
    seen: list[int] = []

    def before(params: dict[str, Any], **_: Any) -> None:
        if len(seen) < rounds:
            ((table, work),) = params["RequestItems"].items()
            entries = work["Keys"] if operation == "BatchGetItem" else work
            keep = len(entries) // 2
            seen.append(len(entries) - keep)
            dropped = entries[keep:]
            del entries[keep:]
            pending[:] = [(table, dropped, work)]

    def after(parsed: dict[str, Any], **_: Any) -> None:
        if pending:
            table, dropped, work = pending.pop()
            if operation == "BatchGetItem":
                parsed["UnprocessedKeys"] = {table: {**work, "Keys": dropped}}
            else:
                parsed["UnprocessedItems"] = {table: dropped}

    pending: list[Any] = []
    client.meta.events.register(f"before-parameter-build.dynamodb.{operation}", before)
    client.meta.events.register(f"after-call.dynamodb.{operation}", after)
    return seen


def test_unprocessed_writes_and_keys_are_retried_until_done(kv_store: DynamoDBStore) -> None:
    dropped_writes = _drop_half_of_first_calls(kv_store.client, "BatchWriteItem", rounds=2)
    kv_store.batch([PutOp(("u",), f"k{i}", {"i": i}) for i in range(20)])
    assert sum(dropped_writes) > 0
    dropped_keys = _drop_half_of_first_calls(kv_store.client, "BatchGetItem", rounds=2)
    results = kv_store.batch([GetOp(("u",), f"k{i}") for i in range(20)])
    assert sum(dropped_keys) > 0
    assert [r.value["i"] for r in results] == list(range(20))  # type: ignore[union-attr]
    assert len(kv_store.search(("u",), limit=100)) == 20


async def test_async_twins_match_sync(kv_store: DynamoDBStore) -> None:
    await kv_store.aput(("x", "y"), "k", {"f": 0.5, "n": 1})
    await asyncio.gather(*(kv_store.aput(("x", "z"), f"k{i}", {"i": i}) for i in range(30)))
    item = await kv_store.aget(("x", "y"), "k")
    assert item == kv_store.get(("x", "y"), "k")
    assert item is not None and item.value == {"f": 0.5, "n": 1}
    assert await kv_store.asearch(("x",), limit=50) == kv_store.search(("x",), limit=50)
    assert len(await kv_store.asearch(("x", "z"), limit=50)) == 30
    assert (
        await kv_store.alist_namespaces() == kv_store.list_namespaces() == [("x", "y"), ("x", "z")]
    )
    await kv_store.adelete(("x", "y"), "k")
    assert await kv_store.aget(("x", "y"), "k") is None
    results = await kv_store.abatch([GetOp(("x", "z"), f"k{i}") for i in range(30)])
    assert [r.value["i"] for r in results] == list(range(30))  # type: ignore[union-attr]
