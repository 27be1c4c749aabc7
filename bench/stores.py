"""The three stores under test, built the same way on the same emulated AWS.

Every store embeds with the same Bedrock model (Titan Text Embeddings V2 through the
emulated `InvokeModel`), so the latency model charges every embedding call alike.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langchain_core.embeddings import Embeddings
from langgraph.store.base import BaseStore, TTLConfig
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.stream.consumer import StreamConsumer, bedrock_embeddings

REGION = "us-east-1"
MODEL = "amazon.titan-embed-text-v2:0"
DIMS = 256
FIELDS = ["text"]
OURS = "ours"
CHECKPOINT_AWS = "langgraph-checkpoint-aws"
STORE_DYNAMODB = "langgraph-store-dynamodb"
TTL = TTLConfig(default_ttl=60, refresh_on_read=True)


def embedder() -> Embeddings:
    """The one embedding model every store (and the reference) uses."""
    return bedrock_embeddings(MODEL, DIMS, True, region_name=REGION)


def index(embeddings: Embeddings | None, **extra: Any) -> dict[str, Any] | None:
    """The index config every store gets; None (no semantic search) without a model."""
    if embeddings is None:
        return None
    return {"dims": DIMS, "embed": embeddings, "fields": FIELDS, **extra}


def _ours(table: str, embeddings: Embeddings | None, ttl: TTLConfig | None) -> BaseStore:
    store = DynamoDBStore(table, region_name=REGION, index=index(embeddings), ttl=ttl)  # type: ignore[arg-type]
    store.setup()
    return store


def _checkpoint_aws(table: str, embeddings: Embeddings | None, ttl: TTLConfig | None) -> BaseStore:
    from langgraph_checkpoint_aws.store.dynamodb import DynamoDBStore as Peer

    store = Peer(table, region_name=REGION, index=index(embeddings), ttl=ttl)
    store.setup()
    return store


def _store_dynamodb(table: str, embeddings: Embeddings | None, ttl: TTLConfig | None) -> BaseStore:
    from langgraph_store_dynamodb import DynamoDBStore as Peer

    if ttl is not None:
        raise NotImplementedError(f"{STORE_DYNAMODB} has no TTL support")
    return Peer(table, region_name=REGION, index=index(embeddings))  # type: ignore[arg-type]


# (table name, embedding model or None for no index, TTL config or None) -> the store
Factory = Callable[[str, Embeddings | None, TTLConfig | None], BaseStore]


@dataclass(frozen=True)
class StoreKind:
    name: str
    table: str
    make: Factory


KINDS = (
    StoreKind(OURS, "bench-ours", _ours),
    StoreKind(CHECKPOINT_AWS, "bench-checkpoint-aws", _checkpoint_aws),
    StoreKind(STORE_DYNAMODB, "bench-store-dynamodb", _store_dynamodb),
)


def stream_store(embeddings: Embeddings) -> tuple[DynamoDBStore, StreamConsumer]:
    """Ours with `embed_on="stream"` on its own table, and the consumer of its stream."""
    table = "bench-ours-stream"
    store = DynamoDBStore(
        table,
        region_name=REGION,
        index=index(embeddings, embed_on="stream"),  # type: ignore[arg-type]
    )
    store.setup()
    return store, StreamConsumer(table, client=store.client, embeddings=embeddings)
