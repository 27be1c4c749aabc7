"""SearchVectors on the emulation: 100,000 vectors x 384 dims in one partition.

Run: ``python -m bench.bench_search_vectors [--items N] [--dims D] [--runs R]``.

Prints the median and p95 latency of a full ``SearchVectors`` call through boto3 (in-process
``mock_aws``: request signing, moto dispatch, the emulator's handler, exact k-NN in f32,
projection and response parsing), and of the k-NN core alone.

The table really holds the 100,000 items. Their vectors are installed in the index's
partition cache directly from a numpy matrix: moto keeps each list element as its own
Python object, so loading 38.4 M numbers through PutItem would need several GB and minutes.
The cold path (building the matrix from items written with PutItem, as after a write) is
measured separately at ``--cold-items`` scale.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import boto3
import numpy as np
from langgraph.store.dynamodb.testing import _vector as v
from langgraph.store.dynamodb.testing import mock_aws
from langgraph.store.dynamodb.testing.mock import fake_credentials_env, patched_env
from moto.dynamodb.models import dynamodb_backends
from moto.dynamodb.models.dynamo_type import DynamoType, Item

from bench.tables import create_table

TABLE = "bench"
INDEX = "vec"
REGION = "us-east-1"
ACCOUNT = "123456789012"


def create(ddb: Any, dims: int) -> None:
    create_table(
        ddb,
        TABLE,
        VectorIndexes=[
            {
                "IndexName": INDEX,
                "VectorAttribute": {"AttributeName": "embedding"},
                "Dimensions": dims,
                "DistanceFunction": "COSINE",
                "Projection": {"ProjectionType": "ALL"},
                "SearchSchema": [{"AttributeName": "PK", "SearchSchemaElementType": "HASH"}],
            }
        ],
    )


def search(ddb: Any, query: np.ndarray, top_k: int) -> dict[str, Any]:
    result: dict[str, Any] = ddb.search_vectors(
        TableName=TABLE,
        IndexName=INDEX,
        SearchVector=[{"N": repr(float(x))} for x in query],
        TopK=top_k,
        SearchConditionExpression="PK = :p",
        ExpressionAttributeValues={":p": {"S": "ns"}},
    )
    return result


def timed(fn: Any, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def summary(ms: list[float]) -> str:
    ms = sorted(ms)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return f"median {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--dims", type=int, default=384)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--cold-items", type=int, default=2_000)
    args = parser.parse_args()
    rng = np.random.default_rng(42)

    with patched_env(fake_credentials_env(REGION)), mock_aws():
        ddb = boto3.client("dynamodb", region_name=REGION)
        create(ddb, args.dims)
        table = dynamodb_backends[ACCOUNT][REGION].tables[TABLE]
        ix = v.indexes(table)[INDEX]
        pk = DynamoType({"S": "ns"})
        matrix = rng.standard_normal((args.items, args.dims), dtype=np.float32)
        items = []
        for i in range(args.items):
            sk = DynamoType({"S": f"{i:07d}"})
            item = Item(pk, sk, {"PK": {"S": "ns"}, "SK": {"S": f"{i:07d}"}})
            table.items[pk][sk] = item
            items.append(item)
        v.seed_partition(table, ix, pk, v._Partition.from_matrix(ix, items, matrix))

        query = rng.standard_normal(args.dims, dtype=np.float32)
        target = 12345 % args.items
        hit = search(ddb, matrix[target], args.top_k)["SearchResults"][0]
        assert hit["Item"]["SK"]["S"] == f"{target:07d}", hit
        search(ddb, query, args.top_k)  # warm-up
        end_to_end = timed(lambda: search(ddb, query, args.top_k), args.runs)
        part = v.partition(table, ix, pk)
        core = timed(lambda: part.distances(query, None).argpartition(args.top_k), args.runs)
        print(
            f"SearchVectors over {args.items:,} x {args.dims} (one partition, TopK="
            f"{args.top_k}, COSINE): {summary(end_to_end)} end-to-end via boto3"
        )
        print(f"  k-NN core alone: {summary(core)}")

        # cold path: vectors written with PutItem, matrix built on the first search
        for i in range(args.cold_items):
            ddb.put_item(
                TableName=TABLE,
                Item={
                    "PK": {"S": "cold"},
                    "SK": {"S": f"{i:07d}"},
                    "embedding": {
                        "L": [{"N": repr(float(x))} for x in rng.standard_normal(args.dims)]
                    },
                },
            )

        def cold_search() -> None:
            ddb.search_vectors(
                TableName=TABLE,
                IndexName=INDEX,
                SearchVector=[{"N": repr(float(x))} for x in query],
                TopK=args.top_k,
                SearchConditionExpression="PK = :p",
                ExpressionAttributeValues={":p": {"S": "cold"}},
            )

        (first,) = timed(cold_search, 1)
        ddb.put_item(
            TableName=TABLE,
            Item={
                "PK": {"S": "cold"},
                "SK": {"S": "0000000"},
                "embedding": {"L": [{"N": "1.0"} for _ in range(args.dims)]},
            },
        )
        (after_write,) = timed(cold_search, 1)
        print(
            f"  first search of {args.cold_items:,} x {args.dims} vectors written with PutItem "
            f"(matrix built from items): {first:.1f} ms; after one more write (rows reused): "
            f"{after_write:.1f} ms"
        )


if __name__ == "__main__":
    main()
