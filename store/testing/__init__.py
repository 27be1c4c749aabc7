"""Offline emulation of DynamoDB vector indexes, Bedrock embeddings and the stream consumer.

``from store.testing import mock_aws`` in place of ``from moto import mock_aws`` is all a
test changes. See :func:`mock_aws`, :func:`local_endpoint`, :class:`EmulatorSettings`.
"""

from ._settings import EmulatorSettings, current_settings
from .embedder import LexicalEmbedder, LexicalEmbeddings
from .mock import EmulatedMockAWS, local_endpoint, mock_aws

__all__ = [
    "EmulatedMockAWS",
    "EmulatorSettings",
    "LexicalEmbedder",
    "LexicalEmbeddings",
    "current_settings",
    "local_endpoint",
    "mock_aws",
]
