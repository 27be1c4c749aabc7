"""The emulation's cost per request as a table and a thread grow.

moto walks the whole table on every Query; the emulation scopes it to the partition. Run
`python -m bench.emulator_query`; prints milliseconds per Query (CPU time, median of 50).

Then a thread: a `DeltaChannel` chat (`bench.long_thread`, a snapshot every 30 turns) on
the table `setup()` creates (with the recency index), run to about 10 and about 1,000
checkpoints; the emulator's milliseconds per request of five turns at the same place in
the snapshot cycle (turns 4-8 and 334-338: the history reads the same rows), median. A
turn's requests are its puts, writes, `get_tuple` and history (`bench.instrument.Meter`).
"""

from __future__ import annotations

import functools
import gc
import statistics
import time
from typing import Any

import boto3
from langgraph.store.dynamodb.testing import mock_aws

from bench.instrument import Meter
from bench.tables import create_table

PARTITION = 20
TABLE_SIZES = (100, 1_000, 20_000)
REPEATS = 50
# A chat turn writes 3 checkpoints; a snapshot every 60 updates (30 turns) puts turns 4 and
# 334 at the same place in the snapshot cycle.
THREAD_TURNS = (4, 334)
MEASURED_TURNS = 5
SNAPSHOT_FREQUENCY = 60


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


def thread_request_ms() -> dict[int, tuple[int, float]]:
    """Per turn of `THREAD_TURNS`: the thread's checkpoints before it, and the median of
    the emulator's milliseconds per request over it and the next turns."""
    from langgraph.checkpoint.dynamodb import DynamoDBSaver

    from bench.long_thread import DELTA, chat_graph, say

    found = {}
    with (
        mock_aws(),
        Meter() as meter,
        DynamoDBSaver.from_table("t", region_name="us-east-1", setup=True) as saver,
    ):
        graph = chat_graph(saver, DELTA, SNAPSHOT_FREQUENCY)
        config = {"configurable": {"thread_id": "long"}}
        for turn in range(1, THREAD_TURNS[-1] + MEASURED_TURNS):
            sample = meter.measure(functools.partial(graph.invoke, say(turn), config))
            first = next((t for t in THREAD_TURNS if t <= turn < t + MEASURED_TURNS), None)
            if first is not None:
                checkpoints = found.get(first, (3 * (first - 1), []))
                checkpoints[1].append(sample.emulator_ms / sample.usage.requests)
                found[first] = checkpoints
    return {turn: (n, statistics.median(ms)) for turn, (n, ms) in found.items()}


def main() -> None:
    print(f"Query of a {PARTITION}-item partition (CPU ms, median of {REPEATS}):")
    for total in TABLE_SIZES:
        print(f"  table of {total:>6} items: {query_ms(total):6.2f} ms")
    print(
        f"A DeltaChannel thread (emulator ms per request, median of {MEASURED_TURNS} turns "
        "at the same place in the snapshot cycle, recency index on):"
    )
    measured = thread_request_ms()
    for turn, (checkpoints, ms) in measured.items():
        print(
            f"  turns {turn}-{turn + MEASURED_TURNS - 1}, after {checkpoints:>4} checkpoints: "
            f"{ms:6.2f} ms"
        )
    (small, large) = (measured[t][1] for t in THREAD_TURNS)
    print(f"  ratio: {large / small:.2f}x")


if __name__ == "__main__":
    main()
