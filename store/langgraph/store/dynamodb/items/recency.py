"""The recency index: a local secondary index that keeps each namespace's items newest first.

Its sort key is `recency` (`<updated_at>#<key>`, see `keys.recency_sort_key`), which only
item rows carry, so extra vector rows and registry rows stay out of it (a sparse index).
It projects `schema.ITEM_ATTRIBUTES` (`table_spec.recency_index_spec`), so a page of items
is one strongly consistent Query that reads `offset + limit` index entries and never the
vectors on the item rows.

A local secondary index exists only if created with the table, and it caps every
partition key value (every namespace) at 10 GB of table rows plus index entries; see
`README.md` for what that holds and `migration.copy_table` for tables created without it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from botocore.exceptions import ClientError
from langgraph.store.dynamodb.table import dynamo
from langgraph.store.dynamodb.table.creation import missing_recency_index
from langgraph.store.dynamodb.table.keys import Namespace, encode_namespace
from langgraph.store.dynamodb.table.schema import PK, RECENCY, RECENCY_INDEX


class Newest:
    """The item rows of one namespace, newest first, read from the recency index in pages
    that start at `page` entries and double (so an unfiltered page of results reads each
    namespace once, and a filtered one still reaches every match); with `since` (a stamp,
    `rows.stamp_of`), only the rows updated at or after it."""

    def __init__(
        self,
        client: Any,
        table: str,
        namespace: Namespace,
        *,
        consistent: bool,
        page: int,
        since: str | None = None,
    ) -> None:
        self.namespace = namespace
        self._client = client
        self._table = table
        condition = f"{PK} = :pk"
        values = {":pk": {"S": encode_namespace(namespace)}}
        if since is not None:
            condition += f" AND {RECENCY} >= :since"
            values[":since"] = {"S": since}
        self._kwargs: dict[str, Any] = {
            "TableName": table,
            "IndexName": RECENCY_INDEX,
            "KeyConditionExpression": condition,
            "ExpressionAttributeValues": values,
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
                raise ValueError(missing_recency_index(self._table)) from error
            raise
        self._last = response.get("LastEvaluatedKey")
        return [dynamo.deserialize(item) for item in response.get("Items", [])]
