"""The emulation's Query cost: a 20-item partition in tables of growing size.

moto walks the whole table on every Query; the emulation scopes it to the partition. Run
`python -m bench.emulator_query`; prints milliseconds per Query (CPU time, median of 50).
"""

from __future__ import annotations

import gc
import statistics
import time
from typing import Any

import boto3
from langgraph.store.dynamodb.testing import mock_aws

from bench.tables import create_table

PARTITION = 20
TABLE_SIZES = (100, 1_000, 20_000)
REPEATS = 50


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


def main() -> None:
    print(f"Query of a {PARTITION}-item partition (CPU ms, median of {REPEATS}):")
    for total in TABLE_SIZES:
        print(f"  table of {total:>6} items: {query_ms(total):6.2f} ms")


if __name__ == "__main__":
    main()
