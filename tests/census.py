"""The census: every row of the emulated table, read by one Scan, sorted into the rows of
a purge's scope (a tenant's memories under a prefix, a tenant's threads) and the rest,
without any registry or row source: the purge's own reading is what it checks.

`Census.agrees(result)` holds when the purge's report counts exactly the rows the census
finds in its scope, kind by kind; `rows_left == 0` is then the truth. A purge's own resume
marker is bookkeeping, not the tenant's data, so the census leaves it out; the model pin
is the table's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from langgraph.store.dynamodb.jobs.purge import PurgeResult
from langgraph.store.dynamodb.table.schema import (
    CHECKPOINT,
    EXTRACTION_CONFIG,
    EXTRACTION_KIND,
    EXTRACTION_TENANT,
    GROUPS_PK,
    ITEM_PREFIX,
    META_PK,
    PIN_PREFIX,
    PK,
    PURGE_PREFIX,
    REGISTRY_PREFIX,
    REINDEX_PREFIX,
    RUN_KIND,
    SK,
    THREAD_KIND,
    VECTOR_ROW_PREFIX,
)
from langgraph.store.dynamodb.table.thread_keys import escape_tenant

from tests.support import scan_table

EVERY = "every tenant"  # `threads=EVERY`: the threads of every tenant and of none


@dataclass(frozen=True)
class Scope:
    """What a purge erases: the memories at or below `prefix` (None: none; `()`: every
    tenant, and then every row of the table), and the threads of each tenant in `threads`
    (`""`: the savers without a tenant key; `EVERY`: all) with what extraction kept for
    them: its partitions, its override, and the memories it formed in the namespaces
    `formed` (outside the prefix; their registry and group rows too)."""

    prefix: tuple[str, ...] | None = None
    threads: tuple[str, ...] = ()
    formed: tuple[tuple[str, ...], ...] = ()

    def kind_of(self, pk: str, sk: str) -> str | None:
        """The kind of a row in scope (the purge's report's name for it), None outside."""
        if pk == META_PK and sk.startswith((PIN_PREFIX, PURGE_PREFIX)):
            return None
        tenants = self._thread_kind(pk) or self._extraction_kind(pk, sk) or self._formed(pk, sk)
        if tenants is not None:
            return tenants
        if self.prefix is None:
            return None
        label = "".join(part + "." for part in self.prefix)
        if not pk.startswith("."):
            if not (pk + ".").startswith(label):
                return None
            if sk.startswith(ITEM_PREFIX):
                return "items"
            return "vector_rows" if sk.startswith(VECTOR_ROW_PREFIX) else "other_rows"
        if pk.startswith(REGISTRY_PREFIX) and sk.startswith(label):
            return "registry_rows"
        if pk == GROUPS_PK and sk.startswith(label):
            return "group_rows"
        if pk == META_PK and sk.startswith(REINDEX_PREFIX) and label in sk:
            return "reindex_checkpoints"
        return "other_rows" if self.prefix == () else None

    def _extraction_kind(self, pk: str, sk: str) -> str | None:
        for tenant in (tenant for tenant in self.threads if tenant != EVERY):
            partition = EXTRACTION_KIND + escape_tenant(tenant)
            if pk == partition:
                return "extraction_cursors"
            if pk.startswith(partition + "/"):
                return "extraction_ledger"
            if pk == META_PK and sk == EXTRACTION_CONFIG + EXTRACTION_TENANT + tenant:
                return "extraction_overrides"
        return None

    def _formed(self, pk: str, sk: str) -> str | None:
        for namespace in self.formed:
            label = "".join(part + "." for part in namespace)
            if (pk + ".") == label:
                return "extracted_memories" if sk.startswith(ITEM_PREFIX) else "vector_rows"
            if pk.startswith(REGISTRY_PREFIX) and sk == label:
                return "registry_rows"
            if pk == GROUPS_PK and label.startswith(sk):
                return "group_rows"
        return None

    def _thread_kind(self, pk: str) -> str | None:
        for tenant in self.threads:
            if tenant == EVERY:
                if pk.startswith(RUN_KIND):
                    return "thread_run_index"
                if pk.startswith(THREAD_KIND):
                    inside = "/" in pk[len(THREAD_KIND) :]
                    return "thread_rows" if inside else "thread_registry"
                continue
            registry = THREAD_KIND + escape_tenant(tenant)
            if pk.startswith(f"{RUN_KIND}{escape_tenant(tenant)}/"):
                return "thread_run_index"
            if pk == registry:
                return "thread_registry"
            if pk.startswith(registry + "/"):
                return "thread_rows"
        return None


@dataclass(frozen=True)
class Census:
    """The rows of a scope found by a Scan: their keys by kind."""

    rows: dict[tuple[str, str], str]

    @property
    def total(self) -> int:
        return len(self.rows)

    def by_kind(self) -> dict[str, int]:
        return dict(Counter(self.rows.values()))

    def texts(self) -> list[tuple[str, str]]:
        """The keys of the thread checkpoints left (rows that may hold a user's message)."""
        return sorted(key for key in self.rows if key[1].startswith(CHECKPOINT))

    def agrees(self, result: PurgeResult) -> bool:
        """Whether the purge's report counts exactly these rows, kind by kind."""
        reported = {kind: n for kind, n in result.verification.rows.items() if n}
        return reported == self.by_kind() and result.rows_left == self.total

    def explain(self, result: PurgeResult) -> str:
        """Both sides, for a failing assertion."""
        keys = [(pk[:60], sk[:60]) for pk, sk in sorted(self.rows)[:10]]
        return (
            f"purge reported {dict(result.verification.rows)} (rows_left={result.rows_left}); "
            f"the census found {self.by_kind()}: {keys}"
        )


def take(client: Any, table: str, scope: Scope) -> Census:
    """Every row of `scope` in the table, by one Scan."""
    return census_of(scan_table(client, table), scope)


def census_of(rows: Iterable[dict[str, Any]], scope: Scope) -> Census:
    """The census of rows already read (wire format)."""
    found: dict[tuple[str, str], str] = {}
    for row in rows:
        pk, sk = row[PK]["S"], row[SK]["S"]
        kind = scope.kind_of(pk, sk)
        if kind is not None:
            found[(pk, sk)] = kind
    return Census(found)


def check(client: Any, table: str, scope: Scope, result: PurgeResult) -> Census:
    """Take the census and assert it agrees with the purge's report."""
    census = take(client, table, scope)
    assert census.agrees(result), census.explain(result)
    return census


def outside(rows: Iterable[dict[str, Any]], scope: Scope) -> list[dict[str, Any]]:
    """The rows (wire format) a purge of `scope` must leave exactly as they were: those
    out of scope, its own resume marker aside."""
    return [
        row
        for row in rows
        if scope.kind_of(row[PK]["S"], row[SK]["S"]) is None
        and not (row[PK]["S"] == META_PK and row[SK]["S"].startswith(PURGE_PREFIX))
    ]
