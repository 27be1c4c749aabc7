"""The ledger: one row per memory formed from a thread (its namespace and key), in the
thread's ledger partition, written with the window's recorded steps before the memory and
only while the run holds the thread's cursor. It is how a thread's memories are found to
forget them, and how a purge finds the memories of a tenant's threads wherever their
templates put them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from langgraph.store.dynamodb.extraction.engine.cursor import Cursor, Cursors, under_lease
from langgraph.store.dynamodb.extraction.engine.keys import ledger_key, ledger_pk
from langgraph.store.dynamodb.items.vector_rows import current_rows
from langgraph.store.dynamodb.table import dynamo
from langgraph.store.dynamodb.table.keys import (
    Namespace,
    decode_namespace,
    encode_namespace,
    item_sort_key,
)
from langgraph.store.dynamodb.table.schema import MEMORY_KEY, MEMORY_NAMESPACE, PK, SK

# A TransactWriteItems holds at most 100 actions: the cursor's check and 99 ledger rows.
PER_TRANSACTION = 99
Memory = tuple[Namespace, str]


class Ledger:
    """The ledger rows of one table."""

    def __init__(self, client: Any, table: str) -> None:
        self._client = client
        self._table = table
        self._cursors = Cursors(client, table)

    def record(
        self, cursor: Cursor, owner: str, memories: Sequence[Memory], pending: str
    ) -> Cursor:
        """Write the ledger rows of `memories` and record the window `pending` on the
        cursor, while `owner` holds it unmoved (`Cursors.stage`); the cursor as recorded.
        Rows past one transaction's room go first, under the lease."""
        puts = [
            {"Put": {"TableName": self._table, "Item": dynamo.serialize(row)}}
            for row in (
                {
                    **ledger_key(cursor.tenant, cursor.thread_id, cursor.strategy, key),
                    MEMORY_NAMESPACE: encode_namespace(namespace),
                    MEMORY_KEY: key,
                }
                for namespace, key in memories
            )
        ]
        while len(puts) > PER_TRANSACTION:
            under_lease(self._client, self._table, cursor, owner, puts[:PER_TRANSACTION])
            puts = puts[PER_TRANSACTION:]
        return self._cursors.stage(cursor, owner, pending, puts)

    def memories(self, tenant: str, thread_id: str) -> Iterator[tuple[dict[str, str], Memory]]:
        """Each ledger row's key and the memory it names."""
        for row in self._rows(tenant, thread_id):
            yield (
                {PK: row[PK], SK: row[SK]},
                (decode_namespace(row[MEMORY_NAMESPACE]), row[MEMORY_KEY]),
            )

    def memory_rows(self, memories: Sequence[Memory]) -> list[dict[str, str]]:
        """The keys of the rows holding `memories`: item rows and their extra vector rows."""
        named = dict.fromkeys(memories)  # several threads' ledgers name one memory
        keys = [{PK: encode_namespace(ns), SK: item_sort_key(key)} for ns, key in named]
        found = dynamo.batch_get(self._client, self._table, keys, consistent=True)
        return keys + [extra for item in found for extra in current_rows(item)]

    def forget(self, keys: Sequence[dict[str, str]]) -> None:
        """Delete ledger rows."""
        dynamo.batch_write(self._client, self._table, [{"DeleteRequest": {"Key": k}} for k in keys])

    def _rows(self, tenant: str, thread_id: str) -> Iterator[dict[str, Any]]:
        return dynamo.query(
            self._client,
            TableName=self._table,
            KeyConditionExpression="#pk = :pk",
            ExpressionAttributeNames={"#pk": PK},
            ExpressionAttributeValues={":pk": {"S": ledger_pk(tenant, thread_id)}},
            ConsistentRead=True,
        )
