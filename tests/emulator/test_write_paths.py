"""Every write API keeps the index in sync and validates vectors, writing nothing on error."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from .conftest import TABLE, create_table, index_spec, keys, put, search, vec, wait_for

BAD_SIZE = (
    "One or more parameter values were invalid: Invalid size for parameter embedding, "
    "Expected: 4, Actual: 3. IndexName: vec"
)


def item(sk: str, vector: list[float] | None, pk: str = "a") -> dict[str, Any]:
    out: dict[str, Any] = {"PK": {"S": pk}, "SK": {"S": sk}}
    if vector is not None:
        out["embedding"] = vec(vector)
    return out


def count(ddb: Any) -> int:
    return int(ddb.scan(TableName=TABLE, Select="COUNT")["Count"])


def assert_bad_size(exc: pytest.ExceptionInfo[ClientError]) -> None:
    err = exc.value.response["Error"]
    assert err["Code"] == "ValidationException"
    assert BAD_SIZE in err["Message"]


@pytest.fixture
def table(ddb: Any) -> Any:
    create_table(ddb, indexes=[index_spec()])
    return ddb


def test_put_item_wrong_length_rejected(table: Any) -> None:
    with pytest.raises(ClientError) as exc:
        table.put_item(TableName=TABLE, Item=item("1", [1, 0, 0]))
    assert_bad_size(exc)
    assert count(table) == 0


def test_put_item_number_set_rejected(table: Any) -> None:
    bad = item("1", None)
    bad["embedding"] = {"NS": ["1", "0", "0", "0"]}
    with pytest.raises(ClientError) as exc:
        table.put_item(TableName=TABLE, Item=bad)
    assert exc.value.response["Error"]["Code"] == "ValidationException"
    assert count(table) == 0


def test_every_index_on_the_attribute_is_checked(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec(), index_spec("vec8", dims=8, schema=[])])
    with pytest.raises(ClientError) as exc:
        ddb.put_item(TableName=TABLE, Item=item("1", [1, 0, 0, 0]))
    assert "Expected: 8, Actual: 4. IndexName: vec8" in exc.value.response["Error"]["Message"]


def test_item_without_hash_attribute_is_written_but_not_indexed(ddb: Any) -> None:
    schema = [{"AttributeName": "tenant", "SearchSchemaElementType": "HASH"}]
    create_table(ddb, indexes=[index_spec(schema=schema)], extra_attrs=["tenant"])
    ddb.put_item(TableName=TABLE, Item=item("1", [1, 0, 0, 0]))
    ddb.put_item(TableName=TABLE, Item={**item("2", [1, 0, 0, 0]), "tenant": {"S": "t1"}})
    assert count(ddb) == 2
    result = ddb.search_vectors(
        TableName=TABLE,
        IndexName="vec",
        SearchVector=[{"N": "1"}, {"N": "0"}, {"N": "0"}, {"N": "0"}],
        TopK=10,
        SearchConditionExpression="tenant = :t",
        ExpressionAttributeValues={":t": {"S": "t1"}},
    )
    assert keys(result) == ["2"]


def test_item_without_vector_is_not_indexed(table: Any) -> None:
    put(table, "a", "novec")
    put(table, "a", "1", [1, 0, 0, 0])
    assert keys(search(table, [1, 0, 0, 0])) == ["1"]


def test_overwrite_replaces_entry(table: Any) -> None:
    put(table, "a", "1", [1, 0, 0, 0])
    put(table, "a", "2", [0, 1, 0, 0])
    assert keys(search(table, [1, 0, 0, 0], top_k=1)) == ["1"]
    put(table, "a", "1", [0, 0, 1, 0])
    assert keys(search(table, [1, 0, 0, 0])) == ["1", "2"]
    assert keys(search(table, [0, 0, 1, 0], top_k=1)) == ["1"]


def test_delete_item_removes_entry(table: Any) -> None:
    put(table, "a", "1", [1, 0, 0, 0])
    put(table, "a", "2", [0, 1, 0, 0])
    search(table, [1, 0, 0, 0])  # warm any cache
    table.delete_item(TableName=TABLE, Key={"PK": {"S": "a"}, "SK": {"S": "1"}})
    assert keys(search(table, [1, 0, 0, 0])) == ["2"]


def test_update_item_set_and_remove_vector(table: Any) -> None:
    put(table, "a", "1")
    assert keys(search(table, [1, 0, 0, 0])) == []
    key = {"PK": {"S": "a"}, "SK": {"S": "1"}}
    table.update_item(
        TableName=TABLE,
        Key=key,
        UpdateExpression="SET embedding = :v",
        ExpressionAttributeValues={":v": vec([1, 0, 0, 0])},
    )
    assert keys(search(table, [1, 0, 0, 0])) == ["1"]
    table.update_item(TableName=TABLE, Key=key, UpdateExpression="REMOVE embedding")
    assert keys(search(table, [1, 0, 0, 0])) == []
    assert table.get_item(TableName=TABLE, Key=key)["Item"] == key


def test_update_item_wrong_length_writes_nothing(table: Any) -> None:
    put(table, "a", "1", [1, 0, 0, 0], text="old")
    key = {"PK": {"S": "a"}, "SK": {"S": "1"}}
    with pytest.raises(ClientError) as exc:
        table.update_item(
            TableName=TABLE,
            Key=key,
            UpdateExpression="SET embedding = :v, #t = :t",
            ExpressionAttributeNames={"#t": "text"},
            ExpressionAttributeValues={":v": vec([1, 0, 0]), ":t": {"S": "new"}},
        )
    assert_bad_size(exc)
    stored = table.get_item(TableName=TABLE, Key=key)["Item"]
    assert stored["text"] == {"S": "old"}
    assert len(stored["embedding"]["L"]) == 4


def test_update_item_wrong_length_on_new_item_creates_nothing(table: Any) -> None:
    with pytest.raises(ClientError) as exc:
        table.update_item(
            TableName=TABLE,
            Key={"PK": {"S": "a"}, "SK": {"S": "new"}},
            UpdateExpression="SET embedding = :v",
            ExpressionAttributeValues={":v": vec([1, 0, 0])},
        )
    assert_bad_size(exc)
    assert count(table) == 0


def test_batch_write_rejects_whole_batch(table: Any) -> None:
    with pytest.raises(ClientError) as exc:
        table.batch_write_item(
            RequestItems={
                TABLE: [
                    {"PutRequest": {"Item": item("1", [1, 0, 0, 0])}},
                    {"PutRequest": {"Item": item("2", [1, 0, 0])}},
                ]
            }
        )
    assert_bad_size(exc)
    assert count(table) == 0


def test_batch_write_indexes_and_deletes(table: Any) -> None:
    put(table, "a", "0", [0, 0, 0, 1])
    table.batch_write_item(
        RequestItems={
            TABLE: [
                {"PutRequest": {"Item": item("1", [1, 0, 0, 0])}},
                {"PutRequest": {"Item": item("2", [0, 1, 0, 0])}},
                {"DeleteRequest": {"Key": {"PK": {"S": "a"}, "SK": {"S": "0"}}}},
            ]
        }
    )
    assert keys(search(table, [1, 0, 0, 0])) == ["1", "2"]


def test_transact_write_rejects_everything(table: Any) -> None:
    put(table, "a", "keep", [1, 0, 0, 0])
    with pytest.raises(ClientError) as exc:
        table.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": TABLE, "Item": item("1", [1, 0, 0, 0])}},
                {"Delete": {"TableName": TABLE, "Key": {"PK": {"S": "a"}, "SK": {"S": "keep"}}}},
                {"Put": {"TableName": TABLE, "Item": item("2", [1, 0, 0])}},
            ]
        )
    assert_bad_size(exc)
    assert count(table) == 1
    assert keys(search(table, [1, 0, 0, 0])) == ["keep"]


def test_transact_update_wrong_length_rejected(table: Any) -> None:
    put(table, "a", "1", [1, 0, 0, 0])
    with pytest.raises(ClientError) as exc:
        table.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": TABLE, "Item": item("2", [0, 1, 0, 0])}},
                {
                    "Update": {
                        "TableName": TABLE,
                        "Key": {"PK": {"S": "a"}, "SK": {"S": "1"}},
                        "UpdateExpression": "SET embedding = :v",
                        "ExpressionAttributeValues": {":v": vec([1, 0])},
                    }
                },
            ]
        )
    assert exc.value.response["Error"]["Code"] == "ValidationException"
    assert count(table) == 1
    assert keys(search(table, [1, 0, 0, 0])) == ["1"]


def test_transact_write_indexes(table: Any) -> None:
    put(table, "a", "old", [1, 0, 0, 0])
    search(table, [1, 0, 0, 0])
    table.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": TABLE, "Item": item("1", [1, 0, 0, 0])}},
            {"Delete": {"TableName": TABLE, "Key": {"PK": {"S": "a"}, "SK": {"S": "old"}}}},
        ]
    )
    assert keys(search(table, [1, 0, 0, 0])) == ["1"]


@pytest.mark.emulator_settings(indexing_lag=60.0)
def test_indexing_lag_hides_recent_writes(table: Any) -> None:
    put(table, "a", "1", [1, 0, 0, 0])
    assert table.get_item(TableName=TABLE, Key={"PK": {"S": "a"}, "SK": {"S": "1"}})["Item"]
    assert keys(search(table, [1, 0, 0, 0])) == []


@pytest.mark.emulator_settings(indexing_lag=0.2)
def test_indexing_lag_is_eventually_consistent(table: Any) -> None:
    put(table, "a", "1", [1, 0, 0, 0])
    wait_for(lambda: keys(search(table, [1, 0, 0, 0])) == ["1"])
    table.delete_item(TableName=TABLE, Key={"PK": {"S": "a"}, "SK": {"S": "1"}})
    wait_for(lambda: keys(search(table, [1, 0, 0, 0])) == [])
