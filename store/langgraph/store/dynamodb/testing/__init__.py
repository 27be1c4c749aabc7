"""Offline emulation of DynamoDB vector indexes, Bedrock embeddings and the stream consumer.

``from langgraph.store.dynamodb.testing import mock_aws`` in place of
``from moto import mock_aws`` is all a test changes. See :func:`mock_aws`,
:func:`local_endpoint`, :func:`local_endpoint_process`, :class:`EmulatorSettings`;
:class:`ScriptedChatModel` plays an agent's chat model without an LLM.
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
    "DrainReport",
    "EmulatedMockAWS",
    "EmulatorSettings",
    "IncompatibleMotoError",
    "LambdaContext",
    "LexicalEmbedder",
    "LexicalEmbeddings",
    "ScriptedChatModel",
    "current_settings",
    "drain_stream",
    "emulated_regions",
    "emulated_tables",
    "expire_ttl_items",
    "local_endpoint",
    "local_endpoint_process",
    "matches_filter",
    "mock_aws",
    "run_consumer",
    "tool_call",
]
