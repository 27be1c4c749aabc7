"""Where extraction keeps a tenant's rows, and the row sources erasing them: here, below
the saver and the purge, so every purge of a tenant's threads erases what extraction kept
for it (`checkpoint.dynamodb.erasure.tenant_sources`) without importing extraction.

A tenant's rows (`row_kinds`): its extraction partition `.x/<tenant>` (cursors, daily
token counts, the ledger index, anything extraction adds there: erased whole), its ledger
partitions `.x/<tenant>/<thread_id>`, found through the ledger index rows and the cursors
(so a thread whose cursor a late run deleted is found too), the memories its ledger rows
name wherever their templates put them, and its override in `._meta`.

Sources come in this order: the cursors, the memories, the ledger, the rest of the
partition, the override. The cursors go first, once the runs holding one when they were
read have had their lease (a run ends within it: the extraction Lambda's timeout is the
lease; the purge waits at most `lease_seconds`, and only when a run holds a lease). A run
in flight then has written what it recorded, or died; either way its ledger rows name its
memories. Every later record of a run is conditional on its cursor, so once the cursors
are gone no run adds a ledger row; a run that starts meanwhile finds no thread (the
threads go before the cursors, `tenant_sources`). The rest goes in reverse order of
finding, so a purge killed at any point finds the rest when run again (and waits again
for the leases, which are on the cursors): the ledger names the memories, the
partition's index rows the ledgers."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from langgraph.store.dynamodb.table import clock, dynamo
from langgraph.store.dynamodb.table.keys import Namespace, item_sort_key
from langgraph.store.dynamodb.table.row_kinds import (
    EXTRACTED_MEMORIES,
    EXTRACTION_LEDGER,
    EXTRACTION_OVERRIDES,
    EXTRACTION_STATE,
)
from langgraph.store.dynamodb.table.row_sources import RowSource
from langgraph.store.dynamodb.table.schema import (
    CURSOR,
    EXTRACTION_CONFIG,
    EXTRACTION_KIND,
    EXTRACTION_TENANT,
    LEASE_UNTIL,
    LEDGER_INDEX,
    MEMORY_KEY,
    MEMORY_NAMESPACE,
    META_PK,
    PK,
    SK,
    THREAD_ID,
)
from langgraph.store.dynamodb.table.thread_keys import escape_tenant

Key = dict[str, str]
logger = logging.getLogger(__name__)


def tenant_pk(tenant: str) -> str:
    """The partition of a tenant's cursors, daily token counts and ledger index."""
    return EXTRACTION_KIND + escape_tenant(tenant)


def ledger_pk(tenant: str, thread_id: str) -> str:
    """The partition listing the memories formed from one thread."""
    return f"{tenant_pk(tenant)}/{thread_id}"


def ledger_index_key(tenant: str, thread_id: str) -> Key:
    """The row naming one thread's ledger partition in the tenant's partition."""
    return {PK: tenant_pk(tenant), SK: LEDGER_INDEX + thread_id}


def ledger_index_of(ledger: str) -> Key:
    """The index row naming ledger partition `ledger` (the escaped tenant holds no `/`)."""
    tenant, thread_id = ledger[len(EXTRACTION_KIND) :].split("/", 1)
    return {PK: EXTRACTION_KIND + tenant, SK: LEDGER_INDEX + thread_id}


def config_key(tenant: str | None) -> Key:
    """The table's extraction config (None) or a tenant's override."""
    suffix = "" if tenant is None else EXTRACTION_TENANT + tenant
    return {PK: META_PK, SK: EXTRACTION_CONFIG + suffix}


def extraction_sources(client: Any, table: str, tenant: str) -> list[RowSource]:
    """The row sources erasing every row extraction keeps for `tenant` (module docstring).
    A ledger partition found once stays listed for the purge's verification."""
    partition = tenant_pk(tenant)
    seen: dict[str, None] = {}
    waited: list[float] = []  # once: the verification counts the cursors again

    def rows(pk: str, projection: str = f"{PK}, {SK}") -> Iterator[dict[str, Any]]:
        return dynamo.query(
            client,
            TableName=table,
            KeyConditionExpression=f"{PK} = :pk",
            ExpressionAttributeValues={":pk": {"S": pk}},
            ProjectionExpression=projection,
            ConsistentRead=True,
        )

    def read_partition() -> dict[tuple[str, str], float]:
        """Read the tenant's partition afresh: each ledger partition it names joins
        `seen`; its cursors' keys, each with when its lease ends (0: not leased)."""
        cursors = {}
        for row in rows(partition, f"{PK}, {SK}, {THREAD_ID}, {LEASE_UNTIL}"):
            sk = str(row[SK])
            if sk.startswith(LEDGER_INDEX):
                seen.setdefault(ledger_pk(tenant, sk[len(LEDGER_INDEX) :]))
            elif sk.startswith(CURSOR):
                cursors[(str(row[PK]), sk)] = float(row.get(LEASE_UNTIL, 0))
                if THREAD_ID in row:
                    seen.setdefault(ledger_pk(tenant, str(row[THREAD_ID])))
        return cursors

    def ledgers() -> list[str]:
        """Every ledger partition found so far, the partition read afresh."""
        read_partition()
        return list(seen)

    def cursors(_: Namespace) -> Iterator[Key]:
        """The cursors, once every run holding one when they were read has had its lease
        (module docstring)."""
        found = read_partition()
        wait = max(found.values(), default=0.0) - clock.now()
        if wait > 0 and not waited:
            waited.append(wait)
            logger.info("Purge of tenant %r waits %.0f s for its runs in flight", tenant, wait)
            clock.sleep(wait)
        yield from ({PK: pk, SK: sk} for pk, sk in found)

    def memories(_: Namespace) -> Iterator[Key]:
        named: dict[tuple[str, str], None] = {}  # several threads' ledgers name one memory
        for pk in ledgers():
            for row in rows(pk, f"{MEMORY_NAMESPACE}, {MEMORY_KEY}"):
                named.setdefault((str(row[MEMORY_NAMESPACE]), str(row[MEMORY_KEY])))
        for namespace, key in named:
            yield {PK: namespace, SK: item_sort_key(key)}

    def ledger(_: Namespace) -> Iterator[Key]:
        for pk in ledgers():
            yield from ({PK: str(row[PK]), SK: str(row[SK])} for row in rows(pk))

    def state(_: Namespace) -> Iterator[Key]:
        yield from ({PK: str(row[PK]), SK: str(row[SK])} for row in rows(partition))

    def settings(_: Namespace) -> Iterator[Key]:
        key = config_key(tenant)
        found = dynamo.batch_get(client, table, [key], consistent=True)
        yield from ({PK: str(row[PK]), SK: str(row[SK])} for row in found)

    return [
        RowSource(EXTRACTION_STATE, cursors),
        RowSource(EXTRACTED_MEMORIES, memories),
        RowSource(EXTRACTION_LEDGER, ledger, lambda pk: pk.startswith(partition + "/")),
        RowSource(EXTRACTION_STATE, state, lambda pk: pk == partition),
        RowSource(EXTRACTION_OVERRIDES, settings),
    ]
