"""The ledger: one row per memory formed from a thread (its namespace and key), in the
thread's ledger partition, written with the window's recorded steps before the memory and
only while the run holds the thread's cursor, each transaction with the tenant's index row
naming the partition (so a purge finds it whatever became of the thread's cursors). It is
how a thread's memories are found to forget them, and how a purge finds the memories of a
tenant's threads wherever their templates put them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from langgraph.store.dynamodb.extraction.engine.cursor import Cursor, Cursors, under_lease
from langgraph.store.dynamodb.extraction.engine.keys import (
    ledger_index_key,
    ledger_key,
    ledger_pk,
)
from langgraph.store.dynamodb.table import dynamo
from langgraph.store.dynamodb.table.extraction_rows import ledger_index_of
from langgraph.store.dynamodb.table.keys import (
    Namespace,
    decode_namespace,
    encode_namespace,
)
from langgraph.store.dynamodb.table.schema import MEMORY_KEY, MEMORY_NAMESPACE, PK, SK

# A TransactWriteItems holds at most 100 actions: the cursor's check or update, the ledger
# index row, the day's token count and 97 ledger rows.
PER_TRANSACTION = 97
Memory = tuple[Namespace, str]


class Ledger:
    """The ledger rows of one table."""

    def __init__(self, client: Any, table: str) -> None:
        self._client = client
        self._table = table
        self._cursors = Cursors(client, table)

    def record(
        self,
        cursor: Cursor,
        owner: str,
        memories: Sequence[Memory],
        pending: str,
        also: Sequence[Any] = (),
    ) -> Cursor:
        """Write the ledger rows of `memories` and record the window `pending` on the
        cursor, while `owner` holds it unmoved (`Cursors.stage`), each transaction with the
        ledger index row, the last with the actions `also` (at most one); the cursor as
        recorded. Rows past one transaction's room go first, under the lease."""
        index = {
            "Put": {
                "TableName": self._table,
                "Item": dynamo.serialize(ledger_index_key(cursor.tenant, cursor.thread_id)),
            }
        }
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
            chunk = [index, *puts[:PER_TRANSACTION]]
            under_lease(self._client, self._table, cursor, owner, chunk)
            puts = puts[PER_TRANSACTION:]
        return self._cursors.stage(cursor, owner, pending, [index, *puts, *also])

    def memories(self, tenant: str, thread_id: str) -> Iterator[tuple[dict[str, str], Memory]]:
        """Each ledger row's key and the memory it names."""
        for row in self._rows(tenant, thread_id):
            yield (
                {PK: row[PK], SK: row[SK]},
                (decode_namespace(row[MEMORY_NAMESPACE]), row[MEMORY_KEY]),
            )

    def forget(self, keys: Sequence[dict[str, str]]) -> None:
        """Delete ledger rows (a thread's, all of them), then the index rows naming their
        partitions."""
        indexes = {
            (index[PK], index[SK]): index for index in (ledger_index_of(k[PK]) for k in keys)
        }
        for batch in (keys, list(indexes.values())):
            requests = [{"DeleteRequest": {"Key": key}} for key in batch]
            dynamo.batch_write(self._client, self._table, requests)

    def _rows(self, tenant: str, thread_id: str) -> Iterator[dict[str, Any]]:
        return dynamo.query(
            self._client,
            TableName=self._table,
            KeyConditionExpression="#pk = :pk",
            ExpressionAttributeNames={"#pk": PK},
            ExpressionAttributeValues={":pk": {"S": ledger_pk(tenant, thread_id)}},
            ConsistentRead=True,
        )
