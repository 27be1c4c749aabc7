"""The table `DynamoDBStore` needs, as plain data: `setup()` creates it from this and the
CDK stack (`infra/`) deploys it from this, so the two can never differ."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langgraph.store.dynamodb.table.schema import (
    EXPIRES_AT,
    FILTER_PREFIX,
    ITEM_ATTRIBUTES,
    PK,
    RECENCY,
    RECENCY_INDEX,
    SK,
    VECTOR,
)

DEFAULT_INDEX_NAME = "memory-vectors"
# The most dimensions a vector index holds (DynamoDB's limit).
MAX_DIMENSIONS = 4096
BILLING_MODE = "PAY_PER_REQUEST"  # vector indexes require on-demand tables
# The stream consumer reads the new image of puts and the keys of the TTL sweep's deletions,
# never an old image (see `consumer.FILTER_PATTERNS`): new images only, half the bytes.
STREAM_VIEW_TYPE = "NEW_IMAGE"
KEY_SCHEMA: tuple[dict[str, str], ...] = (
    {"AttributeName": PK, "KeyType": "HASH"},
    {"AttributeName": SK, "KeyType": "RANGE"},
)


@dataclass(frozen=True, kw_only=True)
class VectorIndexShape:
    """The vector index settings fixed at creation (DynamoDB cannot change them later):
    what `setup()` and the CDK stack both build the index from."""

    index_name: str = DEFAULT_INDEX_NAME
    dims: int
    distance_function: str = "COSINE"
    filter_fields: tuple[str, ...] = ()

    def filter_attribute(self, field: str) -> str:
        """The item attribute holding a filter field's value for the index."""
        return FILTER_PREFIX + field

    @property
    def filter_attributes(self) -> tuple[str, ...]:
        """Every filter attribute this index declares."""
        return tuple(self.filter_attribute(field) for field in self.filter_fields)


def table_spec(index: VectorIndexShape | None) -> dict[str, Any]:
    """CreateTable parameters (all but `TableName`): `PK`/`SK` strings, the recency local
    secondary index, on-demand, a stream of new images, and the vector index
    when `index` is given."""
    spec: dict[str, Any] = {
        "AttributeDefinitions": attribute_definitions(index),
        "KeySchema": [dict(element) for element in KEY_SCHEMA],
        "LocalSecondaryIndexes": [recency_index_spec()],
        "BillingMode": BILLING_MODE,
        "StreamSpecification": {"StreamEnabled": True, "StreamViewType": STREAM_VIEW_TYPE},
    }
    if index is not None:
        spec["VectorIndexes"] = [index_spec(index)]
    return spec


def ttl_spec() -> dict[str, Any]:
    """The table's TimeToLiveSpecification: DynamoDB expires items through `expires_at`."""
    return {"AttributeName": EXPIRES_AT, "Enabled": True}


def recency_index_spec() -> dict[str, Any]:
    """The recency index (see `items.recency`): a local secondary index sorting each
    partition by `recency`, projecting `ITEM_ATTRIBUTES`."""
    return {
        "IndexName": RECENCY_INDEX,
        "KeySchema": [
            {"AttributeName": PK, "KeyType": "HASH"},
            {"AttributeName": RECENCY, "KeyType": "RANGE"},
        ],
        "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": list(ITEM_ATTRIBUTES)},
    }


def index_spec(index: VectorIndexShape) -> dict[str, Any]:
    """The vector index this store needs: HASH on the partition key, everything projected
    (so one SearchVectors answers with whole values)."""
    return {
        "IndexName": index.index_name,
        "VectorAttribute": {"AttributeName": VECTOR},
        "Dimensions": index.dims,
        "DistanceFunction": index.distance_function,
        "Projection": {"ProjectionType": "ALL"},
        "SearchSchema": [
            {"AttributeName": PK, "SearchSchemaElementType": "HASH"},
            *(
                {"AttributeName": name, "SearchSchemaElementType": "INLINE_FILTER"}
                for name in index.filter_attributes
            ),
        ],
    }


def attribute_definitions(index: VectorIndexShape | None) -> list[dict[str, str]]:
    """Key, recency index and search-schema attributes the table must define."""
    filters = index.filter_attributes if index is not None else ()
    return [
        {"AttributeName": PK, "AttributeType": "S"},
        {"AttributeName": SK, "AttributeType": "S"},
        {"AttributeName": RECENCY, "AttributeType": "S"},
        *({"AttributeName": name, "AttributeType": "S"} for name in filters),
    ]
