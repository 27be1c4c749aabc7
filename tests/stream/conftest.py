"""A stream-mode store on the emulation, and the consumer that embeds its writes."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.stream.consumer import FILTER_PATTERNS, StreamConsumer
from langgraph.store.dynamodb.testing import DrainReport, LexicalEmbeddings, drain_stream, mock_aws

DIMS = 64
TABLE = "memory"
NS = ("memories", "acme-corp", "user-8812")


class CountingEmbeddings(LexicalEmbeddings):
    """The local lexical model, counting the documents it embeds (the cost we measure).
    `fail_on` makes every text containing it fail, like a model rejecting an input."""

    def __init__(self, dims: int = DIMS, fail_on: str | None = None) -> None:
        super().__init__(dims=dims)
        self.texts: list[str] = []
        self.calls = 0
        self.fail_on = fail_on
        self.before_call: Callable[[list[str]], None] | None = None
        self._lock = threading.Lock()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if self.before_call is not None:
            self.before_call(texts)
        if self.fail_on is not None and any(self.fail_on in text for text in texts):
            raise ValueError(f"model rejected an input containing {self.fail_on!r}")
        with self._lock:
            self.calls += 1
            self.texts.extend(texts)
        return super().embed_documents(texts)


@dataclass
class StreamSetup:
    store: DynamoDBStore
    embeddings: CountingEmbeddings
    consumer: StreamConsumer

    def drain(self, **kwargs: Any) -> DrainReport:
        """Deliver the stream through the consumer as Lambda would (with the filter)."""
        kwargs.setdefault("filter_patterns", FILTER_PATTERNS)
        return drain_stream(TABLE, self.consumer.handle, **kwargs)


def make_stream_store(embeddings: CountingEmbeddings, **index: Any) -> DynamoDBStore:
    store = stream_store(embeddings, **index)
    store.setup()
    return store


def stream_store(embeddings: CountingEmbeddings, **index: Any) -> DynamoDBStore:
    """A stream-mode store on TABLE, before `setup()`."""
    config: dict[str, Any] = {
        "dims": DIMS,
        "embed": embeddings,
        "fields": ["text"],
        "embed_on": "stream",
    }
    config.update(index)
    return DynamoDBStore(TABLE, region_name="us-east-1", index=config)  # type: ignore[arg-type]


def stream_setup(**index: Any) -> StreamSetup:
    """A stream-mode store (index settings as `make_stream_store`) and its consumer, on
    the emulation already started."""
    embeddings = CountingEmbeddings()
    store = make_stream_store(embeddings, **index)
    consumer = StreamConsumer(TABLE, client=store.client, embeddings=embeddings)
    return StreamSetup(store, embeddings, consumer)


@pytest.fixture
def streamed() -> Iterator[StreamSetup]:
    with mock_aws():
        yield stream_setup()
