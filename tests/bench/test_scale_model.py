"""The scale model's verdict, re-derived from the requests the store sends today."""

from __future__ import annotations

from collections import Counter

import pytest

from bench.scale_sim import Recording, load, record


@pytest.fixture(scope="module")
def recording() -> Recording:
    return record()


def test_no_partition_passes_half_its_limit_at_the_target_load(recording: Recording) -> None:
    loads = load(recording)
    hottest = loads[0]
    assert hottest.worst_share < 0.5, hottest
    shared = {entry.key for entry in loads if entry.kind == "shared"}
    assert shared == {"._groups"}  # only new namespaces write the one shared partition


def test_requests_sent_at_the_same_time_are_all_recorded(recording: Recording) -> None:
    """A search reads the registry and the partitions concurrently: every one of those
    requests is in the model, however their answers interleave."""

    def sent(operation: str) -> Counter[tuple[str, str]]:
        return Counter((r.api, r.key) for r in recording.operations[operation])

    registry, user = "._ns.memories.{tenant}", "memories.{tenant}.{user}"
    assert sent("search user (no query)") == Counter({("Query", registry): 1, ("Query", user): 1})
    assert sent("search tenant (no query)") == Counter(
        {
            ("Query", "memories.{tenant}"): 1,
            ("Query", registry): 1,
            ("Query", user): 1,
            ("Query", "memories.{tenant}.{other user}"): 2,
        }
    )
