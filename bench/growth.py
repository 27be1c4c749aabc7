"""Cost as the table grows (issue 25): a page of namespaces, put, get, search and the
`serve --state` snapshot at each size, on the local emulation.

Two curves, each grown in place by `bench.fill.replicate` from one template item written
through the store (namespace `("memories", "t00000", "u")`, semantic index of
`LexicalEmbeddings`, `DIMS` dimensions):

- tenants: 100, 1,000 and 10,000 tenants, one namespace `("memories", tenant, "u")` of
  one item each; grown twice, with plain items and with items that carry a TTL (the TTL
  run measures the listings only);
- rows: one namespace of 1,000, 30,000 and 100,000 items.

At each size, per operation: DynamoDB requests and items read, counted at botocore's
boundary (`bench.instrument.Meter`) on one run after a warm-up, and the emulation's wall
time (median of `--repeats` runs, fewer once they took `--budget` s; no latency model:
moto plus the client). Operations: a page of `list_namespaces(limit=10)` at the root and
under `("memories",)`; a put (of a new key), a get, a search without a query and a
semantic search in the newest tenant's namespace (tenants) or in the big one (rows).

Snapshot: `store.cli.state.save` (what `serve --state` runs at stop) times the save here;
`state.load` (what it runs at start) runs in a fresh process, which reports its load time
and its memory (VmRSS before and after, VmHWM: peak); the HTTP hop of `serve` is left
out. A snapshot of more than `--snapshot-rows` rows is not measured (minutes here): the
output says so, with the time projected from the largest measured one.

    python -m bench.growth [--tenants 100 1000 10000] [--rows 1000 30000 100000]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import count
from pathlib import Path
from typing import Any

import boto3
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.cli import state
from langgraph.store.dynamodb.testing import LexicalEmbeddings, mock_aws

from .fill import item_count, replicate
from .instrument import Meter
from .stores import FIELDS, REGION

RESULTS = Path(__file__).parent / "results"
TABLE = "growth"
DIMS = 16  # small vectors: the snapshot's load sizes every number
TENANT = "t00000"  # the template's tenant and key, replaced by copies of the same length
KEY = "k000000"
NAMESPACE = ("memories", TENANT, "u")
VALUE = {"text": "the user prefers short answers"}
QUERY = "short answers"
TTL_MINUTES = 60.0
PAGE = 10
LISTINGS = ("list_namespaces root", "list_namespaces ('memories',)")
OPS = (*LISTINGS, "put", "get", "search", "semantic search")
TTL_SUFFIX = ", TTL items"


@dataclass(frozen=True)
class Plan:
    tenants: tuple[int, ...] = (100, 1_000, 10_000)
    rows: tuple[int, ...] = (1_000, 30_000, 100_000)
    repeats: int = 3
    budget_s: float = 1.5  # an operation stops repeating once its timed runs took this
    snapshot_rows: int = 40_000


@dataclass
class Cost:
    """One operation at one size."""

    requests: int
    items_read: int
    ms: float  # median wall time on the emulation
    runs: int  # timed runs the median rests on


@dataclass
class Snapshot:
    """The `serve --state` snapshot at one size."""

    rows: int
    mb: float  # the file
    save_s: float
    save_peak_mb: float | None  # memory the save added to this process at its peak
    load_s: float
    base_mb: float  # RSS of the loading process before the load
    rss_mb: float  # ... after it
    peak_mb: float  # ... at its peak


@dataclass
class Point:
    size: int
    rows: int  # rows in the table: items, registry rows, group rows, the model pin
    ops: dict[str, Cost] = field(default_factory=dict)
    snapshot: Snapshot | None = None


Curves = dict[str, list[Point]]


def _memory_mb() -> tuple[float, float]:
    """This process's RSS now and at its peak (Linux /proc; elsewhere the peak twice)."""
    try:
        status = Path("/proc/self/status").read_text().splitlines()
    except OSError:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        peak_mb = peak / 2**20 if sys.platform == "darwin" else peak / 1024
        return peak_mb, peak_mb
    found = {
        line.split(":")[0]: int(line.split()[1]) / 1024 for line in status if line.startswith("Vm")
    }
    return found.get("VmRSS", 0.0), found.get("VmHWM", 0.0)


