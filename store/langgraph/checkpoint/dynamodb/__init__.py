"""LangGraph checkpointer on the DynamoDB table of `langgraph.store.dynamodb`: short-term
memory (threads) next to long-term memory (the store), on one table. Imported only as
`langgraph.checkpoint.dynamodb`.

May import: `table`.
"""

from langgraph.store.dynamodb.table.thread_keys import KeyTooLongError

from .access import ThreadFullError
from .rows import UnserializableValueError
from .saver import CheckpointTTL, DynamoDBSaver

__all__ = [
    "CheckpointTTL",
    "DynamoDBSaver",
    "KeyTooLongError",
    "ThreadFullError",
    "UnserializableValueError",
]
