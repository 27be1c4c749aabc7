"""Local secondary indexes through plain boto3: moto's query semantics, plus the limits
the emulation adds (LSI sort key size, item + index entries within 400 KB, and the
item-collection size limit)."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from langgraph.store.dynamodb.testing import mock_aws

TABLE = "lsi"
INDEX = "by-r"


def create(ddb: Any, projection: dict[str, Any] | None = None) -> None:
    ddb.create_table(
        TableName=TABLE,
        AttributeDefinitions=[
            {"AttributeName": name, "AttributeType": "S"} for name in ("PK", "SK", "R")
        ],
        KeySchema=[
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"},
        ],
        LocalSecondaryIndexes=[
            {
                "IndexName": INDEX,
                "KeySchema": [
                    {"AttributeName": "PK", "KeyType": "HASH"},
                    {"AttributeName": "R", "KeyType": "RANGE"},
                ],
                "Projection": projection
                or {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["value"]},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )


def item(pk: str, sk: str, r: str | None = None, **attrs: str) -> dict[str, Any]:
    row = {"PK": {"S": pk}, "SK": {"S": sk}, **{k: {"S": v} for k, v in attrs.items()}}
    if r is not None:
        row["R"] = {"S": r}
    return row


def newest(ddb: Any, pk: str, **kwargs: Any) -> dict[str, Any]:
    response: dict[str, Any] = ddb.query(
        TableName=TABLE,
        IndexName=INDEX,
        KeyConditionExpression="PK = :pk",
        ExpressionAttributeValues={":pk": {"S": pk}},
        ScanIndexForward=False,
        ConsistentRead=True,
        **kwargs,
    )
    return response


def test_query_is_sparse_ordered_paged_and_projected(ddb: Any) -> None:
    create(ddb)
    for i, r in enumerate(["2", "5", "1", "4", "3"]):
        ddb.put_item(TableName=TABLE, Item=item("a", f"k{i}", r, value="v", other="o"))
    ddb.put_item(TableName=TABLE, Item=item("a", "v#1", value="not indexed"))
    ddb.put_item(TableName=TABLE, Item=item("b", "k9", "9", value="other partition"))
    first = newest(ddb, "a", Limit=2)
    assert [i["R"]["S"] for i in first["Items"]] == ["5", "4"]
    assert first["ScannedCount"] == 2 and "LastEvaluatedKey" in first
    assert set(first["Items"][0]) == {"PK", "SK", "R", "value"}  # INCLUDE projection
    rest = newest(ddb, "a", ExclusiveStartKey=first["LastEvaluatedKey"])
    assert [i["R"]["S"] for i in rest["Items"]] == ["3", "2", "1"]
    assert "LastEvaluatedKey" not in rest


def test_attributes_the_index_does_not_project_are_fetched_from_the_table(ddb: Any) -> None:
    create(ddb)
    ddb.put_item(TableName=TABLE, Item=item("a", "k", "r", value="v", other="o"))
    named = newest(
        ddb, "a", ProjectionExpression="SK, #o", ExpressionAttributeNames={"#o": "other"}
    )
    assert named["Items"] == [{"SK": {"S": "k"}, "other": {"S": "o"}}]
    everything = newest(ddb, "a", Select="ALL_ATTRIBUTES")
    assert set(everything["Items"][0]) == {"PK", "SK", "R", "value", "other"}
    assert set(newest(ddb, "a")["Items"][0]) == {"PK", "SK", "R", "value"}  # projected only


def test_an_unknown_index_is_named_as_aws_names_it(ddb: Any) -> None:
    create(ddb)
    with pytest.raises(ClientError, match="The table does not have the specified index: nope"):
        ddb.query(
            TableName=TABLE,
            IndexName="nope",
            KeyConditionExpression="PK = :pk",
            ExpressionAttributeValues={":pk": {"S": "a"}},
        )


def test_an_index_sort_key_over_1024_bytes_is_refused(ddb: Any) -> None:
    create(ddb)
    ddb.put_item(TableName=TABLE, Item=item("a", "k", "r" * 1024))
    with pytest.raises(ClientError, match="Aggregated size of all range keys"):
        ddb.put_item(TableName=TABLE, Item=item("a", "k", "r" * 1025))
    with pytest.raises(ClientError, match="Aggregated size of all range keys"):
        ddb.update_item(
            TableName=TABLE,
            Key={"PK": {"S": "a"}, "SK": {"S": "k"}},
            UpdateExpression="SET R = :r",
            ExpressionAttributeValues={":r": {"S": "r" * 1025}},
        )
    assert ddb.get_item(TableName=TABLE, Key=item("a", "k"))["Item"]["R"]["S"] == "r" * 1024


def test_the_item_and_its_index_entries_share_the_400_kb_limit(ddb: Any) -> None:
    create(ddb)
    ddb.put_item(TableName=TABLE, Item=item("a", "k", "r", value="x" * 190_000))
    with pytest.raises(ClientError, match="Item size has exceeded the maximum allowed size"):
        ddb.put_item(TableName=TABLE, Item=item("a", "k", "r", value="x" * 210_000))
    # Outside the index (no sort key, or an attribute it does not project) the row may be
    # as large as any.
    ddb.put_item(TableName=TABLE, Item=item("a", "k2", value="x" * 390_000))
    ddb.put_item(TableName=TABLE, Item=item("a", "k3", "r", other="x" * 390_000))


@pytest.mark.emulator_settings(item_collection_size_limit=10_000)
def test_a_full_item_collection_refuses_growth_only(ddb: Any) -> None:
    create(ddb)
    written = 0
    with pytest.raises(ClientError) as refused:
        for i in range(100):
            ddb.put_item(TableName=TABLE, Item=item("a", f"k{i:02d}", f"{i}", value="x" * 400))
            written += 1
    assert refused.value.response["Error"]["Code"] == "ItemCollectionSizeLimitExceededException"
    assert 0 < written < 100
    ddb.put_item(TableName=TABLE, Item=item("b", "k", "r", value="x" * 400))  # other partition
    # A same-size write still works; growth through UpdateItem is refused too.
    ddb.put_item(TableName=TABLE, Item=item("a", "k00", "0", value="y" * 400))
    with pytest.raises(ClientError, match="ItemCollectionSizeLimitExceededException"):
        ddb.update_item(
            TableName=TABLE,
            Key={"PK": {"S": "a"}, "SK": {"S": "k01"}},
            UpdateExpression="SET #v = :v",
            ExpressionAttributeNames={"#v": "value"},
            ExpressionAttributeValues={":v": {"S": "x" * 4000}},
        )
    assert len(ddb.get_item(TableName=TABLE, Key=item("a", "k01"))["Item"]["value"]["S"]) == 400
    with pytest.raises(ClientError, match="ItemCollectionSizeLimitExceededException"):
        ddb.batch_write_item(
            RequestItems={TABLE: [{"PutRequest": {"Item": item("a", "new", "n", value="x" * 400)}}]}
        )
    ddb.put_item(TableName=TABLE, Item=item("a", "k00", "0", value="y"))  # shrinks
    ddb.delete_item(TableName=TABLE, Key=item("a", "k02"))
    ddb.put_item(TableName=TABLE, Item=item("a", "new", "n", value="x" * 400))


def test_the_collection_limit_holds_exactly_past_30000_rows() -> None:
    """Each row below is 264 bytes to its collection by DynamoDB's rules (table row 32 +
    index entry 32 + 100 overhead each): the limit admits exactly 30,000 of them, and the
    size is kept running, so the 30,001st put costs no sum over the collection."""
    per_row, rows = 32 + 32 + 2 * 100, 30_000
    with mock_aws(item_collection_size_limit=rows * per_row + per_row - 1):
        ddb = boto3.client("dynamodb", region_name="us-east-1")
        create(ddb)

        def row(i: int) -> dict[str, Any]:
            return item("a", f"k{i:05d}", f"{i:05d}", value="x" * 10)  # 3 + 8 + 6 + 15

        for start in range(0, rows, 25):
            ddb.batch_write_item(
                RequestItems={
                    TABLE: [{"PutRequest": {"Item": row(i)}} for i in range(start, start + 25)]
                }
            )
        with pytest.raises(ClientError, match="ItemCollectionSizeLimitExceededException"):
            ddb.put_item(TableName=TABLE, Item=row(rows))
        ddb.delete_item(TableName=TABLE, Key={"PK": {"S": "a"}, "SK": {"S": "k00000"}})
        ddb.put_item(TableName=TABLE, Item=row(rows))  # room for exactly one again
        with pytest.raises(ClientError, match="ItemCollectionSizeLimitExceededException"):
            ddb.put_item(TableName=TABLE, Item=row(rows + 1))

        # 263 bytes of room left; growth through UpdateItem counts twice (row and entry).
        def grow(value: str) -> None:
            ddb.update_item(
                TableName=TABLE,
                Key={"PK": {"S": "a"}, "SK": {"S": "k00001"}},
                UpdateExpression="SET #v = :v",
                ExpressionAttributeNames={"#v": "value"},
                ExpressionAttributeValues={":v": {"S": value}},
            )

        grow("x" * (10 + 131))  # + 262 bytes: fits
        with pytest.raises(ClientError, match="ItemCollectionSizeLimitExceededException"):
            grow("x" * (10 + 132))  # + 264
        with pytest.raises(ClientError, match="ItemCollectionSizeLimitExceededException"):
            ddb.update_item(  # a new key through UpdateItem, as the store's put writes one
                TableName=TABLE,
                Key={"PK": {"S": "a"}, "SK": {"S": "k99999"}},
                UpdateExpression="SET #v = :v, R = :r",
                ExpressionAttributeNames={"#v": "value"},
                ExpressionAttributeValues={":v": {"S": "x"}, ":r": {"S": "r"}},
            )
        assert "Item" not in ddb.get_item(
            TableName=TABLE, Key={"PK": {"S": "a"}, "SK": {"S": "k99999"}}
        )
