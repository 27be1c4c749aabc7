"""CreateTable/UpdateTable validation and DescribeTable transitions (both modes)."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from .conftest import INDEX, TABLE, create_table, index_spec, keys, put, search, vec, wait_for


def error(exc: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    err = exc.value.response["Error"]
    return err["Code"], err["Message"]


def vector_indexes(ddb: Any) -> list[dict[str, Any]]:
    indexes: list[dict[str, Any]] = ddb.describe_table(TableName=TABLE)["Table"].get(
        "VectorIndexes", []
    )
    return indexes


def test_describe_reports_the_index(ddb: Any) -> None:
    created = create_table(
        ddb,
        indexes=[
            index_spec(
                schema=[
                    {"AttributeName": "PK", "SearchSchemaElementType": "HASH"},
                    {"AttributeName": "kind", "SearchSchemaElementType": "INLINE_FILTER"},
                ],
                projection={"ProjectionType": "INCLUDE", "NonKeyAttributes": ["text"]},
                distance="EUCLIDEAN",
            )
        ],
        extra_attrs=["kind"],
    )
    assert created["TableDescription"]["VectorIndexes"][0]["IndexName"] == INDEX
    put(ddb, "a", "1", [1, 0, 0, 0])
    put(ddb, "a", "2")  # no vector: not indexed
    (ix,) = vector_indexes(ddb)
    assert ix["IndexName"] == INDEX
    assert ix["IndexStatus"] == "ACTIVE"
    assert "Backfilling" not in ix
    assert ix["Dimensions"] == 4
    assert ix["DistanceFunction"] == "EUCLIDEAN"
    assert ix["VectorAttribute"] == {"AttributeName": "embedding"}
    assert ix["Projection"] == {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["text"]}
    assert ix["SearchSchema"][1] == {
        "AttributeName": "kind",
        "SearchSchemaElementType": "INLINE_FILTER",
    }
    assert ix["IndexArn"] == (
        f"arn:aws:dynamodb:us-east-1:123456789012:table/{TABLE}/index/{INDEX}"
    )
    assert ix["ItemCount"] == 1
    # 4 bytes per dimension plus the key attributes' names and values ("PK" "a", "SK" "1")
    assert ix["IndexSizeBytes"] == 4 * 4 + 3 + 3
    table = ddb.describe_table(TableName=TABLE)["Table"]
    assert {"AttributeName": "kind", "AttributeType": "S"} in table["AttributeDefinitions"]


def test_table_without_vector_indexes_unaffected(ddb: Any) -> None:
    create_table(ddb)
    put(ddb, "a", "1", [1, 0])
    assert "VectorIndexes" not in ddb.describe_table(TableName=TABLE)["Table"]
    item = ddb.get_item(TableName=TABLE, Key={"PK": {"S": "a"}, "SK": {"S": "1"}})["Item"]
    assert item == {"PK": {"S": "a"}, "SK": {"S": "1"}, "embedding": vec([1, 0])}


def test_provisioned_table_rejected(ddb: Any) -> None:
    with pytest.raises(ClientError) as exc:
        create_table(
            ddb,
            indexes=[index_spec()],
            BillingMode="PROVISIONED",
            ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
        )
    assert error(exc)[0] == "ValidationException"
    assert "PAY_PER_REQUEST" in error(exc)[1]
    with pytest.raises(ClientError):
        ddb.describe_table(TableName=TABLE)


def test_search_schema_attribute_must_be_defined(ddb: Any) -> None:
    spec = index_spec(schema=[{"AttributeName": "tenant", "SearchSchemaElementType": "HASH"}])
    with pytest.raises(ClientError) as exc:
        create_table(ddb, indexes=[spec])
    assert error(exc) == (
        "ValidationException",
        "One or more parameter values were invalid: One element in SearchSchema is not "
        "defined in attribute definitions",
    )


def test_at_most_five_indexes(ddb: Any) -> None:
    specs = [index_spec(f"vec{i}", attr=f"e{i}") for i in range(6)]
    with pytest.raises(ClientError) as exc:
        create_table(ddb, indexes=specs)
    assert error(exc)[0] == "ValidationException"
    create_table(ddb, indexes=specs[:5])
    assert len(vector_indexes(ddb)) == 5


def test_at_most_one_hash_element(ddb: Any) -> None:
    schema = [
        {"AttributeName": "PK", "SearchSchemaElementType": "HASH"},
        {"AttributeName": "kind", "SearchSchemaElementType": "HASH"},
    ]
    with pytest.raises(ClientError) as exc:
        create_table(ddb, indexes=[index_spec(schema=schema)], extra_attrs=["kind"])
    assert error(exc)[0] == "ValidationException"


def test_at_most_18_inline_filters(ddb: Any) -> None:
    names = [f"f{i}" for i in range(19)]
    schema = [{"AttributeName": n, "SearchSchemaElementType": "INLINE_FILTER"} for n in names]
    with pytest.raises(ClientError) as exc:
        create_table(ddb, indexes=[index_spec(schema=schema)], extra_attrs=names)
    assert error(exc)[0] == "ValidationException"
    create_table(ddb, indexes=[index_spec(schema=schema[:18])], extra_attrs=names[:18])
    assert vector_indexes(ddb)[0]["SearchSchema"] == schema[:18]


@pytest.mark.parametrize("dims", [0, 4097])
def test_dimensions_range(emu: Any, dims: int) -> None:
    # Skip botocore's own client-side check (it stops 0 before any request) so that the
    # request reaches the emulated service, which must refuse it like DynamoDB.
    ddb = emu.client("dynamodb", config=Config(parameter_validation=False))
    with pytest.raises(ClientError) as exc:
        create_table(ddb, indexes=[index_spec(dims=dims)])
    assert error(exc) == (
        "ValidationException",
        f"1 validation error detected: Value '{dims}' at 'vectorIndexes.1.member.dimensions' "
        "failed to satisfy constraint: Member must have value between 1 and 4096",
    )
    with pytest.raises(ClientError, match="ResourceNotFoundException"):
        ddb.describe_table(TableName=TABLE)


def test_dimensions_4096_accepted(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec(dims=4096)])
    assert vector_indexes(ddb)[0]["Dimensions"] == 4096


def test_inline_creation_reports_creating(emu: Any, ddb: Any) -> None:
    emu.settings.index_creation_delay = 60.0
    create_table(ddb, indexes=[index_spec()])
    (ix,) = vector_indexes(ddb)
    assert ix["IndexStatus"] == "CREATING"
    assert "Backfilling" not in ix
    with pytest.raises(ClientError) as exc:
        search(ddb, [1, 0, 0, 0])
    assert error(exc) == (
        "ValidationException",
        f"The table does not have the specified index: {INDEX}",
    )


def test_inline_creation_turns_active(emu: Any, ddb: Any) -> None:
    emu.settings.index_creation_delay = 0.2
    create_table(ddb, indexes=[index_spec()])
    wait_for(lambda: vector_indexes(ddb)[0]["IndexStatus"] == "ACTIVE")
    assert "Backfilling" not in vector_indexes(ddb)[0]
    put(ddb, "a", "1", [1, 0, 0, 0])
    assert keys(search(ddb, [1, 0, 0, 0])) == ["1"]


def test_retrofit_with_items_reports_creating(emu: Any, ddb: Any) -> None:
    create_table(ddb)
    put(ddb, "a", "1", [1, 0, 0, 0])
    emu.settings.index_creation_delay = 60.0
    ddb.update_table(TableName=TABLE, VectorIndexUpdates=[{"Create": index_spec()}])
    ix = vector_indexes(ddb)[0]
    assert (ix["IndexStatus"], ix["Backfilling"]) == ("CREATING", False)


def test_retrofit_with_items_reports_backfilling(emu: Any, ddb: Any) -> None:
    create_table(ddb)
    put(ddb, "a", "1", [1, 0, 0, 0])
    emu.settings.backfill_delay = 60.0  # long enough that the test never sees it end
    ddb.update_table(TableName=TABLE, VectorIndexUpdates=[{"Create": index_spec()}])
    ix = vector_indexes(ddb)[0]
    assert (ix["IndexStatus"], ix["Backfilling"]) == ("ACTIVE", True)
    with pytest.raises(ClientError) as exc:
        search(ddb, [1, 0, 0, 0])
    assert error(exc) == (
        "ValidationException",
        f"Cannot search backfilling vector index: {INDEX}",
    )


def test_retrofit_backfill_ends(emu: Any, ddb: Any) -> None:
    create_table(ddb)
    put(ddb, "a", "1", [1, 0, 0, 0])
    emu.settings.backfill_delay = 0.2
    ddb.update_table(TableName=TABLE, VectorIndexUpdates=[{"Create": index_spec()}])
    wait_for(lambda: vector_indexes(ddb)[0]["Backfilling"] is False)
    assert vector_indexes(ddb)[0]["IndexStatus"] == "ACTIVE"
    assert [r["Item"]["SK"]["S"] for r in search(ddb, [1, 0, 0, 0])["SearchResults"]] == ["1"]


def test_retrofit_on_empty_table_has_no_backfill(emu: Any, ddb: Any) -> None:
    create_table(ddb)
    emu.settings.backfill_delay = 30.0
    ddb.update_table(TableName=TABLE, VectorIndexUpdates=[{"Create": index_spec()}])
    ix = vector_indexes(ddb)[0]
    assert (ix["IndexStatus"], ix["Backfilling"]) == ("ACTIVE", False)
    assert search(ddb, [1, 0, 0, 0])["SearchResults"] == []


def test_search_lag_after_active(emu: Any, ddb: Any) -> None:
    emu.settings.search_lag = 60.0
    create_table(ddb, indexes=[index_spec()])
    assert vector_indexes(ddb)[0]["IndexStatus"] == "ACTIVE"
    with pytest.raises(ClientError) as exc:
        search(ddb, [1, 0, 0, 0])
    assert error(exc) == (
        "ValidationException",
        f"The table does not have the specified index: {INDEX}",
    )


def test_search_lag_ends(emu: Any, ddb: Any) -> None:
    emu.settings.search_lag = 0.2
    create_table(ddb, indexes=[index_spec()])

    def searchable() -> bool:
        try:
            search(ddb, [1, 0, 0, 0])
        except ClientError:
            return False
        return True

    wait_for(searchable)


def test_retrofit_with_attribute_definitions(ddb: Any) -> None:
    create_table(ddb)
    schema = [
        {"AttributeName": "PK", "SearchSchemaElementType": "HASH"},
        {"AttributeName": "kind", "SearchSchemaElementType": "INLINE_FILTER"},
    ]
    with pytest.raises(ClientError) as exc:
        ddb.update_table(
            TableName=TABLE, VectorIndexUpdates=[{"Create": index_spec(schema=schema)}]
        )
    assert "not defined in attribute definitions" in error(exc)[1]
    ddb.update_table(
        TableName=TABLE,
        AttributeDefinitions=[{"AttributeName": "kind", "AttributeType": "S"}],
        VectorIndexUpdates=[{"Create": index_spec(schema=schema)}],
    )
    assert vector_indexes(ddb)[0]["SearchSchema"] == schema


def test_two_index_operations_at_once_rejected(ddb: Any) -> None:
    create_table(ddb)
    with pytest.raises(ClientError) as exc:
        ddb.update_table(
            TableName=TABLE,
            VectorIndexUpdates=[
                {"Create": index_spec("one", attr="e1")},
                {"Create": index_spec("two", attr="e2")},
            ],
        )
    assert error(exc) == (
        "LimitExceededException",
        "Subscriber limit exceeded: Only 1 online index can be created or deleted "
        "simultaneously per table",
    )


def test_second_create_while_first_still_creating_rejected(emu: Any, ddb: Any) -> None:
    create_table(ddb)
    emu.settings.index_creation_delay = 30.0
    ddb.update_table(TableName=TABLE, VectorIndexUpdates=[{"Create": index_spec("one")}])
    with pytest.raises(ClientError) as exc:
        ddb.update_table(
            TableName=TABLE, VectorIndexUpdates=[{"Create": index_spec("two", attr="e2")}]
        )
    assert error(exc)[0] == "LimitExceededException"


def test_provisioned_table_retrofit_rejected(ddb: Any) -> None:
    create_table(
        ddb,
        BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
    )
    with pytest.raises(ClientError) as exc:
        ddb.update_table(TableName=TABLE, VectorIndexUpdates=[{"Create": index_spec()}])
    assert error(exc)[0] == "ValidationException"


def test_existing_index_is_immutable(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec()])
    with pytest.raises(ClientError) as exc:
        ddb.update_table(TableName=TABLE, VectorIndexUpdates=[{"Create": index_spec(dims=8)}])
    assert error(exc)[0] == "ValidationException"
    assert vector_indexes(ddb)[0]["Dimensions"] == 4


def test_delete_reports_deleting(emu: Any, ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec()])
    emu.settings.index_deletion_delay = 60.0
    ddb.update_table(TableName=TABLE, VectorIndexUpdates=[{"Delete": {"IndexName": INDEX}}])
    assert vector_indexes(ddb)[0]["IndexStatus"] == "DELETING"
    with pytest.raises(ClientError):
        search(ddb, [1, 0, 0, 0])


def test_deleted_index_disappears(emu: Any, ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec()])
    put(ddb, "a", "1", [1, 0, 0, 0])
    emu.settings.index_deletion_delay = 0.2
    ddb.update_table(TableName=TABLE, VectorIndexUpdates=[{"Delete": {"IndexName": INDEX}}])
    wait_for(lambda: vector_indexes(ddb) == [])
    put(ddb, "a", "2", [1, 0])  # the vector attribute is free again: any length is accepted
    item = ddb.get_item(TableName=TABLE, Key={"PK": {"S": "a"}, "SK": {"S": "2"}})["Item"]
    assert item["embedding"] == vec([1, 0])


def test_delete_unknown_index(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec()])
    with pytest.raises(ClientError) as exc:
        ddb.update_table(TableName=TABLE, VectorIndexUpdates=[{"Delete": {"IndexName": "nope"}}])
    assert error(exc)[0] == "ResourceNotFoundException"
