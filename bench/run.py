"""Measure the workloads and the scale curves on ours and both peers; write the results.

    python -m bench [--out bench/results] [--tenants 1 2 4] [--repeats 5] ...

Tables are filled with no latency injected (`bench.fill`); latency is injected only while
an operation is measured (`bench.instrument`). Each operation runs once to warm up (a
long-lived agent process), then `--repeats` times.
"""

from __future__ import annotations

import argparse
import gc
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings
from langgraph.store.base import BaseStore, PutOp
from langgraph.store.dynamodb.stream.consumer import FILTER_PATTERN
from langgraph.store.dynamodb.testing import drain_stream, mock_aws
from langgraph.store.memory import InMemoryStore

from . import fill, report
from . import workloads as w
from .instrument import Latency, Meter, Sample
from .results import Plan, Result
from .stores import KINDS, OURS, TTL, embedder, index, stream_store

NOT_SUPPORTED = "not supported"
MAIN, TTL_TARGET, CURVES = "main", "ttl", "curves"


class Bench:
    """The stores, the reference, the meter, and the results gathered so far."""

    def __init__(self, plan: Plan, meter: Meter, embeddings: Embeddings) -> None:
        self.plan = plan
        self.meter = meter
        self.embeddings = embeddings
        # per target table ("main", the same with a TTL config, "curves"): each store, or
        # why that store has none
        self.targets: dict[str, dict[str, BaseStore | str]] = {MAIN: {}, TTL_TARGET: {}, CURVES: {}}
        self.tables: dict[str, dict[str, str]] = {MAIN: {}, CURVES: {}}
        self.results: dict[str, dict[str, Result]] = {}
        self.curves: dict[str, dict[str, dict[str, list[tuple[int, Result]]]]] = {}
        self.notes: list[str] = []
        self.filled = 0  # tenants in every main table
        for kind in KINDS:
            for target, table, ttl in (
                (MAIN, kind.table, None),
                (TTL_TARGET, kind.table, TTL),
                (CURVES, kind.table + "-curves", None),
            ):
                try:
                    self.targets[target][kind.name] = kind.make(table, embeddings, ttl)
                    self.tables.setdefault(target, {})[kind.name] = table
                except NotImplementedError as error:
                    self.targets[target][kind.name] = str(error)
        self.reference = InMemoryStore(index=index(_Cached(embeddings)))  # type: ignore[arg-type]

    @property
    def stores(self) -> dict[str, BaseStore]:
        """Each store on its main table."""
        return {n: s for n, s in self.targets[MAIN].items() if isinstance(s, BaseStore)}

    # filling

    def fill(self, tenants: int) -> None:
        """Bring every main table (and the reference) to `tenants` tenants; the first call
        also fills the curve tables and writes the TTL items."""
        if not self.filled:
            for name, store in self.stores.items():
                started = time.perf_counter()
                self._fill_main(store, self.tables[MAIN][name], self.targets[TTL_TARGET][name])
                curves = self.targets[CURVES][name]
                assert isinstance(curves, BaseStore)
                self._fill_curves(curves, self.tables[CURVES][name])
                print(f"  filled {name} in {time.perf_counter() - started:.1f} s")
            self._fill_reference_base()
            self.filled = 1
        for table in self.tables[MAIN].values():
            fill.replicate(table, {w.tenant(0): [w.tenant(t) for t in range(self.filled, tenants)]})
        for t in range(self.filled, tenants):
            for u in range(self.plan.users):
                namespace = ("memories", w.tenant(t), w.user(u))
                _write(self.reference, namespace, range(self.plan.items), index=u == 0)
        self.filled = max(self.filled, tenants)
        gc.collect()
        gc.freeze()

    def _fill_main(self, store: BaseStore, table: str, ttl_store: BaseStore | str) -> None:
        plan = self.plan
        _write(store, w.USER_NS, range(plan.items), index=False)
        fill.replicate(table, {w.user(0): [w.user(u) for u in range(1, plan.users)]})
        _write(store, w.USER_NS, range(plan.items))  # again, with vectors
        if isinstance(ttl_store, BaseStore):
            _write(ttl_store, w.TTL_NS, range(10))

    def _fill_curves(self, store: BaseStore, table: str) -> None:
        copies = {}
        for n in self.plan.items_per_namespace:
            store.put(w.sizes_ns(n), w.sizes_token(n), w.value(0))
            copies[w.sizes_token(n)] = [w.sizes_key(n, k) for k in range(1, n)]
        for n in self.plan.namespaces_per_prefix:
            _write(store, (*w.fan_prefix(n), w.fan_user(n, 0)), range(10))
            copies[w.fan_user(n, 0)] = [w.fan_user(n, u) for u in range(1, n)]
        fill.replicate(table, copies)

    def _fill_reference_base(self) -> None:
        ref, plan = self.reference, self.plan
        for u in range(plan.users):
            _write(ref, ("memories", w.tenant(0), w.user(u)), range(plan.items), index=u == 0)
        for n in self.plan.items_per_namespace:
            # no index: InMemoryStore fails on equal texts in one batch (langgraph 1.x)
            ref.batch(
                [PutOp(w.sizes_ns(n), w.sizes_key(n, k), w.value(0), False) for k in range(n)]
            )
        for n in self.plan.namespaces_per_prefix:
            for u in range(n):
                _write(ref, (*w.fan_prefix(n), w.fan_user(n, u)), range(10))
        _write(ref, w.TTL_NS, range(10))

    # measuring

    def measure(self, run: Callable[[int], Any], repeats: int) -> list[Sample]:
        """A warm-up run, then `repeats` measured runs, or fewer (at least one) once the
        measured runs took `plan.budget_s` of wall time."""
        run(-1)  # warm-up: caches a long-lived process would have
        samples: list[Sample] = []
        started = time.perf_counter()
        with self.meter.delays(self.plan.latency):
            for r in range(repeats):
                samples.append(self.meter.measure(lambda r=r: run(r)))  # type: ignore[misc]
                if time.perf_counter() - started > self.plan.budget_s:
                    break
        return samples

    def workloads(self) -> None:
        plan = self.plan
        fan = max(plan.namespaces_per_prefix)
        for workload in w.workloads(plan.users, plan.items, fan, plan.batch, plan.heavy_repeats):
            row = self.results.setdefault(workload.name, {})
            began = time.perf_counter()
            expected = workload.reference(self.reference) if workload.reference else None
            for name, store in self.targets[workload.on].items():
                if isinstance(store, str):
                    row[name] = Result(status=store)
                    continue
                row[name] = self._one(workload, store, expected)
            print(
                f"  {workload.name}: "
                + ", ".join(f"{n} {_brief(r)}" for n, r in row.items())
                + f" ({time.perf_counter() - began:.1f} s)"
            )

    def _one(self, workload: w.Workload, store: BaseStore, expected: Any) -> Result:
        try:
            samples = self.measure(
                lambda r: workload.run(store, r), workload.repeats or self.plan.repeats
            )
        except Exception as error:  # a peer that cannot do it: report, not crash
            return Result(status=f"fails: {type(error).__name__}: {str(error)[:80]}")
        result = Result.of(samples)
        if expected is not None and not workload.check(samples[-1].result, expected):
            result.status = "WRONG"
        return result

    def stream(self) -> None:
        """Stream-mode put and the stream consumer on `plan.batch`-record batches (ours
        only: the peers have no stream mode)."""
        size = self.plan.batch
        store, consumer = stream_store(self.embeddings)
        puts = self.measure(
            lambda r: store.put(w.USER_NS, f"stream-{r}", w.value(r)), self.plan.repeats
        )
        batches: list[Sample] = []

        def handler(event: dict[str, Any], context: Any) -> Any:
            sample = self.meter.measure(lambda: consumer.handle(event, context))
            batches.append(sample)
            return sample.result

        for r in range(self.plan.heavy_repeats):
            drain_stream(store.table_name, consumer.handle, filter_patterns=[FILTER_PATTERN])
            store.batch([PutOp(w.USER_NS, f"batch-{r}-{i}", w.value(i)) for i in range(size)])
            with self.meter.delays(self.plan.latency):
                drain_stream(
                    store.table_name, handler, batch_size=size, filter_patterns=[FILTER_PATTERN]
                )
        found = store.search(w.USER_NS, query=w.QUERY, limit=5)
        peers = {name: Result(status=NOT_SUPPORTED) for name in self.stores if name != OURS}
        self.results["put (stream mode)"] = {OURS: Result.of(puts), **peers}
        consumer_result = Result.of(batches)
        if not found:
            consumer_result.status = "WRONG"
        self.results[f"stream consumer, {size}-record batch"] = {OURS: consumer_result, **peers}

    def curve(
        self, curve: str, size: int, ops: dict[str, Callable[[BaseStore], Any]], target: str
    ) -> None:
        for op, call in ops.items():
            for name, store in self.targets[target].items():
                if isinstance(store, str):
                    continue
                began = time.perf_counter()
                try:
                    samples = self.measure(
                        lambda r, call=call, store=store: call(store),  # type: ignore[misc]
                        self.plan.curve_repeats,
                    )
                    result = Result.of(samples)
                except Exception as error:
                    result = Result(status=f"fails: {type(error).__name__}")
                self.curves.setdefault(curve, {}).setdefault(op, {}).setdefault(name, []).append(
                    (size, result)
                )
                print(f"    {op} {name}: {_brief(result)} ({time.perf_counter() - began:.1f} s)")


