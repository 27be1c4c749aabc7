"""The replaying endpoint of `bench.concurrency` answers what the emulator answered.

Not a benchmark: it checks that a replayed round is the recorded one (same answers, no
request reaching the emulator), that a request recorded a second earlier still matches,
and that anything never recorded is forwarded and counted, never invented.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from langgraph.store.base import PutOp
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.testing import local_endpoint_process

from bench.replay import ReplayEndpoint, replay_endpoint, request_key

NS = ("replay", "tenant")


@pytest.fixture(scope="module")
def endpoint() -> Iterator[ReplayEndpoint]:
    with local_endpoint_process() as upstream, replay_endpoint(upstream) as replay:
        yield replay


@pytest.fixture
def store(endpoint: ReplayEndpoint, monkeypatch: pytest.MonkeyPatch) -> Iterator[DynamoDBStore]:
    for name, value in {"AWS_ACCESS_KEY_ID": "t", "AWS_SECRET_ACCESS_KEY": "t"}.items():
        monkeypatch.setenv(name, os.environ.get(name, value))
    store = DynamoDBStore("replayed", region_name="us-east-1", endpoint_url=endpoint.url)
    store.setup()
    store.batch([PutOp(NS, f"k{i}", {"i": i}) for i in range(3)])
    yield store
    store.close()


def test_a_replayed_round_gives_the_recorded_answers(
    endpoint: ReplayEndpoint, store: DynamoDBStore
) -> None:
    endpoint.switch("record")
    recorded = [store.get(NS, "k1"), store.search(NS), store.get(NS, "nothing")]
    store.put(NS, "k2", {"i": 22})  # the emulator's state moves on; the recording does not
    endpoint.switch("replay", 0.001)
    replayed = [store.get(NS, "k1"), store.search(NS), store.get(NS, "nothing")]
    # a get is one request, a search of one namespace two (the registry and the partition)
    assert endpoint.switch("forward") == {"hits": 4, "misses": 0}
    assert [item and item.dict() for item in replayed[::2]] == [
        item and item.dict() for item in recorded[::2]
    ]
    assert [item.dict() for item in replayed[1]] == [item.dict() for item in recorded[1]]


def test_a_request_never_recorded_is_forwarded_and_counted(
    endpoint: ReplayEndpoint, store: DynamoDBStore
) -> None:
    endpoint.switch("record")
    store.get(NS, "k0")
    endpoint.switch("replay", 0.0)
    item = store.get(NS, "k2")
    assert endpoint.switch("forward") == {"hits": 0, "misses": 1}
    assert item is not None and item.value == {"i": 2}


def test_instants_are_masked_and_nothing_else() -> None:
    a = request_key(b"DynamoDB_20120810.UpdateItem", b'{"t": {"N": "1796000000.25"}, "k": "k1"}')
    b = request_key(b"DynamoDB_20120810.UpdateItem", b'{"t": {"N": "1796000007"}, "k": "k1"}')
    c = request_key(b"DynamoDB_20120810.UpdateItem", b'{"t": {"N": "1796000007"}, "k": "k2"}')
    iso = request_key(b"X", b'"2026-11-30T09:46:07.123+00:00"')
    assert a == b != c
    assert iso == request_key(b"X", b'"2027-01-01T00:00:00Z"')
    assert request_key(b"X", b'"12345"') != request_key(b"X", b'"12346"')
