"""What a bench run measures and how it is saved: the plan, one result per operation and
store, and the JSON of everything gathered. `run` gathers, `report` writes; both read this."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from langgraph.store.base import BaseStore

from . import prices
from .instrument import Latency, Sample, Usage
from .stores import MODEL


@dataclass
class Result:
    """One operation on one store: what it cost (`usage`, from the first run) and its
    latency over the runs, or why there is no number."""

    status: str = "ok"  # "ok", "WRONG", or why the store cannot do it
    runs: int = 0  # measured runs behind the latency figures
    latency_ms: float = 0.0
    p95_ms: float = 0.0
    cost_per_1k: float = 0.0
    usage: Usage = field(default_factory=Usage)

    @classmethod
    def of(cls, samples: Sequence[Sample]) -> Result:
        latencies = sorted(s.latency_ms for s in samples)
        usage = samples[0].usage
        return cls(
            runs=len(latencies),
            latency_ms=statistics.median(latencies),
            p95_ms=latencies[min(len(latencies) - 1, round(0.95 * (len(latencies) - 1)))],
            cost_per_1k=prices.cost_per_thousand(usage, MODEL),
            usage=usage,
        )


@dataclass
class Plan:
    tenants: tuple[int, ...] = (1, 2, 4)
    users: int = 50
    items: int = 100
    batch: int = 100  # ops per abatch, records per stream batch
    items_per_namespace: tuple[int, ...] = (10, 100, 1000)
    namespaces_per_prefix: tuple[int, ...] = (5, 20, 50)
    repeats: int = 5
    heavy_repeats: int = 3
    curve_repeats: int = 3
    # stop repeating an operation once its measured runs took this long (a peer's
    # full-table Scan takes seconds of emulator time per run; its counts do not vary)
    budget_s: float = 1.5
    latency: Latency = field(default_factory=Latency)


class Gathered(Protocol):
    """What a run has gathered (`run.Bench` is one)."""

    @property
    def stores(self) -> dict[str, BaseStore]: ...

    results: dict[str, dict[str, Result]]
    curves: dict[str, dict[str, dict[str, list[tuple[int, Result]]]]]
    notes: list[str]


def as_json(bench: Gathered) -> dict[str, Any]:
    return {
        "workloads": {
            op: {name: asdict(r) for name, r in row.items()} for op, row in bench.results.items()
        },
        "curves": {
            curve: {
                op: {name: [(size, asdict(r)) for size, r in points] for name, points in by.items()}
                for op, by in ops.items()
            }
            for curve, ops in bench.curves.items()
        },
        "notes": bench.notes,
    }
