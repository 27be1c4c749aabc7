"""Serverless long-term memory for LangGraph agents on one DynamoDB table."""

from .errors import AccessDeniedError, NamespaceFullError, TableNotFoundError
from .model_pin import ModelMismatchError
from .reindex import ReindexProgress, ReindexSummary, reindex
from .store import DynamoDBStore
from .vector_index import VectorIndexUnsupportedError

__all__ = [
    "AccessDeniedError",
    "DynamoDBStore",
    "ModelMismatchError",
    "NamespaceFullError",
    "ReindexProgress",
    "ReindexSummary",
    "TableNotFoundError",
    "VectorIndexUnsupportedError",
    "reindex",
]
