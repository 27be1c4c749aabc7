"""Serverless long-term memory for LangGraph agents on one DynamoDB table."""

from .errors import NamespaceFullError, TableNotFoundError
from .store import DynamoDBStore
from .vector_index import VectorIndexUnsupportedError

__all__ = [
    "DynamoDBStore",
    "NamespaceFullError",
    "TableNotFoundError",
    "VectorIndexUnsupportedError",
]
