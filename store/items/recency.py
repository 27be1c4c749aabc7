"""The recency index: a local secondary index that keeps each namespace's items newest first.

Its sort key is `recency` (`<updated_at>#<key>`, see `keys.recency_sort_key`), which only
item rows carry, so extra vector rows and registry rows stay out of it (a sparse index).
It projects `schema.ITEM_ATTRIBUTES`, so a page of items is one strongly consistent Query
that reads `offset + limit` index entries and never the vectors on the item rows.

A local secondary index exists only if created with the table, and it caps every
partition key value (every namespace) at 10 GB of table rows plus index entries; see
`README.md` for what that holds and `migration.copy_table` for tables created without it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from botocore.exceptions import ClientError
from langgraph.store.dynamodb.table import dynamo
from langgraph.store.dynamodb.table.keys import Namespace, encode_namespace
from langgraph.store.dynamodb.table.schema import ITEM_ATTRIBUTES, PK, RECENCY, RECENCY_INDEX


def index_spec() -> dict[str, Any]:
    """The `LocalSecondaryIndexes` entry CreateTable needs."""
    return {
        "IndexName": RECENCY_INDEX,
        "KeySchema": [
            {"AttributeName": PK, "KeyType": "HASH"},
            {"AttributeName": RECENCY, "KeyType": "RANGE"},
        ],
        "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": list(ITEM_ATTRIBUTES)},
    }


def missing_index_message(table: str) -> str:
    """What to do about a table created without the recency index."""
    return (
        f"Table {table} has no local secondary index {RECENCY_INDEX!r} with sort key "
        f"{RECENCY!r} projecting {list(ITEM_ATTRIBUTES)}, which DynamoDBStore needs to "
        "return search results newest first. DynamoDB creates local secondary indexes only "
        "with the table, so setup() cannot add it: create a new table with setup() under "
        "another name, copy the memories with langgraph.store.dynamodb.jobs.migration."
        "copy_table(client, source, target) (stop writers first), and point the store at "
        "the new table."
    )


def check_table(table: str, description: dict[str, Any]) -> None:
    """Raise `ValueError` unless the table has the recency index as this store needs it."""
    for index in description.get("LocalSecondaryIndexes") or []:
        if index["IndexName"] != RECENCY_INDEX:
            continue
        keys = {k["AttributeName"]: k["KeyType"] for k in index["KeySchema"]}
        projection = index.get("Projection", {})
        projected = set(projection.get("NonKeyAttributes") or [])
        if keys == {PK: "HASH", RECENCY: "RANGE"} and (
            projection.get("ProjectionType") == "ALL" or projected >= set(ITEM_ATTRIBUTES)
        ):
            return
    raise ValueError(missing_index_message(table))


class Newest:
    """The item rows of one namespace, newest first, read from the recency index in pages
    that start at `page` entries and double (so an unfiltered page of results reads each
    namespace once, and a filtered one still reaches every match)."""

    def __init__(
        self, client: Any, table: str, namespace: Namespace, *, consistent: bool, page: int
    ) -> None:
        self.namespace = namespace
        self._client = client
        self._table = table
        self._kwargs: dict[str, Any] = {
            "TableName": table,
            "IndexName": RECENCY_INDEX,
            "KeyConditionExpression": f"{PK} = :pk",
            "ExpressionAttributeValues": {":pk": {"S": encode_namespace(namespace)}},
            "ScanIndexForward": False,
            "ConsistentRead": consistent,
        }
        self._page = max(1, page)
        self._buffer: list[dict[str, Any]] | None = None
        self._last: dict[str, Any] | None = None

    def prime(self) -> Newest:
        """Read the first page (callers do this for many namespaces concurrently)."""
        if self._buffer is None:
            self._buffer = self._fetch()
        return self

    def __iter__(self) -> Iterator[dict[str, Any]]:
        yield from self.prime()._buffer or []
        while self._last is not None:
            self._page *= 2
            yield from self._fetch()

    def _fetch(self) -> list[dict[str, Any]]:
        kwargs = {**self._kwargs, "Limit": self._page}
        if self._last is not None:
            kwargs["ExclusiveStartKey"] = self._last
        try:
            response = self._client.query(**kwargs)
        except ClientError as error:
            code = error.response["Error"]["Code"]
            if code == "ValidationException" and RECENCY_INDEX in str(error):
                raise ValueError(missing_index_message(self._table)) from error
            raise
        self._last = response.get("LastEvaluatedKey")
        return [dynamo.deserialize(item) for item in response.get("Items", [])]
