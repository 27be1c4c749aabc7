"""The table-growth benchmark runs end to end at a tiny size, so `make bench` cannot rot.

No timing is asserted: only that every operation is reported at every size with the
store's real request counts, and that snapshots are measured up to the limit and said
to be skipped past it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.growth import LISTINGS, OPS, TTL_SUFFIX, Curves, Plan, markdown, plot, run

TINY = Plan(tenants=(2, 4), rows=(3, 6), repeats=1, snapshot_rows=8)


@pytest.fixture(scope="module")
def curves() -> Curves:
    return run(TINY)


def test_every_operation_is_reported_at_every_size(curves: Curves) -> None:
    assert [p.size for p in curves["tenants"]] == list(TINY.tenants)
    assert [p.size for p in curves["rows in one namespace"]] == list(TINY.rows)
    with_ttl = {*OPS, *(op + TTL_SUFFIX for op in LISTINGS)}
    for point in curves["tenants"]:
        assert set(point.ops) == with_ttl
    for point in curves["rows in one namespace"]:
        assert set(point.ops) == set(OPS)
    for points in curves.values():
        for point in points:
            assert all(cost.requests >= 1 and cost.ms > 0 for cost in point.ops.values())


def test_counts_are_the_requests_the_store_makes(curves: Curves) -> None:
    for points in curves.values():
        for point in points:
            assert (point.ops["get"].requests, point.ops["get"].items_read) == (1, 1)
            assert point.ops["put"].requests == 1
    big = curves["rows in one namespace"][-1]
    assert big.ops["search"].items_read > 1
    listing = curves["tenants"][-1].ops[LISTINGS[0]]
    assert listing.items_read >= TINY.tenants[-1]  # at least the groups list


def test_snapshots_are_measured_up_to_the_limit(curves: Curves) -> None:
    for points in curves.values():
        small, big = points
        assert big.rows > TINY.snapshot_rows >= small.rows
        assert big.snapshot is None
        snapshot = small.snapshot
        assert snapshot is not None
        assert snapshot.rows >= small.rows and snapshot.mb > 0
        assert snapshot.rss_mb > snapshot.base_mb > 0 and snapshot.peak_mb >= snapshot.rss_mb


def test_markdown_and_plots_are_written(curves: Curves, tmp_path: Path) -> None:
    plots = plot(curves, tmp_path)
    assert sorted(p.name for p in tmp_path.glob("*.png")) == sorted(plots) and len(plots) == 2
    text = markdown(curves, TINY, plots)
    assert all(f"]({name})" in text for name in plots)
    assert all(f"| {op} |" in text for op in OPS)
    assert text.count("not measured:") == 2
