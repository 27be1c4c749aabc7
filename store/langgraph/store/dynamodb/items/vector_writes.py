"""Write the vectors embedded in the background under the content-hash rule.

Shared by the stream consumer and reindex, which embed with `embedders.batch`. Each item's
vector write is conditional: on the content hash that was embedded (the consumer) or on
the value being unchanged since it was read (reindex). A newer put always wins, a deleted
item is never resurrected, and the same write clears the pending marker. Extra vector rows
(items with several texts) follow the rules of `vector_rows`: keyed by the write that made
them, written before the item points at them, and the rows the item pointed at before
deleted by the writer that replaced them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from botocore.exceptions import ClientError
from langgraph.store.dynamodb.embedders.batch import EmbedJob
from langgraph.store.dynamodb.items import vector_rows
from langgraph.store.dynamodb.items.embedding import new_vector_version, to_attribute
from langgraph.store.dynamodb.table import clock, dynamo
from langgraph.store.dynamodb.table.errors import raise_if_collection_full
from langgraph.store.dynamodb.table.keys import decode_namespace
from langgraph.store.dynamodb.table.schema import (
    CONTENT_HASH,
    PENDING,
    PK,
    SK,
    UPDATED_AT,
    VECTOR,
    VECTOR_COUNT,
    VECTOR_VERSION,
)


class VectorWriter:
    """Writes embedded vectors to one table under the content-hash rule."""

    def __init__(self, client: Any, table: str) -> None:
        self._client = client
        self._table = table

    def write(self, job: EmbedJob, vectors: Sequence[Sequence[float]]) -> bool:
        """Write the extra rows, then the item's vector 0 (clearing its pending marker) and
        delete the extra rows it replaced; False when the item changed or vanished since
        (the rows just written are deleted again). A namespace the vectors would grow past
        DynamoDB's item-collection limit raises `NamespaceFullError`."""
        try:
            return self._write(job, vectors)
        except ClientError as error:
            raise_if_collection_full(error, [decode_namespace(job.pk)])
            raise

    def _write(self, job: EmbedJob, vectors: Sequence[Sequence[float]]) -> bool:
        version = new_vector_version() if len(vectors) > 1 else None
        mine = (
            vector_rows.extra_rows(
                job.pk,
                job.sk,
                version,
                [to_attribute(vector) for vector in vectors[1:]],
                job.carried,
                clock.now(),
            )
            if version
            else []
        )
        dynamo.batch_write(self._client, self._table, [{"PutRequest": {"Item": r}} for r in mine])
        old = self._update_item(job, vectors, version)
        if old is None:
            dynamo.batch_write(
                self._client,
                self._table,
                vector_rows.deletes({PK: r[PK], SK: r[SK]} for r in mine),
            )
            return False
        if vector_rows.carried(old) != dict(job.carried):
            # The item changed filters or expiry (a TTL refresh) since the job was read.
            current = {**old, VECTOR_VERSION: version, VECTOR_COUNT: len(vectors)}
            vector_rows.follow(self._client, self._table, current, job.carried)
        replaced = vector_rows.current_rows(old)
        if replaced and old.get(VECTOR_VERSION) != version:
            dynamo.batch_write(self._client, self._table, vector_rows.deletes(replaced))
        return True

    def _update_item(
        self, job: EmbedJob, vectors: Sequence[Sequence[float]], version: str | None
    ) -> dict[str, Any] | None:
        """Point the item at the new vectors; the item as it was before (the extra rows it
        pointed at, its current filters and expiry), or None when the condition failed."""
        names = {
            "#v": VECTOR,
            "#n": VECTOR_COUNT,
            "#p": PENDING,
            "#h": CONTENT_HASH,
            "#ver": VECTOR_VERSION,
        }
        values: dict[str, Any] = {
            ":v": to_attribute(vectors[0]),
            ":n": len(vectors),
            ":h": job.digest,
        }
        sets = "#v = :v, #n = :n"
        removes = "#p"
        if version is None:
            removes += ", #ver"
        else:
            sets += ", #ver = :ver"
            values[":ver"] = version
        if job.updated_at is None:
            condition = "#h = :h"
        else:
            sets += ", #h = :h"
            condition = "#u = :u"
            names["#u"] = UPDATED_AT
            values[":u"] = job.updated_at
        try:
            response = self._client.update_item(
                TableName=self._table,
                Key=dynamo.serialize({PK: job.pk, SK: job.sk}),
                UpdateExpression=f"SET {sets} REMOVE {removes}",
                ConditionExpression=condition,
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=dynamo.serialize(values),
                ReturnValues="ALL_OLD",
            )
        except ClientError as error:
            if error.response["Error"]["Code"] == "ConditionalCheckFailedException":
                return None
            raise
        return dynamo.deserialize(response.get("Attributes", {}))
