"""Fixtures for the hardening suite: stores on fresh emulated tables."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.testing import LexicalEmbeddings, mock_aws

DIMS = 16
TABLE = "memory"


def make_store(ttl: Any = None, **index: Any) -> DynamoDBStore:
    """A store with a vector index embedding `text` and every `notes[*]` entry."""
    config: dict[str, Any] = {
        "dims": DIMS,
        "embed": LexicalEmbeddings(dims=DIMS),
        "fields": ["text", "notes[*]"],
    }
    config.update(index)
    return DynamoDBStore(TABLE, region_name="us-east-1", index=config, ttl=ttl)  # type: ignore[arg-type]


@pytest.fixture
def emulated() -> Iterator[None]:
    with mock_aws():
        yield


@pytest.fixture
def store(emulated: None) -> DynamoDBStore:
    created = make_store()
    created.setup()
    return created


@pytest.fixture
def kv(emulated: None) -> DynamoDBStore:
    created = DynamoDBStore(TABLE, region_name="us-east-1")
    created.setup()
    return created
