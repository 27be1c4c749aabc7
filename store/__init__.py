"""Serverless long-term memory for LangGraph agents on one DynamoDB table."""

from .store import DynamoDBStore

__all__ = ["DynamoDBStore"]
