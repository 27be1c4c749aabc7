from __future__ import annotations

from collections.abc import Iterator

import pytest
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.testing import mock_aws

from tests.support import RequestCounter


@pytest.fixture
def kv_store() -> Iterator[DynamoDBStore]:
    """A key-value DynamoDBStore on a fresh emulated table."""
    with mock_aws():
        store = DynamoDBStore("memory", region_name="us-east-1")
        store.setup()
        yield store


@pytest.fixture
def requests(kv_store: DynamoDBStore) -> RequestCounter:
    return RequestCounter(kv_store.client)
