"""A worker process for the concurrency workload: random puts, overwrites and deletes of
shared keys through the local endpoint, each logged with when it started and returned."""

from __future__ import annotations

import random
import time
from typing import Any

from langgraph.store.base import PutOp
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.testing import LexicalEmbeddings

DIMS = 16
FIELDS = ["text", "notes[*]"]
TABLE = "memory"
NAMESPACES = [("t1", "u1"), ("t1", "u2"), ("t2", "u1")]
KEYS = ["a", "b", "c"]

# (namespace, key, state: the value's id or None for a delete, started, returned)
Write = tuple[tuple[str, ...], str, str | None, float, float]


def make_store(url: str) -> DynamoDBStore:
    return DynamoDBStore(
        TABLE,
        region_name="us-east-1",
        endpoint_url=url,
        index={"dims": DIMS, "embed": LexicalEmbeddings(dims=DIMS), "fields": FIELDS},
    )


def work(url: str, worker: int, operations: int, seed: int) -> list[Write]:
    """Run `operations` writes; returns the log of those that returned (a write that
    raised is not expected here: there are no faults)."""
    store = make_store(url)
    rng = random.Random(seed * 1000 + worker)
    log: list[Write] = []
    for serial in range(operations):
        namespace, key = rng.choice(NAMESPACES), rng.choice(KEYS)
        ident = f"w{worker}-{serial}"
        roll = rng.random()
        started = time.time()
        if roll < 0.55:
            notes = [f"{ident} note {n}" for n in range(rng.randint(0, 2))]
            store.put(namespace, key, {"id": ident, "text": f"{ident} text", "notes": notes})
            log.append((namespace, key, ident, started, time.time()))
        elif roll < 0.8:
            store.delete(namespace, key)
            log.append((namespace, key, None, started, time.time()))
        else:
            # Empty a whole namespace in one batch.
            store.batch([PutOp(namespace, k, None) for k in KEYS])
            ended = time.time()
            log.extend((namespace, k, None, started, ended) for k in KEYS)
    return log


def allowed_final(writes: list[Write]) -> set[str | None]:
    """The states a key may end in under last-writer-wins: those of the writes that no
    other write certainly followed (no other write started after it returned)."""
    if not writes:
        return {None}
    latest_start = max(w[3] for w in writes)
    return {w[2] for w in writes if w[4] >= latest_start}


def run_worker(args: tuple[str, int, int, int]) -> list[Any]:
    return work(*args)
