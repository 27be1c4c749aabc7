"""Serverless long-term memory for LangGraph agents on one DynamoDB table."""

from store.store import DynamoDBStore

__all__ = ["DynamoDBStore"]
