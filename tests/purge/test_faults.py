"""A purge under injected faults (throttling, server errors, timeouts before and after the
request applies, dropped connections, half-applied batches): 0 rows left under the
prefix, and every row outside it untouched."""

from __future__ import annotations

import pytest
from botocore.config import Config
from langgraph.store.dynamodb.testing import mock_aws

from tests.fault.layer import (
    ERROR_STATUS,
    RESET,
    TIMEOUT_AFTER,
    TIMEOUT_BEFORE,
    UNPROCESSED,
    FaultLayer,
)

from .tenants import NEIGHBOURS, TENANT, fill, make_store, outside, rows, under

# "retried": the client retries, as in production; "surfacing": it does not, so faults
# reach the purge, which either absorbs them (UnprocessedItems) or fails and is run again.
# (client, share of requests faulted)
CLIENTS = {
    "retried": (Config(retries={"mode": "legacy", "max_attempts": 4}), 0.3),
    "surfacing": (Config(retries={"mode": "legacy", "max_attempts": 1}), 0.15),
}


@pytest.mark.parametrize("client", list(CLIENTS))
def test_a_purge_under_faults_leaves_nothing_and_touches_nothing_else(client: str) -> None:
    with mock_aws():
        reader = make_store()
        reader.setup()
        fill(reader, TENANT, users=4, items=12)  # several full batches
        for group in NEIGHBOURS:
            fill(reader, group, users=1, items=2)
        before = rows(reader)
        config, rate = CLIENTS[client]
        store = make_store(boto_config=config)
        layer = FaultLayer(store.client, rate=rate, seed=3)
        # and half the batches half-applied, so `UnprocessedItems` comes back often
        partial = FaultLayer(store.client, rate=0.5, kinds=(UNPROCESSED,), seed=4)
        runs = 0
        while True:
            runs += 1
            assert runs <= 30, "the purge never got through the faults"
            try:
                result = store.purge(TENANT)
            except Exception:
                assert outside(rows(reader), TENANT) == outside(before, TENANT)
                continue
            if result.rows_left == 0:
                break
        layer.enabled = partial.enabled = False
        after = rows(reader)
        assert under(after, TENANT) == []
        assert after == outside(before, TENANT)
        faults = layer.injected + partial.injected
        assert faults[UNPROCESSED] and faults.total() >= 10, faults
        assert set(faults) & {TIMEOUT_BEFORE, TIMEOUT_AFTER, RESET}, faults
        assert set(faults) & set(ERROR_STATUS), faults  # throttling or a server error
        print(f"\npurge under faults ({client}): {runs} runs, faults {dict(faults)}")
