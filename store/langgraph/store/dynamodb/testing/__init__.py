"""Offline emulation of DynamoDB vector indexes, Bedrock embeddings and the stream consumer.

``from langgraph.store.dynamodb.testing import mock_aws`` in place of
``from moto import mock_aws`` is all a test changes. See :func:`mock_aws`,
:func:`local_endpoint`, :func:`local_endpoint_process`, :class:`EmulatorSettings`;
:class:`ScriptedChatModel` plays an agent's chat model without an LLM. The Lambdas run on
the emulation as AWS runs them: :func:`drain_stream` (the stream's) and
:func:`drain_queue` (the extraction queue's), or in the background (:func:`run_consumer`,
:func:`run_queue`); :func:`advance_queue` lets a delayed message's time pass.
"""

from langgraph.store.dynamodb.testing._moto_compat import IncompatibleMotoError, incompatible
from langgraph.store.dynamodb.testing.chat import ScriptedChatModel, tool_call

try:
    from langgraph.store.dynamodb.embedders.lexical import LexicalEmbedder, LexicalEmbeddings
    from langgraph.store.dynamodb.testing._settings import EmulatorSettings, current_settings
    from langgraph.store.dynamodb.testing.mock import (
        EmulatedMockAWS,
        local_endpoint,
        local_endpoint_process,
        mock_aws,
    )
    from langgraph.store.dynamodb.testing.queues import (
        BackgroundQueue,
        QueueReport,
        advance_queue,
        drain_queue,
        run_queue,
    )
    from langgraph.store.dynamodb.testing.streams import (
        BackgroundConsumer,
        DrainReport,
        LambdaContext,
        drain_stream,
        matches_filter,
        run_consumer,
    )
    from langgraph.store.dynamodb.testing.tables import emulated_regions, emulated_tables
    from langgraph.store.dynamodb.testing.ttl import TTL_USER_IDENTITY, expire_ttl_items
except ImportError as error:
    # A moto without a module or name the emulation imports: say which moto, and the range.
    if isinstance(error, IncompatibleMotoError) or not (error.name or "").startswith("moto"):
        raise
    raise incompatible(str(error)) from error

__all__ = [
    "TTL_USER_IDENTITY",
    "BackgroundConsumer",
    "BackgroundQueue",
    "DrainReport",
    "EmulatedMockAWS",
    "EmulatorSettings",
    "IncompatibleMotoError",
    "LambdaContext",
    "LexicalEmbedder",
    "LexicalEmbeddings",
    "QueueReport",
    "ScriptedChatModel",
    "advance_queue",
    "current_settings",
    "drain_queue",
    "drain_stream",
    "emulated_regions",
    "emulated_tables",
    "expire_ttl_items",
    "local_endpoint",
    "local_endpoint_process",
    "matches_filter",
    "mock_aws",
    "run_consumer",
    "run_queue",
    "tool_call",
]
