"""DynamoDB's limits on expression parameters ("Constraints in Amazon DynamoDB",
"Expression parameters"): 4 KB per expression string and 300 operators and functions, on
every request that takes an expression, with the service's ValidationException. An
expression exactly at a limit is accepted."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from langgraph.store.dynamodb.testing import mock_aws

TABLE = "limits"
KEY = {"PK": {"S": "p"}, "SK": {"S": "s"}}


@pytest.fixture
def client() -> Iterator[Any]:
    with mock_aws():
        made = boto3.client("dynamodb", region_name="us-east-1")
        made.create_table(
            TableName=TABLE,
            AttributeDefinitions=[
                {"AttributeName": "PK", "AttributeType": "S"},
                {"AttributeName": "SK", "AttributeType": "S"},
            ],
            KeySchema=[
                {"AttributeName": "PK", "KeyType": "HASH"},
                {"AttributeName": "SK", "KeyType": "RANGE"},
            ],
            BillingMode="PAY_PER_REQUEST",
        )
        made.put_item(TableName=TABLE, Item={**KEY, "a": {"N": "1"}})
        yield made


def _keep_first(n: int) -> dict[str, Any]:
    """An UpdateItem setting `n` attributes with if_not_exists: 2 operators each (the
    saver's pending writes before they were split)."""
    return {
        "UpdateExpression": "SET "
        + ", ".join(f"#w{i} = if_not_exists(#w{i}, :w{i})" for i in range(n)),
        "ExpressionAttributeNames": {f"#w{i}": f"w{i}" for i in range(n)},
        "ExpressionAttributeValues": {f":w{i}": {"S": "x"} for i in range(n)},
    }


def _sets(n: int) -> dict[str, Any]:
    """An UpdateItem of `n` short SET actions, one operator each."""
    return {
        "UpdateExpression": "SET " + ",".join(f"a{i}=:v{i}" for i in range(n)),
        "ExpressionAttributeValues": {f":v{i}": {"S": "x"} for i in range(n)},
    }


def _padded_projection(size: int) -> str:
    """A ProjectionExpression of exactly `size` bytes: distinct names, then spaces."""
    text = "a"
    i = 0
    while len(text) + len(f",b{i}") <= size:
        text += f",b{i}"
        i += 1
    return text + " " * (size - len(text))


def test_an_update_of_300_send_writes_gets_the_service_answer_not_a_crash(client: Any) -> None:
    """300 Sends made one UpdateExpression that crashed moto with RecursionError."""
    with pytest.raises(ClientError) as caught:
        client.update_item(TableName=TABLE, Key=KEY, **_keep_first(300))
    error = caught.value.response["Error"]
    assert error["Code"] == "ValidationException"
    assert error["Message"].startswith(
        "Invalid UpdateExpression: Expression size has exceeded the maximum allowed size; "
        "expression size: "
    )


def test_operators_are_counted_up_to_300(client: Any) -> None:
    """300 short SET actions fit 4 KB: 300 operators pass, 301 do not."""
    client.update_item(TableName=TABLE, Key=KEY, **_sets(300))
    assert "a299" in client.get_item(TableName=TABLE, Key=KEY)["Item"]
    request = _sets(301)
    assert len(request["UpdateExpression"]) <= 4096
    with pytest.raises(
        ClientError,
        match=r"^.*Invalid UpdateExpression: The expression contains "
        r"too many operators; operator count: 301$",
    ):
        client.update_item(TableName=TABLE, Key=KEY, **request)
    assert "a300" not in client.get_item(TableName=TABLE, Key=KEY)["Item"]


def test_a_condition_counts_its_functions_and_logic(client: Any) -> None:
    """`attribute_exists(#a) AND ...`: a function and an AND per term."""
    terms = 151
    condition = " AND ".join(["attribute_exists(#a)"] * terms)  # 151 functions, 150 ANDs
    with pytest.raises(
        ClientError,
        match="Invalid ConditionExpression: The expression contains "
        "too many operators; operator count: 301",
    ):
        client.put_item(
            TableName=TABLE,
            Item={**KEY, "b": {"S": "y"}},
            ConditionExpression=condition,
            ExpressionAttributeNames={"#a": "a"},
        )
    client.put_item(
        TableName=TABLE,
        Item={**KEY, "a": {"N": "1"}, "b": {"S": "y"}},
        ConditionExpression=" AND ".join(["attribute_exists(#a)"] * 150),
        ExpressionAttributeNames={"#a": "a"},
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda c, p: c.get_item(TableName=TABLE, Key=KEY, ProjectionExpression=p),
        lambda c, p: c.scan(TableName=TABLE, ProjectionExpression=p),
        lambda c, p: c.query(
            TableName=TABLE,
            KeyConditionExpression="PK = :p",
            ExpressionAttributeValues={":p": {"S": "p"}},
            ProjectionExpression=p,
        ),
        lambda c, p: c.batch_get_item(
            RequestItems={TABLE: {"Keys": [KEY], "ProjectionExpression": p}}
        ),
    ],
    ids=["GetItem", "Scan", "Query", "BatchGetItem"],
)
def test_every_read_refuses_a_projection_past_4_kb(client: Any, call: Any) -> None:
    call(client, _padded_projection(4096))
    with pytest.raises(
        ClientError,
        match="Invalid ProjectionExpression: Expression size has "
        "exceeded the maximum allowed size; expression size: 4097",
    ):
        call(client, _padded_projection(4097))


