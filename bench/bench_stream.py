"""Background embedding on the emulation with the bench's latency model (`bench.instrument`:
5 ms per DynamoDB call and 60 ms per Bedrock embedding call, slept in the calling thread,
so concurrency overlaps them as it would on AWS; the emulator's own time is subtracted).

Reports: put latency in write vs stream mode; the consumer's wall time on a 100-record
batch vs a sequential record-by-record loop; embedding calls per 100 records with Titan
v2 and Cohere v3; reindex throughput at the default concurrency.

    python -m bench.bench_stream [--ddb-ms 5 --embed-ms 60 --records 100 --reindex 500]
"""

from __future__ import annotations

import argparse
import functools
import statistics
from typing import Any

from langgraph.store.base import PutOp
from langgraph.store.dynamodb import DynamoDBStore, reindex
from langgraph.store.dynamodb.items.embedding import texts_to_embed, to_attribute
from langgraph.store.dynamodb.stream.consumer import (
    FILTER_PATTERN,
    StreamConsumer,
    bedrock_embeddings,
)
from langgraph.store.dynamodb.table import dynamo
from langgraph.store.dynamodb.table.schema import CONTENT_HASH, INDEX_PATHS, PENDING, VALUE, VECTOR
from langgraph.store.dynamodb.table.values import decode_value
from langgraph.store.dynamodb.testing import drain_stream, mock_aws

from bench.instrument import Latency, Meter

TITAN = "amazon.titan-embed-text-v2:0"
COHERE = "cohere.embed-english-v3"
DIMS = {TITAN: 256, COHERE: 1024}
NS = ("memories", "acme-corp", "user-8812")


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


def put_latency(meter: Meter, records: int) -> dict[str, float]:
    """Median milliseconds of a put in each embedding mode."""
    out = {}
    for mode in ("write", "stream"):
        store = make_store(f"puts-{mode}", TITAN, mode)
        store.put(NS, "warm", {"text": "registers the namespace"})
        out[mode] = statistics.median(
            meter.measure(functools.partial(store.put, NS, f"k{n}", {"text": text(n)})).latency_ms
            for n in range(records)
        )
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


def consumer_batch(meter: Meter, records: int, model: str) -> tuple[float, int]:
    """Seconds of one consumer invocation on `records` records, and its Bedrock calls."""
    store = make_store(f"batch-{model[:5]}", model, "stream")
    batch = pending_records(store, records)
    consumer = StreamConsumer(store.table_name, client=store.client)
    consumer.ready()
    sample = meter.measure(lambda: consumer.handle({"Records": batch}, None))
    assert sample.result == {"batchItemFailures": []}, sample.result
    return sample.latency_ms / 1000, sample.usage.embed_calls


def sequential_loop(meter: Meter, records: int) -> float:
    """Seconds of the naive consumer: one record at a time, embed then conditional write."""
    store = make_store("sequential", TITAN, "stream")
    batch = pending_records(store, records)
    embeddings = bedrock_embeddings(TITAN, DIMS[TITAN], False, region_name="us-east-1")
    client = store.client

    def loop() -> None:
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

    return meter.measure(loop).latency_ms / 1000


def reindex_throughput(meter: Meter, items: int) -> tuple[float, int]:
    kv = DynamoDBStore("reindex", region_name="us-east-1")
    kv.setup()
    kv.batch(PutOp(("tenant", f"user-{n % 10}"), f"k{n}", {"text": text(n)}) for n in range(items))
    store = make_store("reindex", TITAN, "write")
    sample = meter.measure(lambda: reindex(store))
    return sample.result.embedded / (sample.latency_ms / 1000), sample.result.embedded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ddb-ms", type=float, default=5.0)
    parser.add_argument("--embed-ms", type=float, default=60.0)
    parser.add_argument("--records", type=int, default=100)
    parser.add_argument("--puts", type=int, default=30)
    parser.add_argument("--reindex", type=int, default=500)
    args = parser.parse_args()
    with mock_aws(), Meter() as meter, meter.delays(Latency(args.ddb_ms, args.embed_ms)):
        puts = put_latency(meter, args.puts)
        batch_wall, titan_calls = consumer_batch(meter, args.records, TITAN)
        _, cohere_calls = consumer_batch(meter, args.records, COHERE)
        loop_wall = sequential_loop(meter, args.records)
        rate, embedded = reindex_throughput(meter, args.reindex)
    print(
        f"latency model: {args.ddb_ms:g} ms per DynamoDB call, {args.embed_ms:g} ms per "
        "embedding; the emulator's own time subtracted"
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
