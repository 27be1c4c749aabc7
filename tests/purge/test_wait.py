"""A purge that deleted listings writers trust waits that trust out before its last count
(`row_kinds.TRUST_SECONDS`), and a rerun after a purge killed in its wait waits the rest:
the time is on the resume marker. A purge that deleted none does not wait."""

from __future__ import annotations

import pytest
from langgraph.store.dynamodb.table import clock as library_clock
from langgraph.store.dynamodb.table.row_kinds import TRUST_SECONDS
from langgraph.store.dynamodb.testing import mock_aws

from tests.support import FakeClock

from .tenants import TENANT, fill, make_store


def test_a_rerun_after_a_kill_in_the_wait_waits_the_rest(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    with mock_aws():
        store = make_store()
        store.setup()
        fill(store, TENANT, users=1, items=1)
        waits: list[float] = []

        def killed(seconds: float) -> None:
            waits.append(seconds)
            raise KeyboardInterrupt

        monkeypatch.setattr(library_clock, "sleep", killed)
        with pytest.raises(KeyboardInterrupt):
            store.purge(TENANT)
        clock.advance(100)
        monkeypatch.setattr(library_clock, "sleep", waits.append)
        again = store.purge(TENANT)
        assert again.resumed and again.rows_left == 0
        assert waits == [
            pytest.approx(TRUST_SECONDS, abs=1),
            pytest.approx(TRUST_SECONDS - 100, abs=1),
        ]
        store.purge(TENANT)  # nothing left to delete: no wait
        assert len(waits) == 2
