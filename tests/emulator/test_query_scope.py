"""Query reads only its partition and items come back on the wire exactly as stored."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
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


SORT_KEYS = st.text(alphabet="ab#", min_size=1, max_size=2)  # 12 keys: conditions meet rows
CONDITIONS = st.one_of(
    st.tuples(st.sampled_from(["=", "<", "<=", ">", ">="]), SORT_KEYS),
    st.tuples(st.just("BETWEEN"), st.lists(SORT_KEYS, min_size=2, max_size=2).map(sorted)),
    st.tuples(st.just("begins_with"), SORT_KEYS),
    st.none(),
)


def _matches(key: str, condition: Any) -> bool:
    if condition is None:
        return True
    op, value = condition
    if op == "BETWEEN":
        return bool(value[0] <= key <= value[1])
    if op == "begins_with":
        return key.startswith(value)
    return bool(
        {
            "=": key == value,
            "<": key < value,
            "<=": key <= value,
            ">": key > value,
            ">=": key >= value,
        }[op]
    )


def _expression(condition: Any) -> tuple[str, dict[str, Any]]:
    if condition is None:
        return "PK = :p", {}
    op, value = condition
    if op == "BETWEEN":
        return "PK = :p AND SK BETWEEN :a AND :b", {":a": {"S": value[0]}, ":b": {"S": value[1]}}
    if op == "begins_with":
        return "PK = :p AND begins_with(SK, :a)", {":a": {"S": value}}
    return f"PK = :p AND SK {op} :a", {":a": {"S": value}}


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    st.lists(st.tuples(st.booleans(), SORT_KEYS), min_size=1, max_size=20),
    st.lists(
        st.tuples(CONDITIONS, st.booleans(), st.one_of(st.none(), st.integers(1, 4))), min_size=1
    ),
)
def test_a_query_reads_what_dynamodb_would_between_writes(
    writes: list[tuple[bool, str]], queries: list[tuple[Any, bool, int | None]]
) -> None:
    """Pages of any key condition, direction and limit, between puts and deletes of the
    partition (the emulation keeps its sorted keys across them): every match, once, in
    order, and a page never hands moto more rows than its limit and one."""
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        client.create_table(
            TableName="q",
            AttributeDefinitions=[{"AttributeName": n, **S} for n in ("PK", "SK")],
            KeySchema=[
                {"AttributeName": "PK", "KeyType": "HASH"},
                {"AttributeName": "SK", "KeyType": "RANGE"},
            ],
            BillingMode="PAY_PER_REQUEST",
        )
        held: set[str] = set()
        for (delete, key), (condition, forward, limit) in zip(
            writes, queries + [(None, True, None)] * len(writes), strict=False
        ):
            item = {"PK": {"S": "p"}, "SK": {"S": key}}
            if delete:
                client.delete_item(TableName="q", Key=item)
                held.discard(key)
            else:
                client.put_item(TableName="q", Item=item)
                held.add(key)
            expression, values = _expression(condition)
            kwargs: dict[str, Any] = {
                "TableName": "q",
                "KeyConditionExpression": expression,
                "ExpressionAttributeValues": {":p": {"S": "p"}, **values},
                "ScanIndexForward": forward,
            }
            if limit is not None:
                kwargs["Limit"] = limit
            seen: list[str] = []
            while True:
                page = client.query(**kwargs)
                if limit is not None:
                    assert _scope.examined <= limit + 1
                seen += [i["SK"]["S"] for i in page["Items"]]
                if "LastEvaluatedKey" not in page:
                    break
                kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
            expected = sorted((k for k in held if _matches(k, condition)), reverse=not forward)
            assert seen == expected, (condition, forward, limit)
