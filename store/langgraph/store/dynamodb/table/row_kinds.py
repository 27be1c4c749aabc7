"""Every kind of row on the table, declared once, with who writes it and how a tenant's
purge erases it: the one list the purge's report, its census and the tests read, so a row
kind added to `schema` without an erasure fails `tests/purge/test_row_kinds.py`.

A kind is a partition (a `schema` constant: the partition itself, or the start of every
partition of the kind) and a sort-key prefix (`""`: every row of such a partition, so a
new sort-key prefix there is covered without a new entry). `erased_as` names the purge
report's kind that counts it: `NAMESPACE` kinds go with a prefix's namespaces
(`jobs.purge`), `TENANT` kinds with the tenant's threads and extraction
(`checkpoint.dynamodb.erasure.tenant_sources`: the saver's and extraction's sources
together), `TABLE` kinds are the table's own and stay (a wipe of every tenant aside).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from langgraph.store.dynamodb.table.schema import (
    BLOB,
    CHECKPOINT,
    CHUNK,
    CURSOR,
    DAY,
    EXTRACTION_CONFIG,
    EXTRACTION_KIND,
    EXTRACTION_TENANT,
    GROUPS_PK,
    ITEM_PREFIX,
    LEDGER,
    LEDGER_INDEX,
    LEGACY_REGISTRY_PK,
    META_PK,
    PIN_PREFIX,
    PURGE_PREFIX,
    REGISTRY_PREFIX,
    REINDEX_PREFIX,
    RUN_KIND,
    RUN_LINK,
    THREAD_KIND,
    VECTOR_ROW_PREFIX,
    WRITES_SUFFIX,
)


class Scope(Enum):
    """Whose a row is: a namespace's (erased with a prefix), a tenant's (erased with its
    threads and extraction), or the table's."""

    NAMESPACE = 1
    TENANT = 2
    TABLE = 3


# The purge report's kinds.
ITEMS = "items"
VECTOR_ROWS = "vector_rows"
REGISTRY_ROWS = "registry_rows"
GROUP_ROWS = "group_rows"
# Reindex resume markers: the kind keeps the name results and the CLI have reported.
REINDEX_MARKERS = "reindex_checkpoints"
RUN_INDEX_ROWS = "thread_run_index"
THREAD_ROWS = "thread_rows"
THREAD_REGISTRY = "thread_registry"
EXTRACTED_MEMORIES = "extracted_memories"
EXTRACTION_LEDGER = "extraction_ledger"
# The tenant's extraction partition: cursors, daily token counts, the ledger index, and
# whatever else extraction keeps there.
EXTRACTION_STATE = "extraction_cursors"
EXTRACTION_OVERRIDES = "extraction_overrides"


X_TENANT = EXTRACTION_KIND + "<tenant>"


# How long a process trusts a listing row (`RowKind.trusted`) it wrote or read without
# writing it again: the store's namespace registry rows (`items.registry`), the saver's
# thread registry rows (`checkpoint.dynamodb.known`). A purge that deleted one waits this
# long, so no writer still trusts it, before its last count (`jobs.purge`).
TRUST_SECONDS = 300.0


@dataclass(frozen=True)
class RowKind:
    """One kind of row: its owner, partition, sort-key prefix, scope and report kind;
    `trusted` when it is a listing its writers trust for `TRUST_SECONDS`."""

    owner: str
    partition: str
    sort: str
    scope: Scope
    erased_as: str | None
    what: str
    trusted: bool = False


