"""`bench.purge` on small tenants: its batch deletes stay within 10% of the 40-per-1,000
minimum in both layouts (counts, never times)."""

from __future__ import annotations

from langgraph.store.dynamodb.testing import mock_aws

from bench.purge import MINIMUM_PER_1000, make_store, many_users, measure, one_big_namespace


def test_purge_batches_are_near_the_minimum() -> None:
    with mock_aws():
        store = make_store()
        one_big_namespace(store, 300)
        many_users(store, 100)
        measured = [
            measure(store, "big", ("memories", "big")),
            measure(store, "many", ("memories", "many")),
        ]
    for m in measured:
        assert m.result.rows_left == 0
        assert m.per_1000("BatchWriteItem") <= 1.1 * MINIMUM_PER_1000 + 1000 / m.rows, m.calls
        assert "Scan" not in m.calls
