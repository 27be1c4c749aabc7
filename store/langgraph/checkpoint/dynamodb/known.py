"""What one saver knows of the rows a put does not rewrite each time, so that a put stays
one single-item write while every row the new checkpoint needs outlives it.

A put writes the checkpoint row (values inline) and nothing else when the saver knows
that the thread's registry row, the run's index row and the value rows the checkpoint
refers to all live at least until the new checkpoint expires. It knows a row's expiry
from having written or read it. Rows a put (re)writes for that reason expire `MARGIN`
TTLs after it, so a busy thread rewrites them about once per TTL, not on every put.

A thread's TTL lives on its rows: a saver that has read or written a thread writes its
later checkpoints with that thread's TTL (`ttl_minutes` of the rows it read), whatever
its own `ttl` says; its own applies to the threads it starts or never read.

The registry row is trusted for `TRUST_SECONDS` at most, so a process writing to a thread
whose registry another process deleted (a purge) registers it again within that time (a
`put_writes` too, when it does not trust the registry row), and a purge lists again a
thread it finds holding rows after it deleted the registry row (`erasure`).
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from langgraph.store.dynamodb.table import clock
from langgraph.store.dynamodb.table.row_kinds import TRUST_SECONDS as LISTING_TRUST_SECONDS
from langgraph.store.dynamodb.table.schema import COUNT, EXPIRES_AT, PK, SK, TTL_MINUTES, TYPE
from langgraph.store.dynamodb.table.thread_keys import Thread, registry_pk

# Rows kept alive for the checkpoints of a thread expire this many TTLs after written.
MARGIN = 2
# How long a saver trusts a registry row it wrote or read to still exist: the table's
# rule for listings (`row_kinds`), which a purge waits out.
TRUST_SECONDS = LISTING_TRUST_SECONDS
# Knowledge is dropped (and rebuilt by the next reads and writes) past this many rows.
MAX_KNOWN = 50_000
NEVER = math.inf
Key = tuple[str, str]


def row_key(row: dict[str, Any]) -> Key:
    """A row's key as this module keys what it knows."""
    return (str(row[PK]), str(row[SK]))


def expiry_of(row: dict[str, Any]) -> float:
    """A row's expiry in epoch seconds (`NEVER` for a row that never expires)."""
    expires = row.get(EXPIRES_AT)
    return NEVER if expires is None else float(expires)


@dataclass
class Known:
    """Row expiries, thread TTLs and chunk counts one saver learned (thread-safe)."""

    _until: dict[Key, tuple[float, float]] = field(default_factory=dict)
    _ttl: dict[str, float | None] = field(default_factory=dict)
    _chunks: dict[Key, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def thread_ttl(self, pk: str, default: float | None) -> float | None:
        """The TTL (minutes) the thread's rows carry, as last read or written; `default`
        for a thread this saver has not seen."""
        with self._lock:
            return self._ttl.get(pk, default)

    def learn_ttl(self, pk: str, minutes: float | None) -> None:
        with self._lock:
            self._trim()
            self._ttl[pk] = minutes

    def learn(self, row: dict[str, Any]) -> None:
        """Remember a row read or written now: its expiry, and its chunk count."""
        key = row_key(row)
        with self._lock:
            self._trim()
            self._until[key] = (expiry_of(row), clock.monotonic())
            if TYPE in row:
                self._chunks[key] = int(row.get(COUNT, 0))

    def outlives(self, key: Key, until: float, trust: float | None = None) -> bool:
        """Whether the row is known to live until `until` (learned at most `trust`
        seconds ago, when given)."""
        with self._lock:
            known = self._until.get(key)
        if known is None:
            return False
        expires, learned = known
        fresh = trust is None or clock.monotonic() - learned <= trust
        return fresh and expires >= until

    def chunks(self, key: Key) -> int | None:
        """The chunk count of a value row read or written (None when unknown)."""
        with self._lock:
            return self._chunks.get(key)

    def forget(self, thread: Thread) -> None:
        """Forget every row of the thread's partition, and its registry row (the thread
        was deleted or pruned, here or under this saver)."""
        registry = (registry_pk(thread.tenant), thread.thread_id)
        with self._lock:
            for table in (self._until, self._chunks):
                for key in [k for k in table if k[0] == thread.pk or k == registry]:
                    del table[key]

    def _trim(self) -> None:
        if len(self._until) + len(self._ttl) > MAX_KNOWN:
            self._until.clear()
            self._chunks.clear()
            self._ttl.clear()


def margin_ttl(minutes: float | None, now: float) -> dict[str, Any]:
    """TTL attributes for a row kept alive for a thread's checkpoints: `MARGIN` TTLs from
    now, keeping `ttl_minutes` the thread's own (none when the thread never expires)."""
    if minutes is None:
        return {}
    return {
        EXPIRES_AT: math.ceil(now + MARGIN * minutes * 60),
        TTL_MINUTES: Decimal(str(minutes)),
    }
