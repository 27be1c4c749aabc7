"""The benchmark harness runs end to end on tiny sizes, so `make bench` cannot rot.

Not a benchmark: no timing is asserted. It does assert what the harness must get right:
every workload is reported for every store, ours answers every one correctly (the same
answers as LangGraph's InMemoryStore), and the counts are the store's real requests.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.instrument import Latency
from bench.results import Plan
from bench.run import run
from bench.stores import KINDS, OURS

TINY = Plan(
    tenants=(1, 2),
    users=3,
    items=12,
    batch=4,
    items_per_namespace=(3,),
    namespaces_per_prefix=(2,),
    repeats=1,
    heavy_repeats=1,
    curve_repeats=1,
    latency=Latency(dynamodb_ms=1.0, embedding_ms=1.0),
)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:  # type: ignore[type-arg]
    out = tmp_path_factory.mktemp("bench")
    run(TINY, out)
    return out, json.loads((out / "results.json").read_text())


def test_every_workload_is_reported_for_every_store(results: tuple[Path, dict]) -> None:  # type: ignore[type-arg]
    _, data = results
    names = {kind.name for kind in KINDS}
    assert len(data["workloads"]) == 15
    for op, row in data["workloads"].items():
        assert set(row) == names, op


def test_ours_answers_every_workload_correctly(results: tuple[Path, dict]) -> None:  # type: ignore[type-arg]
    _, data = results
    wrong = {
        op: row[OURS]["status"]
        for op, row in data["workloads"].items()
        if row[OURS]["status"] != "ok"
    }
    assert wrong == {}


def test_counts_are_the_requests_made(results: tuple[Path, dict]) -> None:  # type: ignore[type-arg]
    _, data = results
    get = data["workloads"]["get"][OURS]["usage"]
    assert get["requests"] == sum(n for api, n in get["calls"].items() if api != "InvokeModel") >= 1
    assert get["read_units"] >= 0.5 and get["items_read"] == 1
    put = data["workloads"]["put (write mode)"][OURS]["usage"]
    assert put["write_units"] >= 1 and put["embed_calls"] == 1
    semantic = data["workloads"]["semantic search one namespace"][OURS]["usage"]
    assert semantic["search_bytes"] >= 1024 and semantic["embed_calls"] == 1


def test_markdown_and_plots_are_written(results: tuple[Path, dict]) -> None:  # type: ignore[type-arg]
    out, data = results
    summary = (out / "README.md").read_text()
    assert "## Headline" in summary and "Prices:" in summary
    plots = sorted(out.glob("*.png"))
    assert len(plots) == sum(len(ops) for ops in data["curves"].values())
    assert all(f"]({p.name})" in summary for p in plots)
