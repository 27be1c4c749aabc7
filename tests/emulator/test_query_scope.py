"""Query reads only its partition and items come back on the wire exactly as stored."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from langgraph.store.dynamodb.testing import mock_aws
from langgraph.store.dynamodb.testing._partition_query import _scope

from .conftest import local_index

S = {"AttributeType": "S"}


@pytest.fixture
def client() -> Iterator[Any]:
    with mock_aws():
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        dynamodb.create_table(
            TableName="t",
            AttributeDefinitions=[{"AttributeName": n, **S} for n in ("PK", "SK", "when", "owner")],
            KeySchema=[
                {"AttributeName": "PK", "KeyType": "HASH"},
                {"AttributeName": "SK", "KeyType": "RANGE"},
            ],
            LocalSecondaryIndexes=[local_index("by-when", "when", {"ProjectionType": "ALL"})],
            GlobalSecondaryIndexes=[
                {
                    "IndexName": "by-owner",
                    "KeySchema": [{"AttributeName": "owner", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ],
            BillingMode="PAY_PER_REQUEST",
        )
        for p in range(5):
            for k in range(6):
                dynamodb.put_item(
                    TableName="t",
                    Item={
                        "PK": {"S": f"p{p}"},
                        "SK": {"S": f"k{k}"},
                        "when": {"S": f"{9 - k}"},
                        "owner": {"S": f"o{k % 2}"},
                    },
                )
        yield dynamodb


def _keys(response: dict[str, Any]) -> list[tuple[str, str]]:
    return [(i["PK"]["S"], i["SK"]["S"]) for i in response["Items"]]


def test_a_table_query_pages_through_one_partition_in_order(client: Any) -> None:
    seen: list[tuple[str, str]] = []
    kwargs: dict[str, Any] = {
        "TableName": "t",
        "KeyConditionExpression": "PK = :p AND SK > :k",
        "ExpressionAttributeValues": {":p": {"S": "p3"}, ":k": {"S": "k1"}},
        "Limit": 3,
        "ScanIndexForward": False,
    }
    while True:
        page = client.query(**kwargs)
        assert page["ScannedCount"] <= 3
        seen += _keys(page)
        if "LastEvaluatedKey" not in page:
            break
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    assert seen == [("p3", f"k{k}") for k in (5, 4, 3, 2)]
    assert getattr(_scope, "partition", None) is None  # the scope ends with the request


def test_a_local_index_query_stays_in_its_partition(client: Any) -> None:
    page = client.query(
        TableName="t",
        IndexName="by-when",
        KeyConditionExpression="PK = :p",
        ExpressionAttributeValues={":p": {"S": "p2"}},
        Limit=2,
    )
    assert _keys(page) == [("p2", "k5"), ("p2", "k4")]  # "when" ascending: 4, 5


def test_a_global_index_query_still_spans_partitions(client: Any) -> None:
    page = client.query(
        TableName="t",
        IndexName="by-owner",
        KeyConditionExpression="#o = :o",
        ExpressionAttributeNames={"#o": "owner"},
        ExpressionAttributeValues={":o": {"S": "o1"}},
    )
    assert page["Count"] == 15 and {pk for pk, _ in _keys(page)} == {f"p{p}" for p in range(5)}


def test_every_attribute_type_comes_back_exactly(client: Any) -> None:
    value = {
        "s": {"S": "日本 \u0000x"},
        "n": {"N": "-1.5E+3"},
        "b": {"B": b"\x00\xffbytes"},
        "bs": {"BS": [b"a", b"\x01"]},
        "ss": {"SS": ["x", "y"]},
        "ns": {"NS": ["1", "2.5"]},
        "t": {"BOOL": True},
        "null": {"NULL": True},
        "m": {"M": {"inner": {"L": [{"S": "a"}, {"N": "1"}, {"B": b"\x02"}, {"M": {}}]}}},
        "l": {"L": []},
    }
    client.put_item(TableName="t", Item={"PK": {"S": "x"}, "SK": {"S": "y"}, **value})
    (item,) = client.query(
        TableName="t",
        KeyConditionExpression="PK = :p",
        ExpressionAttributeValues={":p": {"S": "x"}},
    )["Items"]
    got = {k: v for k, v in item.items() if k not in ("PK", "SK")}
    for name in ("ss", "ns", "bs"):
        kind = next(iter(value[name]))
        assert sorted(got.pop(name)[kind]) == sorted(value.pop(name)[kind])  # type: ignore[index]
    assert got == value
