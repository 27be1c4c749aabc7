"""SearchVectors conformance: scores, ordering, conditions, projection, errors (both modes)."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from .conftest import INDEX, TABLE, create_table, index_spec, keys, put, qvec, search


def error(exc: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    err = exc.value.response["Error"]
    return err["Code"], err["Message"]


@pytest.mark.parametrize(
    ("distance", "expected"), [("COSINE", 0.0), ("EUCLIDEAN", 9.0), ("DOT_PRODUCT", 10.0)]
)
def test_facts_sheet_example(ddb: Any, distance: str, expected: float) -> None:
    create_table(ddb, indexes=[index_spec(distance=distance)])
    put(ddb, "a", "x", [10, 0, 0, 0])
    result = search(ddb, [1, 0, 0, 0])
    assert result["SearchResults"][0]["Score"] == pytest.approx(expected, abs=1e-6)


def test_cosine_orders_most_similar_first(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec()])
    put(ddb, "a", "opposite", [-1, 0, 0, 0])
    put(ddb, "a", "same", [2, 0, 0, 0])
    put(ddb, "a", "orthogonal", [0, 1, 0, 0])
    put(ddb, "a", "close", [1, 0.1, 0, 0])
    result = search(ddb, [1, 0, 0, 0])
    assert keys(result) == ["same", "close", "orthogonal", "opposite"]
    scores = [r["Score"] for r in result["SearchResults"]]
    assert scores[0] == pytest.approx(0.0, abs=1e-6)
    assert scores[2] == pytest.approx(1.0, abs=1e-6)
    assert scores[3] == pytest.approx(2.0, abs=1e-6)


def test_euclidean_lower_first(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec(distance="EUCLIDEAN")])
    put(ddb, "a", "far", [0, 0, 0, 5])
    put(ddb, "a", "near", [1, 1, 0, 0])
    result = search(ddb, [1, 0, 0, 0])
    assert keys(result) == ["near", "far"]
    assert result["SearchResults"][0]["Score"] == pytest.approx(1.0)
    assert result["SearchResults"][1]["Score"] == pytest.approx(26**0.5, rel=1e-6)


def test_dot_product_higher_first_and_negative(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec(distance="DOT_PRODUCT")])
    put(ddb, "a", "neg", [-3, 0, 0, 0])
    put(ddb, "a", "pos", [0.5, 0, 0, 0])
    put(ddb, "a", "big", [4, 0, 0, 0])
    result = search(ddb, [1, 0, 0, 0])
    assert keys(result) == ["big", "pos", "neg"]
    assert [r["Score"] for r in result["SearchResults"]] == pytest.approx([4.0, 0.5, -3.0])


def test_hash_condition_scopes_to_one_partition(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec()])
    put(ddb, "a", "1", [1, 0, 0, 0])
    put(ddb, "b", "2", [1, 0, 0, 0])
    assert keys(search(ddb, [1, 0, 0, 0], pk="a")) == ["1"]
    assert keys(search(ddb, [1, 0, 0, 0], pk="b")) == ["2"]
    assert keys(search(ddb, [1, 0, 0, 0], pk="c")) == []


def test_top_k_limits_results(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec(distance="EUCLIDEAN")])
    for i in range(10):
        put(ddb, "a", f"{i:02d}", [float(i), 0, 0, 0])
    assert keys(search(ddb, [0, 0, 0, 0], top_k=3)) == ["00", "01", "02"]


@pytest.mark.parametrize("top_k", [101, 1000])
def test_top_k_above_100_rejected(ddb: Any, top_k: int) -> None:
    create_table(ddb, indexes=[index_spec()])
    with pytest.raises(ClientError) as exc:
        search(ddb, [1, 0, 0, 0], top_k=top_k)
    assert error(exc) == (
        "ValidationException",
        f"Provided TopK value '{top_k}' is out of valid range. The value must be between 1 "
        "and 100 inclusive",
    )


def test_top_k_100_accepted(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec()])
    put(ddb, "a", "1", [1, 0, 0, 0])
    assert keys(search(ddb, [1, 0, 0, 0], top_k=100)) == ["1"]


def test_hash_condition_mandatory(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec()])
    with pytest.raises(ClientError) as exc:
        search(ddb, [1, 0, 0, 0], pk=None)
    assert error(exc) == (
        "ValidationException",
        "SearchConditionExpression must be provided when SearchSchema has a HASH key",
    )


def test_index_without_search_schema_searches_whole_table(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec(schema=[])])
    put(ddb, "a", "1", [1, 0, 0, 0])
    put(ddb, "b", "2", [0, 1, 0, 0])
    assert keys(search(ddb, [1, 0, 0, 0], pk=None)) == ["1", "2"]


@pytest.mark.parametrize(
    "expression",
    [
        "#pk > :pk",
        "#pk <> :pk",
        "#pk = :pk OR #pk = :pk",
        "begins_with(#pk, :pk)",
        "#pk BETWEEN :pk AND :pk",
        "#pk IN (:pk)",
        "NOT #pk = :pk",
        "#pk <= :pk",
    ],
)
def test_non_equality_comparators_rejected(ddb: Any, expression: str) -> None:
    create_table(ddb, indexes=[index_spec()])
    with pytest.raises(ClientError) as exc:
        search(ddb, [1, 0, 0, 0], SearchConditionExpression=expression)
    assert error(exc) == (
        "ValidationException",
        "Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression",
    )


def test_query_vector_dimension_checked(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec()])
    with pytest.raises(ClientError) as exc:
        search(ddb, [1, 0, 0])
    assert error(exc) == (
        "ValidationException",
        "Input search vector dimension 3 does not match vector index dimension 4",
    )


def test_unknown_index(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec()])
    with pytest.raises(ClientError) as exc:
        search(ddb, [1, 0, 0, 0], IndexName="nope")
    assert error(exc) == (
        "ValidationException",
        "The table does not have the specified index: nope",
    )


def test_unknown_table(ddb: Any) -> None:
    with pytest.raises(ClientError) as exc:
        search(ddb, [1, 0, 0, 0])
    assert error(exc)[0] == "ResourceNotFoundException"


def test_consumed_capacity_has_1kb_minimum(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec()])
    result = search(ddb, [1, 0, 0, 0], ReturnConsumedCapacity="TOTAL")
    assert result["ConsumedCapacity"]["VectorSearchRequestBytes"] >= 1024
    assert "ConsumedCapacity" not in search(ddb, [1, 0, 0, 0])


def test_table_arn_accepted(ddb: Any) -> None:
    created = create_table(ddb, indexes=[index_spec()])
    put(ddb, "a", "1", [1, 0, 0, 0])
    arn = created["TableDescription"]["TableArn"]
    assert keys(search(ddb, [1, 0, 0, 0], TableName=arn)) == ["1"]


def test_query_and_scan_on_vector_index_rejected(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec()])
    with pytest.raises(ClientError) as exc:
        ddb.query(
            TableName=TABLE,
            IndexName=INDEX,
            KeyConditionExpression="PK = :p",
            ExpressionAttributeValues={":p": {"S": "a"}},
        )
    assert error(exc) == (
        "ValidationException",
        "Query operation not supported on this index type.",
    )
    with pytest.raises(ClientError) as exc:
        ddb.scan(TableName=TABLE, IndexName=INDEX)
    assert error(exc) == (
        "ValidationException",
        "Query operation not supported on this index type.",
    )


def test_search_vector_of_non_numbers_rejected(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec()])
    with pytest.raises(ClientError) as exc:
        ddb.search_vectors(
            TableName=TABLE,
            IndexName=INDEX,
            SearchVector=[{"S": "x"}, *qvec([0, 0, 0])],
            TopK=1,
            SearchConditionExpression="PK = :p",
            ExpressionAttributeValues={":p": {"S": "a"}},
        )
    assert error(exc)[0] == "ValidationException"