def test_every_write_refuses_an_expression_past_4_kb(client: Any) -> None:
    long = "attribute_exists(#a) AND " + " " * 4096 + "attribute_exists(#a)"
    names = {"#a": "a"}
    attempts: list[tuple[str, Any]] = [
        (
            "ConditionExpression",
            lambda: client.put_item(
                TableName=TABLE, Item=KEY, ConditionExpression=long, ExpressionAttributeNames=names
            ),
        ),
        (
            "ConditionExpression",
            lambda: client.delete_item(
                TableName=TABLE, Key=KEY, ConditionExpression=long, ExpressionAttributeNames=names
            ),
        ),
        (
            "FilterExpression",
            lambda: client.scan(
                TableName=TABLE, FilterExpression=long, ExpressionAttributeNames=names
            ),
        ),
        (
            "KeyConditionExpression",
            lambda: client.query(
                TableName=TABLE,
                KeyConditionExpression="PK = :p" + " " * 4096,
                ExpressionAttributeValues={":p": {"S": "p"}},
            ),
        ),
        (
            "ConditionExpression",
            lambda: client.transact_write_items(
                TransactItems=[
                    {
                        "ConditionCheck": {
                            "TableName": TABLE,
                            "Key": KEY,
                            "ConditionExpression": long,
                            "ExpressionAttributeNames": names,
                        }
                    }
                ]
            ),
        ),
        (
            "UpdateExpression",
            lambda: client.transact_write_items(
                TransactItems=[{"Update": {"TableName": TABLE, "Key": KEY, **_keep_first(200)}}]
            ),
        ),
    ]
    for kind, attempt in attempts:
        with pytest.raises(ClientError, match=f"Invalid {kind}: Expression size has exceeded"):
            attempt()
    assert client.get_item(TableName=TABLE, Key=KEY)["Item"] == {**KEY, "a": {"N": "1"}}


def test_the_deepest_update_within_the_limits_is_applied(client: Any) -> None:
    """840 REMOVE actions make 4,096 bytes and no operator: moto nests its tree once per
    action, and still applies it."""
    client.update_item(TableName=TABLE, Key=KEY, **_sets(300))
    expression = "REMOVE " + ",".join(f"a{i}" for i in range(840))
    assert len(expression) == 4096
    client.update_item(TableName=TABLE, Key=KEY, UpdateExpression=expression)
    assert client.get_item(TableName=TABLE, Key=KEY)["Item"] == {**KEY, "a": {"N": "1"}}


@pytest.mark.parametrize(
    "expression",
    ["SET a = :v, b = :v REMOVE a", "SET a = :v, x.a = :v, a.b = :v", "REMOVE b, c, b"],
    ids=["the same path", "a path and one inside it", "a path removed twice"],
)
def test_actions_on_overlapping_paths_are_refused_among_many(client: Any, expression: str) -> None:
    """The emulation answers "no overlap" quickly; an overlap is still refused as DynamoDB
    refuses it, among 300 other actions, and nothing changes."""
    client.update_item(TableName=TABLE, Key=KEY, **_sets(3))
    before = client.get_item(TableName=TABLE, Key=KEY)["Item"]
    others = ", ".join(f"p{i}" for i in range(300))
    if "REMOVE " in expression:
        padded = expression.replace("REMOVE ", f"REMOVE {others}, ")
    else:
        padded = f"{expression} REMOVE {others}"
    values = {"ExpressionAttributeValues": {":v": {"N": "1"}}} if ":v" in padded else {}
    with pytest.raises(ClientError, match="Two document paths"):
        client.update_item(TableName=TABLE, Key=KEY, UpdateExpression=padded, **values)
    assert client.get_item(TableName=TABLE, Key=KEY)["Item"] == before
