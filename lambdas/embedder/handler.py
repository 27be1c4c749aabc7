"""Lambda entry point of the stream consumer: all logic lives in the library.

Configured by the CDK stack through environment variables (see
`langgraph.store.dynamodb.stream.consumer.consumer_from_env`); its event source mapping uses
`langgraph.store.dynamodb.stream.consumer.filter_criteria()`.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from langgraph.store.dynamodb.stream.consumer import StreamConsumer, consumer_from_env


@cache
def _consumer() -> StreamConsumer:
    return consumer_from_env()


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Embed a batch of stream records; answers with Lambda's partial batch failures."""
    response: dict[str, Any] = _consumer().handle(event, context)
    return response
