"""INLINE_FILTER conditions and projection rules (both modes)."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from .conftest import create_table, index_spec, keys, put, search

SCHEMA = [
    {"AttributeName": "PK", "SearchSchemaElementType": "HASH"},
    {"AttributeName": "kind", "SearchSchemaElementType": "INLINE_FILTER"},
    {"AttributeName": "lang", "SearchSchemaElementType": "INLINE_FILTER"},
]


def filtered(ddb: Any, expr: str, values: dict[str, Any], **kw: Any) -> list[str]:
    return keys(
        search(
            ddb,
            [1, 0, 0, 0],
            SearchConditionExpression=expr,
            ExpressionAttributeNames={"#pk": "PK"},
            ExpressionAttributeValues={":pk": {"S": "a"}, **values},
            **kw,
        )
    )


def test_inline_filters_joined_by_and(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec(schema=SCHEMA)], extra_attrs=["kind", "lang"])
    put(ddb, "a", "1", [1, 0, 0, 0], kind="fact", lang="en")
    put(ddb, "a", "2", [1, 0.1, 0, 0], kind="fact", lang="de")
    put(ddb, "a", "3", [1, 0.2, 0, 0], kind="note", lang="en")
    put(ddb, "a", "4", [1, 0.3, 0, 0])  # no filter attributes: indexed, never matches a filter
    assert filtered(ddb, "#pk = :pk AND kind = :k", {":k": {"S": "fact"}}) == ["1", "2"]
    assert filtered(
        ddb, "#pk = :pk AND kind = :k AND lang = :l", {":k": {"S": "fact"}, ":l": {"S": "en"}}
    ) == ["1"]
    assert filtered(ddb, "(#pk = :pk) and (:l = lang)", {":l": {"S": "en"}}) == ["1", "3"]
    assert filtered(ddb, "#pk = :pk", {}) == ["1", "2", "3", "4"]


def test_condition_on_attribute_outside_schema_rejected(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec(schema=SCHEMA)], extra_attrs=["kind", "lang"])
    with pytest.raises(ClientError) as exc:
        filtered(ddb, "#pk = :pk AND other = :o", {":o": {"S": "x"}})
    assert exc.value.response["Error"]["Code"] == "ValidationException"


def test_undefined_placeholders_rejected(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec()])
    with pytest.raises(ClientError) as exc:
        search(ddb, [1, 0, 0, 0], SearchConditionExpression="#pk = :missing")
    assert "attribute value used in expression is not defined" in str(exc.value)
    with pytest.raises(ClientError) as exc:
        search(ddb, [1, 0, 0, 0], SearchConditionExpression="#nope = :pk")
    assert "attribute name used in the document path is not defined" in str(exc.value)


def test_vector_attribute_omitted_unless_projected(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec()])
    put(ddb, "a", "1", [1, 0, 0, 0], text="hello")
    (hit,) = search(ddb, [1, 0, 0, 0])["SearchResults"]
    assert hit["Item"] == {"PK": {"S": "a"}, "SK": {"S": "1"}, "text": {"S": "hello"}}
    (hit,) = search(ddb, [1, 0, 0, 0], ProjectionExpression="SK, embedding")["SearchResults"]
    assert set(hit["Item"]) == {"SK", "embedding"}
    assert [float(x["N"]) for x in hit["Item"]["embedding"]["L"]] == [1.0, 0.0, 0.0, 0.0]


def test_projection_expression_with_names(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec()])
    put(ddb, "a", "1", [1, 0, 0, 0], text="hello", other="x")
    (hit,) = search(
        ddb,
        [1, 0, 0, 0],
        ProjectionExpression="#t",
        ExpressionAttributeNames={"#pk": "PK", "#t": "text"},
    )["SearchResults"]
    assert hit["Item"] == {"text": {"S": "hello"}}


def test_keys_only_projection(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec(projection={"ProjectionType": "KEYS_ONLY"})])
    put(ddb, "a", "1", [1, 0, 0, 0], text="hello")
    (hit,) = search(ddb, [1, 0, 0, 0])["SearchResults"]
    assert hit["Item"] == {"PK": {"S": "a"}, "SK": {"S": "1"}}
    (hit,) = search(
        ddb,
        [1, 0, 0, 0],
        ProjectionExpression="SK, #t",
        ExpressionAttributeNames={"#pk": "PK", "#t": "text"},
    )["SearchResults"]
    assert hit["Item"] == {"SK": {"S": "1"}}  # not projected into the index: silently absent


def test_include_projection(ddb: Any) -> None:
    projection = {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["text"]}
    create_table(ddb, indexes=[index_spec(projection=projection)])
    put(ddb, "a", "1", [1, 0, 0, 0], text="hello", secret="s")
    (hit,) = search(ddb, [1, 0, 0, 0])["SearchResults"]
    assert hit["Item"] == {"PK": {"S": "a"}, "SK": {"S": "1"}, "text": {"S": "hello"}}


def test_unused_expression_values_rejected(ddb: Any) -> None:
    create_table(ddb, indexes=[index_spec()])
    with pytest.raises(ClientError) as exc:
        search(
            ddb,
            [1, 0, 0, 0],
            ExpressionAttributeValues={":pk": {"S": "a"}, ":unused": {"S": "x"}},
        )
    assert "unused in expressions" in str(exc.value)
