"""Serverless long-term memory for LangGraph agents on one DynamoDB table."""

from langgraph.store.dynamodb.items.model_pin import ModelMismatchError
from langgraph.store.dynamodb.jobs.purge import Census, PurgeConflictError, PurgeResult
from langgraph.store.dynamodb.jobs.reindex import ReindexProgress, ReindexSummary, reindex
from langgraph.store.dynamodb.memory.store import DynamoDBStore
from langgraph.store.dynamodb.memory.vector_index import VectorIndexUnsupportedError
from langgraph.store.dynamodb.table.errors import (
    AccessDeniedError,
    NamespaceFullError,
    TableNotFoundError,
)
from langgraph.store.dynamodb.table.row_sources import RowSource

__all__ = [
    "AccessDeniedError",
    "Census",
    "DynamoDBStore",
    "ModelMismatchError",
    "NamespaceFullError",
    "PurgeConflictError",
    "PurgeResult",
    "ReindexProgress",
    "ReindexSummary",
    "RowSource",
    "TableNotFoundError",
    "VectorIndexUnsupportedError",
    "reindex",
]
