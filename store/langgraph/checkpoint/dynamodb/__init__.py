"""LangGraph checkpointer on the DynamoDB table of `langgraph.store.dynamodb`: short-term
memory (threads) next to long-term memory (the store), on one table. Imported only as
`langgraph.checkpoint.dynamodb`.

May import: `table`.
"""

from langgraph.checkpoint.dynamodb.access import ThreadFullError
from langgraph.checkpoint.dynamodb.calls import CheckpointTTL
from langgraph.checkpoint.dynamodb.rows import UnserializableValueError
from langgraph.checkpoint.dynamodb.saver import DynamoDBSaver
from langgraph.store.dynamodb.table.thread_keys import KeyTooLongError

__all__ = [
    "CheckpointTTL",
    "DynamoDBSaver",
    "KeyTooLongError",
    "ThreadFullError",
    "UnserializableValueError",
]
