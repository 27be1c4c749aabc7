"""A purge killed at any request: a rerun finishes the job, and nothing outside the prefix
is ever touched (the killed run's deletes and the rerun's)."""

from __future__ import annotations

import itertools

import pytest
from botocore.config import Config
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.testing import mock_aws

from tests.fault.layer import TIMEOUT_AFTER, FaultLayer, Selector
from tests.support import RequestCounter

from .tenants import NEIGHBOURS, TABLE, TENANT, Row, fill, make_store, outside, rows, under

KILLED = "Killed"  # an error no client or helper retries: the process dies there
ONCE = Config(retries={"mode": "standard", "max_attempts": 1})


def restore(store: DynamoDBStore, wanted: list[Row]) -> None:
    """Put the tenant's rows back as they were (the rest of the table never changed)."""
    for start in range(0, len(wanted), 25):
        chunk = [{"PutRequest": {"Item": row}} for row in wanted[start : start + 25]]
        assert not store.client.batch_write_item(RequestItems={TABLE: chunk})["UnprocessedItems"]


def from_request(n: int) -> Selector:
    """Select every request from the `n`th on (counting from 0)."""
    sent = itertools.count()
    return lambda *_: next(sent) >= n


@pytest.mark.parametrize("kind", [KILLED, TIMEOUT_AFTER])
def test_a_purge_killed_at_any_request_is_finished_by_a_rerun(kind: str) -> None:
    with mock_aws():
        reader = make_store()
        reader.setup()
        fill(reader, TENANT, users=2, items=2)
        fill(reader, NEIGHBOURS[0], users=1, items=2)
        before = rows(reader)
        counter = RequestCounter(reader.client)
        assert reader.purge(TENANT).rows_left == 0
        total = counter.total
        resumed = 0
        for n in range(total):
            restore(reader, under(before, TENANT))
            assert rows(reader) == before
            victim = make_store(boto_config=ONCE)
            FaultLayer(victim.client, rate=1.0, kinds=(kind,), when=from_request(n))
            with pytest.raises(Exception):  # noqa: B017 - whatever the kill looks like
                victim.purge(TENANT)
            assert outside(rows(reader), TENANT) == outside(before, TENANT), f"killed at {n}"
            result = reader.purge(TENANT)
            after = rows(reader)
            assert (result.rows_left, under(after, TENANT)) == (0, []), f"killed at {n}"
            assert after == outside(before, TENANT), f"killed at {n}"
            resumed += result.resumed
        # every kill after the checkpoint's first write leaves a purge to resume
        assert resumed >= total - 3, (resumed, total)