ROW_KINDS: tuple[RowKind, ...] = (
    RowKind("store", "<namespace>", ITEM_PREFIX, Scope.NAMESPACE, ITEMS, "an item"),
    RowKind(
        "store", "<namespace>", VECTOR_ROW_PREFIX, Scope.NAMESPACE, VECTOR_ROWS, "vectors 1..n-1"
    ),
    RowKind(
        "store",
        REGISTRY_PREFIX,
        "",
        Scope.NAMESPACE,
        REGISTRY_ROWS,
        "a namespace's entry",
        trusted=True,
    ),
    RowKind("store", GROUPS_PK, "", Scope.NAMESPACE, GROUP_ROWS, "a group's entry"),
    RowKind(
        "store",
        LEGACY_REGISTRY_PK,
        "",
        Scope.TABLE,
        None,
        "the registry of earlier versions, read only by `migration`",
    ),
    RowKind("store", META_PK, PIN_PREFIX, Scope.TABLE, None, "the embedding model's pin"),
    RowKind("jobs", META_PK, PURGE_PREFIX, Scope.TABLE, None, "a purge's resume marker"),
    RowKind(
        "jobs", META_PK, REINDEX_PREFIX, Scope.NAMESPACE, REINDEX_MARKERS, "a reindex's marker"
    ),
    RowKind(
        "saver", THREAD_KIND + "<tenant>/", CHECKPOINT, Scope.TENANT, THREAD_ROWS, "a checkpoint"
    ),
    RowKind(
        "saver",
        THREAD_KIND + "<tenant>/",
        CHECKPOINT + "<ns>#<id>" + WRITES_SUFFIX,
        Scope.TENANT,
        THREAD_ROWS,
        "a checkpoint's pending writes",
    ),
    RowKind("saver", THREAD_KIND + "<tenant>/", BLOB, Scope.TENANT, THREAD_ROWS, "a channel value"),
    RowKind("saver", THREAD_KIND + "<tenant>/", CHUNK, Scope.TENANT, THREAD_ROWS, "a chunk"),
    RowKind("saver", THREAD_KIND + "<tenant>/", RUN_LINK, Scope.TENANT, THREAD_ROWS, "a run link"),
    RowKind(
        "saver",
        THREAD_KIND + "<tenant>",
        "",
        Scope.TENANT,
        THREAD_REGISTRY,
        "a thread's entry",
        trusted=True,
    ),
    RowKind("saver", RUN_KIND + "<tenant>/", "", Scope.TENANT, RUN_INDEX_ROWS, "a run's threads"),
    *(
        RowKind("extraction", X_TENANT, sort, Scope.TENANT, EXTRACTION_STATE, what)
        for sort, what in (
            (CURSOR, "a strategy's cursor on a thread"),
            (DAY, "a daily token count"),
            (LEDGER_INDEX, "a thread whose ledger partition holds rows"),
            ("", "anything else extraction keeps for the tenant: the partition goes whole"),
        )
    ),
    RowKind(
        "extraction",
        EXTRACTION_KIND + "<tenant>/",
        LEDGER,
        Scope.TENANT,
        EXTRACTION_LEDGER,
        "a memory formed from a thread",
    ),
    RowKind(
        "extraction",
        "<namespace>",
        ITEM_PREFIX,
        Scope.TENANT,
        EXTRACTED_MEMORIES,
        "a memory a ledger row names, wherever its template put it",
    ),
    RowKind("extraction", META_PK, EXTRACTION_CONFIG, Scope.TABLE, None, "the table's config"),
    RowKind(
        "extraction",
        META_PK,
        EXTRACTION_CONFIG + EXTRACTION_TENANT,
        Scope.TENANT,
        EXTRACTION_OVERRIDES,
        "a tenant's override",
    ),
)


def erased_kinds(*scopes: Scope) -> list[str]:
    """The report kinds erasing the row kinds of `scopes`, in declaration order."""
    return list(
        dict.fromkeys(
            kind.erased_as
            for kind in ROW_KINDS
            if kind.scope in scopes and kind.erased_as is not None
        )
    )


def trusted_kinds() -> set[str]:
    """The report kinds of the listings writers trust (`TRUST_SECONDS`)."""
    return {kind.erased_as for kind in ROW_KINDS if kind.trusted and kind.erased_as}
