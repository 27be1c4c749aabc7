"""`DynamoDBStore.put_if_unchanged`, the conditional write consolidation's updates rely
on: it writes only over the version read (or only where nothing is, for `read=None`), in
both embedding modes, and says so when another write came first."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.embedders.build import embedder
from langgraph.store.dynamodb.testing import mock_aws

NS = ("memories", "acme", "facts")


@pytest.fixture(params=["write", "stream"])
def store(request: pytest.FixtureRequest) -> Iterator[DynamoDBStore]:
    index = {"dims": 16, "embed": embedder("lexical", 16), "fields": ["text"]}
    index["embed_on"] = request.param
    with (
        mock_aws(),
        DynamoDBStore("memory", region_name="us-east-1", index=index) as opened,  # type: ignore[arg-type]
    ):
        opened.setup()
        yield opened


def test_writes_over_the_version_read_only(store: DynamoDBStore) -> None:
    assert store.put_if_unchanged(NS, "k", {"text": "one"}, read=None)
    assert not store.put_if_unchanged(NS, "k", {"text": "again"}, read=None)
    first = store.get(NS, "k")
    assert first is not None
    assert store.put_if_unchanged(NS, "k", {"text": "two"}, read=first)
    assert not store.put_if_unchanged(NS, "k", {"text": "stale"}, read=first)
    current = store.get(NS, "k")
    assert current is not None and current.value == {"text": "two"}


def test_a_deleted_item_is_a_change_too(store: DynamoDBStore) -> None:
    store.put(NS, "k", {"text": "one"})
    read = store.get(NS, "k")
    store.delete(NS, "k")
    assert not store.put_if_unchanged(NS, "k", {"text": "two"}, read=read)
    assert store.get(NS, "k") is None
