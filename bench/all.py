"""`make bench`: every benchmark, one after another, each timed; writes `bench/results/`.

Each step runs in its own process (a fresh emulation); its output goes to the console and,
for the steps that do not write their own files, to a text file in `results/`. The
Lambdas' handlers, run here outside Lambda, keep their metrics and INFO logs off stdout
(`handlers.batch`).
The wall time of each step goes to `results/timings.md`.

    python -m bench.all
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"

# (what it measures, module and arguments, the file its output goes to or None)
STEPS: tuple[tuple[str, tuple[str, ...], str | None], ...] = (
    ("workloads and scale curves vs the peers", ("bench",), None),
    ("scale model (100,000 tenants)", ("bench.scale_sim",), None),
    (
        "searches without a query: order and cost",
        ("bench.recency", "--items", "10"),
        "recency.txt",
    ),
    (
        "background embedding and the stream consumer",
        ("bench.bench_stream", "--puts", "20", "--reindex", "200"),
        "stream.txt",
    ),
    ("usage accounting: requests and CPU", ("bench.usage_overhead",), "usage-overhead.txt"),
    ("emulator: Query of one partition", ("bench.emulator_query",), "emulator-query.txt"),
    ("emulator: SearchVectors", ("bench.bench_search_vectors",), "emulator-search.txt"),
    (
        "cost as the table grows: tenants, rows in a namespace, snapshots",
        ("bench.growth",),
        "growth.md",
    ),
    (
        "checkpointers: ours vs langgraph-checkpoint-aws on one graph workload",
        ("bench.checkpoint",),
        "checkpoint.md",
    ),
    (
        "Lambdas: cold import of both handlers, code assets and the shared layer",
        ("bench.cold_start",),
        "cold-start.md",
    ),
    (
        "command line: start-up of --help, --version and ls",
        ("bench.cli_startup",),
        "cli-startup.md",
    ),
    (
        "memory extraction: evaluation set (30 users x 220 turns), emulated extractor vs raw turns",
        ("bench.memory_eval",),
        None,
    ),
    (
        "memories that form themselves: turn -> searchable, cost, 100 threads at once",
        ("bench.extraction",),
        None,
    ),
    (
        "memories that form themselves: 1 to 10 extraction instances, a quiet tenant's wait",
        ("bench.extraction_throughput",),
        None,
    ),
    (
        "purge: requests per 1,000 rows erased vs the 40-batch minimum",
        ("bench.purge",),
        "purge.md",
    ),
    # issue 14's benchmark, on a reduced grid (the full one, ~11 min: docs/concurrency.md):
    # 20 ms per request, where the pool matters; up to 100 concurrent callers
    (
        "concurrent callers",
        ("bench.concurrency", "--latency", "20", "--callers", "1", "10", "100"),
        "concurrency.md",
    ),
)


def run_step(module: tuple[str, ...], out: Path | None) -> float:
    """Run `python -m module...`, echoing its output (and saving it to `out`); seconds."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-u", "-m", *module],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        sys.stdout.write(line)
        lines.append(line)
    if process.wait():
        raise SystemExit(f"bench step {' '.join(module)} failed (exit {process.returncode})")
    if out is not None:
        out.write_text("".join(lines))
    return time.perf_counter() - started


def main() -> None:
    RESULTS.mkdir(exist_ok=True)
    timings = []
    for title, module, out in STEPS:
        print(f"== {title}: python -m {' '.join(module)}", flush=True)
        seconds = run_step(module, RESULTS / out if out else None)
        timings.append((title, module, seconds))
        print(f"== {title}: {seconds:.0f} s", flush=True)
    total = sum(seconds for _, _, seconds in timings)
    lines = [
        "# `make bench` wall time per step",
        "",
        "| step | command | seconds |",
        "|---|---|---:|",
        *(f"| {t} | `python -m {' '.join(m)}` | {s:.0f} |" for t, m, s in timings),
        f"| total | `make bench` | {total:.0f} |",
        "",
    ]
    (RESULTS / "timings.md").write_text("\n".join(lines))
    print(f"make bench: {total:.0f} s")


if __name__ == "__main__":
    main()