def _reset_peak() -> bool:
    """Reset this process's VmHWM to its current RSS (Linux); False where unsupported."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def _client(region: str) -> Any:
    return boto3.client("dynamodb", region_name=region)


def _store() -> DynamoDBStore:
    index = {"dims": DIMS, "embed": LexicalEmbeddings(dims=DIMS), "fields": FIELDS}
    store = DynamoDBStore(TABLE, region_name=REGION, index=index)
    store.setup()
    return store


def _cost(operation: Callable[[], object], plan: Plan) -> Cost:
    """Warm up, count one run's requests, then time up to `plan.repeats` runs without the
    meter (fewer, at least one, once they took `plan.budget_s`)."""
    operation()
    with Meter() as meter:
        usage = meter.measure(operation).usage
    times: list[float] = []
    while len(times) < plan.repeats and sum(times) < plan.budget_s * 1000:
        started = time.perf_counter()
        operation()
        times.append((time.perf_counter() - started) * 1000)
    return Cost(usage.requests, usage.items_read, statistics.median(times), len(times))


def _operations(
    store: DynamoDBStore, namespace: tuple[str, ...], fresh: Iterator[int], listings_only: bool
) -> dict[str, Callable[[], object]]:
    """The listings, and unless `listings_only` put (new keys from `fresh`), get, search
    and semantic search in `namespace`."""
    ops: dict[str, Callable[[], object]] = {
        LISTINGS[0]: lambda: store.list_namespaces(limit=PAGE),
        LISTINGS[1]: lambda: store.list_namespaces(prefix=("memories",), limit=PAGE),
    }
    if listings_only:
        return {name + TTL_SUFFIX: op for name, op in ops.items()}
    return {
        **ops,
        "put": lambda: store.put(namespace, f"new{next(fresh):06}", VALUE),
        "get": lambda: store.get(namespace, KEY),
        "search": lambda: store.search(namespace, limit=PAGE),
        "semantic search": lambda: store.search(namespace, query=QUERY, limit=PAGE),
    }


def _snapshot(path: Path) -> Snapshot:
    """Save the emulation here (timed, with the memory it adds), load it in a fresh
    process."""
    rss, _ = _memory_mb()
    tracked = _reset_peak()
    started = time.perf_counter()
    rows = state.save(_client, [REGION], path)
    save_s = time.perf_counter() - started
    save_peak = _memory_mb()[1] - rss if tracked else None
    child = subprocess.run(
        [sys.executable, "-m", "bench.growth", "--load", str(path)],
        cwd=Path(__file__).parent.parent,
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = json.loads(child.stdout)
    return Snapshot(rows, path.stat().st_size / 2**20, save_s, save_peak, **loaded)


def load_here(path: Path) -> dict[str, float]:
    """Load a snapshot into this process's emulation as `serve --state` does at start;
    the time it took and this process's memory."""
    with mock_aws():
        base, _ = _memory_mb()
        started = time.perf_counter()
        state.load(_client, path, [REGION])
        load_s = time.perf_counter() - started
        rss, peak = _memory_mb()
    return {"load_s": load_s, "base_mb": base, "rss_mb": rss, "peak_mb": peak}


def _grow(
    plan: Plan,
    sizes: Sequence[int],
    name: Callable[[int], str],
    token: str,
    target: Callable[[int], tuple[str, ...]],
    ttl: float | None,
) -> list[Point]:
    """Write the template, then for each size copy `token` in it to `name(n)` for n up to
    `size` and measure in the namespace `target(size)`, which must not be the template
    (its rows are copied). With `ttl`: the listings only, and no snapshot."""
    points = []
    fresh = count()
    with mock_aws(), tempfile.TemporaryDirectory() as tmp:
        store = _store()
        store.put(NAMESPACE, KEY, VALUE, ttl=ttl)
        filled = 1
        for size in sizes:
            replicate(TABLE, {token: [name(n) for n in range(filled, size)]})
            filled = size
            point = Point(size, item_count(TABLE))
            print(f"  {size:,}: {point.rows:,} rows", file=sys.stderr, flush=True)
            operations = _operations(store, target(size), fresh, listings_only=ttl is not None)
            gc.collect()
            gc.freeze()  # the table is long-lived: keep the collector from rescanning it
            point.ops = {op: _cost(call, plan) for op, call in operations.items()}
            gc.unfreeze()
            if ttl is None and point.rows <= plan.snapshot_rows:
                point.snapshot = _snapshot(Path(tmp) / f"{size}.json")
            points.append(point)
        store.close()
    return points


