"""What a tenant's threads store, without scanning the table: the thread registry names
the threads, and one `Select="COUNT"` Query per thread counts its rows (checkpoints,
channel values, chunks, pending writes) and, with a filter, its checkpoints. The bytes are
that Query's consumed capacity (eventually consistent: 0.5 unit per 4 KB evaluated,
rounded up per 1 MB page), as the store's `usage` reads them. Rows past their expiry that
DynamoDB has not swept yet are counted: they are still stored. The registry and run index
rows (one small row per thread and per checkpoint of a run) are left out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langgraph.store.dynamodb.table import dynamo
from langgraph.store.dynamodb.table.dynamo import BYTES_PER_EVENTUAL_UNIT, Counted
from langgraph.store.dynamodb.table.errors import table_must_exist
from langgraph.store.dynamodb.table.keys import encode_namespace
from langgraph.store.dynamodb.table.schema import CP, PK, SK
from langgraph.store.dynamodb.table.thread_keys import Thread, registry_pk
from langgraph.store.dynamodb.table.usage import THREADS


@dataclass(frozen=True)
class ThreadStorage:
    """One tenant's threads: how many, their checkpoints, rows and approximate bytes."""

    tenant: str
    threads: int
    checkpoints: int
    rows: int
    approx_bytes: int

    @property
    def label(self) -> str:
        """The tenant as usage records name it: `.threads.<tenant>`."""
        return encode_namespace((THREADS, self.tenant))


def thread_storage(client: Any, table: str, tenant: str) -> ThreadStorage:
    """What the threads of `tenant` (`""`: savers without a tenant key) store."""
    with table_must_exist(client, table):
        threads = [
            Thread(tenant, str(row[SK]))
            for row in dynamo.query(
                client,
                TableName=table,
                KeyConditionExpression="#pk = :pk",
                ExpressionAttributeNames={"#pk": PK, "#sk": SK},
                ExpressionAttributeValues={":pk": {"S": registry_pk(tenant)}},
                ProjectionExpression="#sk",
            )
        ]
        counts = dynamo.parallel_map(lambda thread: _count(client, table, thread), threads)
    return ThreadStorage(
        tenant=tenant,
        threads=len(threads),
        checkpoints=sum(c.matching for c in counts),
        rows=sum(c.rows for c in counts),
        approx_bytes=round(BYTES_PER_EVENTUAL_UNIT * sum(c.units for c in counts)),
    )


def _count(client: Any, table: str, thread: Thread) -> Counted:
    """The thread's rows, those that are checkpoints, and the read units that cost."""
    return dynamo.count(
        client,
        TableName=table,
        KeyConditionExpression="#pk = :pk",
        FilterExpression="attribute_exists(#cp)",
        ExpressionAttributeNames={"#pk": PK, "#cp": CP},
        ExpressionAttributeValues={":pk": {"S": thread.pk}},
    )