class _Cached(Embeddings):
    """The reference's embedder: the same model, each distinct text embedded once."""

    def __init__(self, inner: Embeddings) -> None:
        self.inner = inner
        self.seen: dict[str, list[float]] = {}

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self.seen]
        if missing:
            self.seen.update(zip(missing, self.inner.embed_documents(missing), strict=True))
        return [self.seen[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


def _write(store: BaseStore, namespace: tuple[str, ...], keys: range, index: bool = True) -> None:
    flag = None if index else False
    store.batch([PutOp(namespace, w.key(i), w.value(i), flag) for i in keys])


def _brief(result: Result) -> str:
    if result.status != "ok":
        return result.status[:40]
    return f"{result.latency_ms:.0f} ms/{result.usage.requests} req"


Ops = dict[str, Callable[[BaseStore], Any]]


def table_size_ops(users: int) -> Ops:
    """What the table-size curve measures (on the main tables, one tenant of `users`
    namespaces at a time is added)."""
    return {
        "get": lambda s: s.get(w.USER_NS, w.key(7)),
        "search one namespace": lambda s: s.search(w.USER_NS, limit=10),
        "semantic search one namespace": lambda s: s.search(w.USER_NS, query=w.QUERY, limit=5),
        f"list_namespaces under a {users}-ns prefix": lambda s: s.list_namespaces(
            prefix=w.PREFIX, limit=1000
        ),
    }


def namespace_ops(n: int) -> Ops:
    """What the items-per-namespace curve measures on a namespace of `n` items."""
    return {
        "search one namespace": lambda s: s.search(w.sizes_ns(n), limit=10),
        "semantic search one namespace": lambda s: s.search(w.sizes_ns(n), query=w.QUERY, limit=5),
    }


def prefix_ops(n: int) -> Ops:
    """What the namespaces-per-prefix curve measures under a prefix of `n` namespaces."""
    return {
        "prefix search": lambda s: s.search(w.fan_prefix(n), limit=10),
        "list_namespaces": lambda s: s.list_namespaces(prefix=w.fan_prefix(n), limit=1000),
        "semantic search under the prefix": lambda s: s.search(
            w.fan_prefix(n), query=w.QUERY, limit=5
        ),
    }


def run(plan: Plan, out: Path) -> Bench:
    """Everything `make bench` measures; writes `out`/README.md, results.json, PNGs."""
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    started = time.perf_counter()
    with mock_aws(), Meter() as meter:
        bench = Bench(plan, meter, embedder())
        for tenants in plan.tenants:
            bench.fill(tenants)
            size = fill.item_count(bench.tables[MAIN][OURS])
            print(f"total table size: {tenants} tenant(s), {size} rows in ours' table")
            items = tenants * plan.users * plan.items
            bench.curve("total table size (items)", items, table_size_ops(plan.users), MAIN)
        for curve, sizes, ops in (
            ("items per namespace", plan.items_per_namespace, namespace_ops),
            ("namespaces per prefix", plan.namespaces_per_prefix, prefix_ops),
        ):
            for n in sizes:
                print(f"{curve}: {n}")
                bench.curve(curve, n, ops(n), CURVES)
        print("workloads:")
        bench.workloads()
        bench.stream()
        rows = {target: fill.item_count(tables[OURS]) for target, tables in bench.tables.items()}
        bench.notes.append(
            f"Rows in ours' tables at the end: {rows['main']:,} in the main table (all "
            f"workloads but one), {rows['curves']:,} in the curves table (items-per-namespace "
            f"and namespaces-per-prefix curves, and the semantic search under a prefix). "
            f"The run took {time.perf_counter() - started:.0f} s."
        )
    report.write(bench, plan, out)
    return bench


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--tenants", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--users", type=int, default=50, help="namespaces per tenant")
    parser.add_argument("--items", type=int, default=100, help="items per namespace")
    parser.add_argument("--batch", type=int, default=100, help="ops per abatch and stream batch")
    parser.add_argument("--items-per-namespace", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--namespaces-per-prefix", type=int, nargs="+", default=[5, 20, 50])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--heavy-repeats", type=int, default=3)
    parser.add_argument("--curve-repeats", type=int, default=3)
    parser.add_argument("--budget", type=float, default=1.5, help="seconds of runs per operation")
    parser.add_argument("--dynamodb-ms", type=float, default=5.0)
    parser.add_argument("--embedding-ms", type=float, default=60.0)
    args = parser.parse_args(argv)
    plan = Plan(
        tenants=tuple(args.tenants),
        users=args.users,
        items=args.items,
        batch=args.batch,
        items_per_namespace=tuple(args.items_per_namespace),
        namespaces_per_prefix=tuple(args.namespaces_per_prefix),
        repeats=args.repeats,
        heavy_repeats=args.heavy_repeats,
        curve_repeats=args.curve_repeats,
        budget_s=args.budget,
        latency=Latency(args.dynamodb_ms, args.embedding_ms),
    )
    run(plan, args.out)
