"""Serverless long-term memory for LangGraph agents on one DynamoDB table."""

from .errors import AccessDeniedError, NamespaceFullError, TableNotFoundError
from .model_pin import ModelMismatchError
from .purge import Census, PurgeConflictError, PurgeResult, RowSource
from .reindex import ReindexProgress, ReindexSummary, reindex
from .store import DynamoDBStore
from .vector_index import VectorIndexUnsupportedError

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