def _tenant(n: int) -> str:
    return f"t{n:05}"


def run(plan: Plan) -> Curves:
    """Both curves, measured. The tenants curve measures in its newest tenant's namespace
    (a copy), the rows curve in the template namespace (its puts are not copied: their
    keys do not mention the template's)."""
    assert all(1 < n < 10**5 for n in plan.tenants), "tenants are named with 5 digits"
    assert all(0 < n < 10**6 for n in plan.rows), "keys are named with 6 digits"

    def newest(size: int) -> tuple[str, ...]:
        return ("memories", _tenant(size - 1), "u")

    print("tenants", file=sys.stderr, flush=True)
    tenants = _grow(plan, plan.tenants, _tenant, TENANT, newest, None)
    print("tenants, TTL items", file=sys.stderr, flush=True)
    expiring = _grow(plan, plan.tenants, _tenant, TENANT, newest, TTL_MINUTES)
    for point, listed in zip(tenants, expiring, strict=True):
        point.ops.update(listed.ops)
    print("rows in one namespace", file=sys.stderr, flush=True)
    rows = _grow(plan, plan.rows, lambda n: f"k{n:06}", KEY, lambda _: NAMESPACE, None)
    return {"tenants": tenants, "rows in one namespace": rows}


def _skipped(points: list[Point], point: Point) -> str:
    """Why a size has no snapshot figures, with the time projected from the largest
    measured one."""
    measured = [p.snapshot for p in points if p.snapshot is not None]
    if not measured:
        return f"not measured ({point.rows:,} rows)"
    largest = max(measured, key=lambda s: s.rows)
    seconds = (largest.save_s + largest.load_s) / largest.rows * point.rows
    return (
        f"not measured: {point.rows:,} rows would take about {seconds:.0f} s to save and "
        f"load here (the rate at {largest.rows:,} rows)"
    )


def markdown(curves: Curves, plan: Plan, plots: list[str]) -> str:
    lines = [
        "# Cost as the table grows",
        "",
        f"Generated by `python -m bench.growth` on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, "
        "on the in-process emulation (on a shared machine: counts are exact, times are "
        "noisy, only large ratios mean something). Per operation: DynamoDB requests / "
        "items read (one run after a warm-up) / "
        f"wall time on the emulation, ms (median of {plan.repeats} runs, or of fewer, marked, "
        f"once they took {plan.budget_s:g} s; no latency model). "
        f"Snapshots: over {plan.snapshot_rows:,} rows not measured.",
    ]
    for curve, points in curves.items():
        lines += [
            "",
            f"## {curve}",
            "",
            "| operation | " + " | ".join(f"{p.size:,}" for p in points) + " |",
            "|---" + "|---:" * len(points) + "|",
            "| rows in the table | " + " | ".join(f"{p.rows:,}" for p in points) + " |",
        ]
        for op in points[0].ops:
            cells = [p.ops[op] for p in points]
            lines.append(
                f"| {op} | "
                + " | ".join(
                    f"{c.requests} / {c.items_read:,} / {c.ms:.1f}"
                    + (f" ({c.runs} run{'s' * (c.runs > 1)})" if c.runs < plan.repeats else "")
                    for c in cells
                )
                + " |"
            )
        lines += [
            "",
            "| size | snapshot rows | MB | save s | save peak +MB | load s "
            "| loading process RSS MB: before / after / peak |",
            "|---:|---:|---:|---:|---:|---:|---|",
        ]
        for p in points:
            s = p.snapshot
            if s is None:
                lines.append(f"| {p.size:,} | {_skipped(points, p)} | | | | | |")
                continue
            peak = "-" if s.save_peak_mb is None else f"{s.save_peak_mb:.0f}"
            lines.append(
                f"| {p.size:,} | {s.rows:,} | {s.mb:.1f} | {s.save_s:.1f} | {peak} | "
                f"{s.load_s:.1f} | {s.base_mb:.0f} / {s.rss_mb:.0f} / {s.peak_mb:.0f} |"
            )
    lines += ["", "## Plots", "", *(f"![{p}]({p})" for p in plots), ""]
    return "\n".join(lines)


