"""The pytest plugin fixtures and mock_aws as a decorator."""

from __future__ import annotations

from typing import Any

import boto3
from langgraph.store.dynamodb.testing import EmulatorSettings, current_settings, mock_aws
from langgraph.store.dynamodb.testing.pytest_plugin import EmulatedAWS

from .conftest import create_table, index_spec, put, search


def test_aws_fixture_from_plugin(aws: EmulatedAWS) -> None:
    ddb = boto3.client("dynamodb")  # default region and fake credentials are set
    create_table(ddb, indexes=[index_spec()])
    put(ddb, "a", "1", [1, 0, 0, 0])
    result = search(aws.client("dynamodb"), [1, 0, 0, 0])
    assert [(r["Item"]["SK"]["S"], r["Score"]) for r in result["SearchResults"]] == [("1", 0.0)]


def test_aws_endpoint_fixture(aws_endpoint: EmulatedAWS) -> None:
    ddb = aws_endpoint.client("dynamodb")
    create_table(ddb, indexes=[index_spec()])
    (index,) = ddb.describe_table(TableName="memories")["Table"]["VectorIndexes"]
    assert (index["IndexName"], index["IndexStatus"], index["Dimensions"]) == ("vec", "ACTIVE", 4)


@mock_aws
def test_decorator_form() -> None:
    ddb = boto3.client("dynamodb", region_name="us-east-1")
    create_table(ddb, indexes=[index_spec()])
    put(ddb, "a", "1", [1, 0, 0, 0])
    assert search(ddb, [1, 0, 0, 0])["SearchResults"][0]["Score"] == 0.0


def test_knobs_are_scoped_to_the_context() -> None:
    assert current_settings() == EmulatorSettings()
    with mock_aws(index_creation_delay=2.0, search_lag=0.5) as mock:
        assert current_settings().index_creation_delay == 2.0
        assert mock.settings.search_lag == 0.5
    assert current_settings() == EmulatorSettings()


def test_plain_tables_behave_like_moto(aws: Any) -> None:
    ddb = aws.client("dynamodb")
    create_table(ddb)
    put(ddb, "a", "1", None, text="x")
    got = ddb.query(
        TableName="memories",
        KeyConditionExpression="PK = :p",
        ExpressionAttributeValues={":p": {"S": "a"}},
    )
    assert got["Count"] == 1


def test_emulated_tables_lists_every_table_of_every_region() -> None:
    from langgraph.store.dynamodb.testing import emulated_tables

    with mock_aws():
        for region, name in (("us-east-1", "a"), ("eu-west-1", "b")):
            boto3.client("dynamodb", region_name=region).create_table(
                TableName=name,
                AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
                KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
                BillingMode="PAY_PER_REQUEST",
            )
        assert sorted((region, name) for _, region, name in emulated_tables()) == [
            ("eu-west-1", "b"),
            ("us-east-1", "a"),
        ]
