"""What `status` reports about a table: its state, indexes, size and namespaces."""

from __future__ import annotations

from typing import Any

from langgraph.store.dynamodb.basestore.store import DynamoDBStore
from langgraph.store.dynamodb.items.model_pin import identity_of, read_pin
from langgraph.store.dynamodb.table import creation, dynamo
from langgraph.store.dynamodb.table.errors import TableNotFoundError
from langgraph.store.dynamodb.table.schema import ITEM_PREFIX, PENDING, SK

MAX_NAMESPACES = 1_000_000


def table_status(store: DynamoDBStore, *, exact: bool) -> dict[str, Any]:
    """The table's state; with `exact`, the memory and pending-embedding counts from a
    full Scan (costly on a big table; otherwise DynamoDB's approximate ItemCount of all
    rows)."""
    client = store.client
    description = creation.describe(client, store.table_name)
    if description is None:
        raise TableNotFoundError(
            f"DynamoDB table {store.table_name!r} was not found in region "
            f"{client.meta.region_name} (endpoint {client.meta.endpoint_url})."
        )
    ttl = client.describe_time_to_live(TableName=store.table_name)["TimeToLiveDescription"]
    stream = description.get("StreamSpecification") or {}
    status: dict[str, Any] = {
        "table": store.table_name,
        "region": client.meta.region_name,
        "endpoint": client.meta.endpoint_url,
        "status": description.get("TableStatus"),
        "rows": description.get("ItemCount"),
        "stream": stream.get("StreamViewType") if stream.get("StreamEnabled") else None,
        "ttl": f"{ttl.get('TimeToLiveStatus')} on {ttl.get('AttributeName')}"
        if ttl.get("AttributeName")
        else ttl.get("TimeToLiveStatus"),
        "vector_indexes": [
            {
                "name": index.get("IndexName"),
                "status": index.get("IndexStatus"),
                "backfilling": bool(index.get("Backfilling")),
                "dims": index.get("Dimensions"),
                "distance": index.get("DistanceFunction"),
                "model": _pinned_model(client, store.table_name, index.get("IndexName")),
            }
            for index in description.get("VectorIndexes", [])
        ],
        "namespaces": len(store.list_namespaces(limit=MAX_NAMESPACES)),
    }
    if exact:
        status["memories"], status["pending_embeddings"] = count_memories(client, store.table_name)
    return status


def _pinned_model(client: Any, table_name: str, index_name: str) -> str | None:
    pin = read_pin(client, table_name, index_name)
    return str(identity_of(pin)) if pin else None


def count_memories(client: Any, table_name: str) -> tuple[int, int]:
    """Stored items (not registry, metadata or extra-vector rows) and how many of them
    wait for the stream consumer to embed them, by a full-table Scan."""
    memories = pending = 0
    request: dict[str, Any] = {
        "TableName": table_name,
        "ProjectionExpression": "#sk, #pending",
        "FilterExpression": "begins_with(#sk, :item)",
        "ExpressionAttributeNames": {"#sk": SK, "#pending": PENDING},
        "ExpressionAttributeValues": dynamo.serialize({":item": ITEM_PREFIX}),
    }
    for page in client.get_paginator("scan").paginate(**request):
        memories += len(page["Items"])
        pending += sum(PENDING in item for item in page["Items"])
    return memories, pending
