"""Background embedding on the emulation with a latency model: 5 ms per DynamoDB call and
60 ms per Bedrock embedding call, injected as sleeps in botocore's `before-call` event of
every client (so concurrency overlaps them as it would on AWS).

Reports: put latency in write vs stream mode; the consumer's wall time on a 100-record
batch vs a sequential record-by-record loop; embedding calls per 100 records with Titan
v2 and Cohere v3; reindex throughput at the default concurrency.

    python -m bench.bench_stream [--ddb-ms 5 --embed-ms 60 --records 100 --reindex 500]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from botocore.client import BaseClient
from langgraph.store.base import PutOp
from langgraph.store.dynamodb import DynamoDBStore, dynamo, reindex
from langgraph.store.dynamodb.consumer import (
    FILTER_PATTERN,
    StreamConsumer,
    bedrock_embeddings,
)
from langgraph.store.dynamodb.embedding import (
    CONTENT_HASH,
    INDEX_PATHS,
    PENDING,
    VECTOR,
    texts_to_embed,
    to_attribute,
)
from langgraph.store.dynamodb.rows import VALUE
from langgraph.store.dynamodb.testing import drain_stream, mock_aws
from langgraph.store.dynamodb.values import decode_value

TITAN = "amazon.titan-embed-text-v2:0"
COHERE = "cohere.embed-english-v3"
DIMS = {TITAN: 256, COHERE: 1024}
NS = ("memories", "acme-corp", "user-8812")


@contextmanager
def latency(ddb_ms: float, embed_ms: float) -> Iterator[dict[str, int]]:
    """Sleep before every API call of every client; count calls per service."""
    calls: dict[str, int] = {}
    original = BaseClient._make_api_call

    def delayed(self: BaseClient, operation: str, params: dict[str, Any]) -> Any:
        service = self.meta.service_model.service_name
        calls[service] = calls.get(service, 0) + 1
        time.sleep((embed_ms if service == "bedrock-runtime" else ddb_ms) / 1000)
        return original(self, operation, params)

    BaseClient._make_api_call = delayed  # type: ignore[method-assign]
    try:
        yield calls
    finally:
        BaseClient._make_api_call = original  # type: ignore[method-assign]


def make_store(table: str, model: str, embed_on: str) -> DynamoDBStore:
    embed = bedrock_embeddings(model, DIMS[model], False, region_name="us-east-1")
    store = DynamoDBStore(
        table,
        region_name="us-east-1",
        index={"dims": DIMS[model], "embed": embed, "fields": ["text"], "embed_on": embed_on},  # type: ignore[typeddict-item]
    )
    store.setup()
    return store


def text(n: int) -> str:
    return f"memory {n}: the customer asked about topic {n} and prefers email"


def put_latency(records: int) -> dict[str, float]:
    out = {}
    for mode in ("write", "stream"):
        store = make_store(f"puts-{mode}", TITAN, mode)
        store.put(NS, "warm", {"text": "registers the namespace"})
        samples = []
        for n in range(records):
            started = time.perf_counter()
            store.put(NS, f"k{n}", {"text": text(n)})
            samples.append(time.perf_counter() - started)
        out[mode] = 1000 * statistics.median(samples)
    return out


def pending_records(store: DynamoDBStore, records: int) -> list[dict[str, Any]]:
    store.batch(PutOp(NS, f"k{n}", {"text": text(n)}) for n in range(records))
    seen: list[dict[str, Any]] = []
    drain_stream(
        store.table_name,
        lambda event, _: seen.extend(event["Records"]),
        filter_patterns=[FILTER_PATTERN],
        consumer_id="capture",
        batch_size=1000,
    )
    return seen


def consumer_batch(records: int, model: str, calls: dict[str, int]) -> tuple[float, int]:
    """Wall time of one consumer invocation on `records` records, and its Bedrock calls."""
    store = make_store(f"batch-{model[:5]}", model, "stream")
    batch = pending_records(store, records)
    before = calls.get("bedrock-runtime", 0)
    consumer = StreamConsumer(store.table_name, client=store.client)
    consumer.ready()
    started = time.perf_counter()
    response = consumer.handle({"Records": batch}, None)
    wall = time.perf_counter() - started
    assert response == {"batchItemFailures": []}, response
    return wall, calls.get("bedrock-runtime", 0) - before


def sequential_loop(records: int) -> float:
    """The naive consumer: one record at a time, embed then conditional write."""
    store = make_store("sequential", TITAN, "stream")
    batch = pending_records(store, records)
    embeddings = bedrock_embeddings(TITAN, DIMS[TITAN], False, region_name="us-east-1")
    client = store.client
    started = time.perf_counter()
    for record in batch:
        row = dynamo.deserialize(record["dynamodb"]["NewImage"])
        texts = texts_to_embed(decode_value(row[VALUE]), row[INDEX_PATHS])
        vector = embeddings.embed_documents(texts)[0]
        client.update_item(
            TableName=store.table_name,
            Key=dynamo.serialize({"PK": row["PK"], "SK": row["SK"]}),
            UpdateExpression="SET #v = :v REMOVE #p",
            ConditionExpression="#h = :h",
            ExpressionAttributeNames={"#v": VECTOR, "#p": PENDING, "#h": CONTENT_HASH},
            ExpressionAttributeValues=dynamo.serialize(
                {":v": to_attribute(vector), ":h": row[PENDING]}
            ),
        )
    return time.perf_counter() - started


def reindex_throughput(items: int) -> tuple[float, int]:
    kv = DynamoDBStore("reindex", region_name="us-east-1")
    kv.setup()
    kv.batch(PutOp(("tenant", f"user-{n % 10}"), f"k{n}", {"text": text(n)}) for n in range(items))
    store = make_store("reindex", TITAN, "write")
    summary = reindex(store)
    return summary.embedded / summary.seconds, summary.embedded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ddb-ms", type=float, default=5.0)
    parser.add_argument("--embed-ms", type=float, default=60.0)
    parser.add_argument("--records", type=int, default=100)
    parser.add_argument("--puts", type=int, default=30)
    parser.add_argument("--reindex", type=int, default=500)
    args = parser.parse_args()
    with mock_aws(), latency(args.ddb_ms, args.embed_ms) as calls:
        puts = put_latency(args.puts)
        batch_wall, titan_calls = consumer_batch(args.records, TITAN, calls)
        _, cohere_calls = consumer_batch(args.records, COHERE, calls)
        loop_wall = sequential_loop(args.records)
        rate, embedded = reindex_throughput(args.reindex)
    print(
        f"latency model: {args.ddb_ms:g} ms per DynamoDB call, {args.embed_ms:g} ms per embedding"
    )
    print(
        f"put latency (median of {args.puts}): write {puts['write']:.1f} ms, "
        f"stream {puts['stream']:.1f} ms"
    )
    print(
        f"consumer, {args.records}-record batch (Titan v2): {batch_wall:.2f} s; "
        f"sequential loop: {loop_wall:.2f} s ({loop_wall / batch_wall:.1f}x)"
    )
    print(
        f"embedding calls per {args.records} records: Titan v2 {titan_calls}, "
        f"Cohere v3 {cohere_calls}"
    )
    print(f"reindex: {embedded} items at {rate:.0f} items/s (default concurrency)")


if __name__ == "__main__":
    main()
