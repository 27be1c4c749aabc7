"""The scale model's verdict, re-derived from the requests the store sends today."""

from __future__ import annotations

from bench.scale_sim import load, record


def test_no_partition_passes_half_its_limit_at_the_target_load() -> None:
    loads = load(record())
    hottest = loads[0]
    assert hottest.worst_share < 0.5, hottest
    shared = {entry.key for entry in loads if entry.kind == "shared"}
    assert shared == {"._groups"}  # only new namespaces write the one shared partition