def plot(curves: Curves, out: Path) -> list[str]:
    """One PNG per curve: requests, items read, time; snapshot time, memory, size."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = []
    for curve, points in curves.items():
        figure, axes = plt.subplots(2, 3, figsize=(16, 7), sharex=True)
        sizes = [p.size for p in points]
        for axis, (attribute, title) in zip(
            axes[0],
            (("requests", "DynamoDB requests"), ("items_read", "items read"), ("ms", "ms")),
            strict=True,
        ):
            for op in points[0].ops:
                axis.plot(sizes, [getattr(p.ops[op], attribute) for p in points], "o-", label=op)
            axis.set_title(title)
        axes[0][0].set_ylim(bottom=0)
        axes[0][1].set_yscale("symlog")  # 0 (a put reads nothing) to all the groups
        axes[0][1].set_ylim(bottom=0)
        axes[0][2].set_yscale("log")
        figure.legend(*axes[0][0].get_legend_handles_labels(), loc="center right", fontsize=8)
        snaps = [(p.size, p.snapshot) for p in points if p.snapshot is not None]
        skipped = ", ".join(f"{p.size:,}" for p in points if p.snapshot is None)
        panels: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
            ("snapshot: seconds", (("save_s", "save"), ("load_s", "load"))),
            ("loading process: MB", (("rss_mb", "RSS after load"), ("peak_mb", "peak"))),
            ("snapshot file: MB", (("mb", "file"),)),
        )
        for axis, (title, series) in zip(axes[1], panels, strict=True):
            for attribute, label in series:
                axis.plot(
                    [n for n, _ in snaps],
                    [getattr(s, attribute) for _, s in snaps],
                    "o-",
                    label=label,
                )
            axis.set_title(title + (f" ({skipped}: not measured)" if skipped else ""))
            axis.legend(fontsize=7)
        for axis in axes.flat:
            axis.set_xscale("log")
            axis.set_xlabel(curve)
            axis.grid(alpha=0.3)
        figure.suptitle(f"cost as the table grows: {curve}")
        figure.tight_layout(rect=(0, 0, 0.8, 1))
        name = "growth-" + "-".join(curve.split()) + ".png"
        figure.savefig(out / name, dpi=80)
        plt.close(figure)
        names.append(name)
    return names


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tenants", type=int, nargs="+", default=list(Plan.tenants))
    parser.add_argument("--rows", type=int, nargs="+", default=list(Plan.rows))
    parser.add_argument("--repeats", type=int, default=Plan.repeats)
    parser.add_argument("--budget", type=float, default=Plan.budget_s, help="s of runs per op")
    parser.add_argument("--snapshot-rows", type=int, default=Plan.snapshot_rows)
    parser.add_argument("--out", type=Path, default=RESULTS, help="where the PNGs go")
    parser.add_argument("--load", type=Path, help=argparse.SUPPRESS)  # the loading process
    args = parser.parse_args(argv)
    if args.load:
        print(json.dumps(load_here(args.load)))
        return
    plan = Plan(
        tuple(args.tenants), tuple(args.rows), args.repeats, args.budget, args.snapshot_rows
    )
    curves = run(plan)
    args.out.mkdir(parents=True, exist_ok=True)
    print(markdown(curves, plan, plot(curves, args.out)))


if __name__ == "__main__":
    main()
