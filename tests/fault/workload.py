"""A mixed workload against a shadow model, for runs with faults injected.

The model keeps, per key, the set of states the table may be in: one state after an
operation that returned, the old and the new state after one that raised (the caller saw
it fail; it may or may not have been applied). Reads are checked against the model as
they happen; `final_report` checks the table itself once the faults are off.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from langgraph.store.base import GetOp, PutOp
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.testing import LexicalEmbeddings

from tests.hardening.invariants import check_vectors, rows_of
from tests.support import FakeClock

DIMS = 16
FIELDS = ["text", "notes[*]"]
TABLE = "memory"
NAMESPACES = [("t1", "u1"), ("t1", "u2"), ("t1", "u2", "notes"), ("t2", "u1"), ("t3",)]
KEYS = [f"k{i}" for i in range(6)]
WORDS = [
    "apple",
    "banana",
    "cherry",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
]
DAY = 24 * 3600.0
# Long enough never to expire in a run, short enough that a few fake days make reads
# refresh it.
TTL_MINUTES = 100_000.0

Key = tuple[tuple[str, ...], str]
State = str | None  # the value's identity (its "id" field), or None when absent


def make_store(**kwargs: Any) -> DynamoDBStore:
    return DynamoDBStore(
        TABLE,
        region_name="us-east-1",
        index={"dims": DIMS, "embed": LexicalEmbeddings(dims=DIMS), "fields": FIELDS},
        ttl={"refresh_on_read": True},
        **kwargs,
    )


@dataclass
class Model:
    """What the table may hold, per key."""

    states: dict[Key, set[State]] = field(default_factory=dict)
    values: dict[str, dict[str, Any]] = field(default_factory=dict)
    created: dict[Key, datetime] = field(default_factory=dict)
    mismatches: list[str] = field(default_factory=list)

    def possible(self, key: Key) -> set[State]:
        return self.states.get(key, {None})

    def applied(self, key: Key, state: State, *, certain: bool) -> None:
        if certain:
            self.states[key] = {state}
        else:
            self.states[key] = self.possible(key) | {state}
        if state is None or not certain:
            self.created.pop(key, None)

    def observe(self, key: Key, state: State, created: datetime | None, where: str) -> None:
        """A read saw `state`: it must be possible; later reads are held to it."""
        if state not in self.possible(key):
            self.mismatches.append(f"{where}: {key} is {state}, expected {self.possible(key)}")
            return
        self.states[key] = {state}
        if state is None or created is None:
            self.created.pop(key, None)
        elif self.created.setdefault(key, created) != created:
            self.mismatches.append(f"{where}: {key} created_at changed while it existed")


@dataclass
class Stats:
    operations: int = 0
    raised: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)


class Workload:
    """Random puts, overwrites, deletes, batches, gets (with TTL refresh), searches and
    semantic searches over a few namespaces and keys, checked against a `Model`."""

    def __init__(self, store: DynamoDBStore, clock: FakeClock, seed: int) -> None:
        self.store = store
        self.clock = clock
        self.random = random.Random(seed)
        self.model = Model()
        self.stats = Stats()
        self._serial = 0

    def _value(self) -> dict[str, Any]:
        self._serial += 1
        ident = f"v{self._serial}"
        words = [f"{self.random.choice(WORDS)} {ident}" for _ in range(self.random.randint(1, 3))]
        value: dict[str, Any] = {"id": ident, "text": words[0]}
        if len(words) > 1:
            value["notes"] = words[1:]
        self.model.values[ident] = value
        return value

    def _key(self) -> Key:
        return self.random.choice(NAMESPACES), self.random.choice(KEYS)

    def run(self, operations: int) -> None:
        kinds = [
            (self._put, 30),
            (self._delete, 12),
            (self._batch, 15),
            (self._get, 20),
            (self._search, 10),
            (self._semantic, 10),
            (self._advance, 3),
        ]
        population = [kind for kind, weight in kinds for _ in range(weight)]
        for _ in range(operations):
            operation = self.random.choice(population)
            name = operation.__name__.strip("_")
            self.stats.operations += 1
            self.stats.by_kind[name] = self.stats.by_kind.get(name, 0) + 1
            try:
                operation()
            except Exception as error:
                self.stats.raised += 1
                self._failed(operation, error)

    # Each operation records what it is about to change in `self._pending` first, so
    # that when it raises the model marks exactly those keys uncertain.
    _pending: list[tuple[Key, State]]

    def _failed(self, operation: Any, error: Exception) -> None:
        del operation, error
        for key, state in self._pending:
            self.model.applied(key, state, certain=False)

    def _put(self) -> None:
        key, value = self._key(), self._value()
        ttl = TTL_MINUTES if self.random.random() < 0.3 else None
        self._pending = [(key, value["id"])]
        self.store.put(key[0], key[1], value, ttl=ttl)
        self.model.applied(key, value["id"], certain=True)

    def _delete(self) -> None:
        key = self._key()
        self._pending = [(key, None)]
        self.store.delete(*key)
        self.model.applied(key, None, certain=True)

    def _batch(self) -> None:
        ops: list[Any] = []
        final: dict[Key, State] = {}
        for _ in range(self.random.randint(2, 30)):
            key = self._key()
            if self.random.random() < 0.3:
                ops.append(PutOp(key[0], key[1], None))
                final[key] = None
            else:
                value = self._value()
                ops.append(PutOp(key[0], key[1], value))
                final[key] = value["id"]
        reads = [self._key() for _ in range(self.random.randint(0, 3))]
        ops += [GetOp(ns, k) for ns, k in reads]
        self._pending = list(final.items())
        results = self.store.batch(ops)
        # Reads in a batch see the state before its writes.
        for (ns, k), item in zip(reads, results[len(ops) - len(reads) :], strict=True):
            self._observe_item((ns, k), item, "batch get")
        for key, state in final.items():
            self.model.applied(key, state, certain=True)

    def _get(self) -> None:
        key = self._key()
        self._pending = []
        self._observe_item(key, self.store.get(*key, refresh_ttl=True), "get")

    def _observe_item(self, key: Key, item: Any, where: str) -> None:
        if item is None:
            self.model.observe(key, None, None, where)
        else:
            if item.value != self.model.values.get(item.value.get("id")):
                self.model.mismatches.append(f"{where}: {key} holds an unknown value")
            self.model.observe(key, item.value["id"], item.created_at, where)

    def _search(self) -> None:
        namespace = self.random.choice(NAMESPACES)
        self._pending = []
        found = self.store.search(namespace, limit=100)
        seen = {(item.namespace, item.key) for item in found}
        if len(seen) != len(found):
            self.model.mismatches.append(f"search {namespace}: duplicated results")
        for item in found:
            self._observe_item((item.namespace, item.key), item, "search")
        for key in list(self.model.states):
            under = key[0][: len(namespace)] == namespace
            if under and key not in seen:
                self.model.observe(key, None, None, f"search {namespace}")

    def _semantic(self) -> None:
        namespace = self.random.choice(NAMESPACES)
        present = [
            (key, state)
            for key, states in self.model.states.items()
            for state in states
            if state is not None and key[0] == namespace
        ]
        query = self.random.choice(WORDS)
        if present and self.random.random() < 0.7:
            _, state = self.random.choice(present)
            query = self.random.choice(self._texts(state))
        self._pending = []
        for item in self.store.search(namespace, query=query, limit=10):
            self._observe_item((item.namespace, item.key), item, "semantic search")

    def _texts(self, state: str) -> list[str]:
        value = self.model.values[state]
        return [value["text"], *value.get("notes", [])]

    def _advance(self) -> None:
        self._pending = []
        self.clock.advance(self.random.uniform(0.5, 3.0) * DAY)


@dataclass
class FinalReport:
    items: int
    mismatches: list[str]
    missing_vectors: list[str]
    stale_vectors: list[str]
    orphan_vector_rows: int
    registry: list[str]


def final_report(store: DynamoDBStore, model: Model) -> FinalReport:
    """Compare the table with the model (faults off): item rows, vectors, registry."""
    rows = rows_of(store.client, TABLE)
    items = {(tuple(r["PK"].split(".")), r["SK"][2:]): r for r in rows if r["SK"].startswith("k#")}
    mismatches = list(model.mismatches)
    for key in set(model.states) | set(items):
        row = items.get(key)
        state = None
        if row is not None:
            value = json.loads(row["value"])
            state = value.get("id")
            if value != model.values.get(state):
                mismatches.append(f"table: {key} holds an unknown value")
            if row["created_at"] > row["updated_at"]:
                mismatches.append(f"table: {key} created after it was updated")
            created = model.created.get(key)
            if created is not None and datetime.fromisoformat(row["created_at"]) != created:
                mismatches.append(f"table: {key} created_at not preserved")
        if state not in model.possible(key):
            mismatches.append(f"table: {key} is {state}, expected {model.possible(key)}")
    vectors = check_vectors(store.client, TABLE, LexicalEmbeddings(dims=DIMS), FIELDS)
    live = sorted({key[0] for key in items})
    registered = {tuple(r["SK"][:-1].split(".")) for r in rows if r["PK"].startswith("._ns.")}
    registry = [f"unregistered namespace {ns}" for ns in live if ns not in registered]
    listed = store.list_namespaces(limit=1000)
    if listed != live:
        registry.append(f"list_namespaces {listed} != namespaces holding items {live}")
    everything = store.search((), limit=1000)
    if sorted((i.namespace, i.key) for i in everything) != sorted(items):
        registry.append("search(()) does not return exactly the items in the table")
    return FinalReport(
        items=len(items),
        mismatches=mismatches,
        missing_vectors=vectors.missing,
        stale_vectors=vectors.stale,
        orphan_vector_rows=len(vectors.orphans),
        registry=registry,
    )
