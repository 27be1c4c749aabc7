"""An emulated table holding threads (a saver keyed by tenant) and memories (a store with
a vector index on `text`), and an extractor configured with the semantic facts strategy
into `("memories", "{tenant}", "{user_id}", "facts")`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.embedders.build import embedder
from langgraph.store.dynamodb.extraction import ExtractionConfig, Extractor, SemanticFacts
from langgraph.store.dynamodb.testing import mock_aws

from tests.checkpoint.graphs import chat_graph

TABLE = "memory"
TENANT = "acme"
USER = "u1"
NAMESPACE = ("memories", TENANT, USER, "facts")


def facts_config(**changes: Any) -> ExtractionConfig:
    """The semantic facts strategy, per user of a tenant."""
    strategy = SemanticFacts(name="facts", namespace=("memories", "{tenant}", "{user_id}", "facts"))
    settings: dict[str, Any] = {"strategies": [strategy], "thread_keys": ["user_id"], **changes}
    return ExtractionConfig(**settings)


@dataclass
class Tables:
    store: DynamoDBStore
    saver: DynamoDBSaver
    extractor: Extractor
    graph: Any

    def say(self, thread: str, text: str, user: str = USER, tenant: str = TENANT) -> str:
        """One turn of the chat graph; the id of the checkpoint it ended with."""
        config = {"configurable": {"thread_id": thread, "tenant": tenant, "user_id": user}}
        self.graph.invoke({"messages": [HumanMessage(text)]}, config)
        state = self.graph.get_state(config)
        return str(state.config["configurable"]["checkpoint_id"])

    def facts(self, namespace: tuple[str, ...] = NAMESPACE) -> list[str]:
        """The texts of the memories in `namespace`, sorted."""
        return sorted(item.value["text"] for item in self.store.search(namespace, limit=100))


@contextmanager
def open_tables(**extractor_options: Any) -> Iterator[Tables]:
    """The tables and an extractor (built with `extractor_options`) on the emulation
    already running."""
    index = {"dims": 16, "embed": embedder("lexical", 16), "fields": ["text"]}
    with (
        DynamoDBStore(TABLE, region_name="us-east-1", index=index) as store,  # type: ignore[arg-type]
        DynamoDBSaver(TABLE, region_name="us-east-1", tenant_key="tenant") as saver,
    ):
        store.setup()
        extractor = Extractor(store, saver, **extractor_options)
        extractor.set_config(facts_config())
        yield Tables(store, saver, extractor, chat_graph(saver))


@pytest.fixture
def tables() -> Iterator[Tables]:
    with mock_aws(), open_tables() as opened:
        yield opened
