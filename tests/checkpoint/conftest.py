"""A saver on a fresh emulated table (the store's table, created by the saver's setup)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.testing import mock_aws

TABLE = "threads"


@pytest.fixture
def emulation() -> Iterator[None]:
    with mock_aws():
        yield


@pytest.fixture
def saver(emulation: None) -> Iterator[DynamoDBSaver]:
    with DynamoDBSaver.from_table(TABLE, region_name="us-east-1", setup=True) as made:
        yield made
