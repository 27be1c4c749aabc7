"""The emulation's cost per request as a table and a thread grow.

moto walks the whole table on every Query; the emulation scopes it to the partition. Run
`python -m bench.emulator_query`; prints milliseconds per Query (CPU time, median of 50).

Then a thread: the same saver calls (each moving the same bytes) on a thread of 10 and of
1,000 checkpoints, on the table `setup()` creates (with the recency index): CPU
milliseconds per request (the process's: client and emulator), median of 50.
"""

from __future__ import annotations

import gc
import statistics
import time
from typing import Any

import boto3
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.store.dynamodb.testing import mock_aws

from bench.tables import create_table

PARTITION = 20
TABLE_SIZES = (100, 1_000, 20_000)
REPEATS = 50
# Thread lengths whose per-request cost is compared.
THREAD_CHECKPOINTS = (10, 1_000)


def _fill(client: Any, table: str, total: int) -> None:
    requests = [
        {
            "PutRequest": {
                "Item": {"PK": {"S": f"ns{i % (total // PARTITION)}"}, "SK": {"S": f"k{i}"}}
            }
        }
        for i in range(total)
    ]
    for start in range(0, len(requests), 25):
        client.batch_write_item(RequestItems={table: requests[start : start + 25]})


def query_ms(total: int) -> float:
    """Median milliseconds of one Query of a 20-item partition in a `total`-item table."""
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_table(client, "t")
        _fill(client, "t", total)
        gc.collect()
        gc.freeze()  # the table is long-lived: keep the collector from rescanning it
        samples = []
        for _ in range(REPEATS):
            started = time.process_time()
            found = client.query(
                TableName="t",
                KeyConditionExpression="PK = :pk",
                ExpressionAttributeValues={":pk": {"S": "ns1"}},
            )
            samples.append((time.process_time() - started) * 1000)
            assert found["Count"] == PARTITION
        gc.unfreeze()
        return statistics.median(samples)


def thread_request_ms() -> dict[int, float]:
    """Per thread length of `THREAD_CHECKPOINTS`: the median CPU milliseconds per request
    of the same calls (a put of one more checkpoint, its `put_writes`, `get_tuple` of the
    latest and by id, `list(limit=3)`) on a thread of that many checkpoints."""
    from langgraph.checkpoint.dynamodb import DynamoDBSaver

    found = {}
    with DynamoDBSaver.from_table("t", region_name="us-east-1", setup=True) as saver:
        sent = [0]
        saver.client.meta.events.register("before-call.dynamodb", lambda **_: _add(sent))
        for length in THREAD_CHECKPOINTS:
            thread = {"configurable": {"thread_id": f"t{length}", "checkpoint_ns": ""}}
            config: RunnableConfig = thread
            for _ in range(length):
                config = saver.put(config, _small(saver), {"step": 1}, {})
            samples = []
            for _ in range(REPEATS):
                requests, started = sent[0], time.process_time()
                config = saver.put(config, _small(saver), {"step": 1}, {})
                saver.put_writes(config, [("messages", "x" * 400)], "task")
                saver.get_tuple(thread)
                saver.get_tuple(config)
                list(saver.list(thread, limit=3))
                cpu = (time.process_time() - started) * 1000
                samples.append(cpu / (sent[0] - requests))
            found[length] = statistics.median(samples)
    return found


def _add(counter: list[int]) -> None:
    counter[0] += 1


def _small(saver: Any) -> Any:
    """A checkpoint holding one 400-character message, at a new version."""
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"messages": "x" * 400}
    checkpoint["channel_versions"] = {"messages": saver.get_next_version(None, None)}
    return checkpoint


def main() -> None:
    print(f"Query of a {PARTITION}-item partition (CPU ms, median of {REPEATS}):")
    for total in TABLE_SIZES:
        print(f"  table of {total:>6} items: {query_ms(total):6.2f} ms")
    print(
        f"A thread (CPU ms per request of put, put_writes, get_tuple twice and list, "
        f"median of {REPEATS}; the table setup() creates, recency index on):"
    )
    with mock_aws():
        measured = thread_request_ms()
    for length, ms in measured.items():
        print(f"  thread of {length:>5} checkpoints: {ms:6.2f} ms")
    small, large = (measured[n] for n in THREAD_CHECKPOINTS)
    print(f"  ratio: {large / small:.2f}x")


if __name__ == "__main__":
    main()
