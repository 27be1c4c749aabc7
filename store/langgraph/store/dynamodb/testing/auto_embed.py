"""The stream consumer behind ``local_endpoint``: embeds stream-mode writes on its own.

It finds every emulated table with a pinned embedding model (the row ``setup()`` writes)
and drains its stream through the library's :class:`StreamConsumer`, with the event
source filter, embedding with the pinned model: Bedrock models through the emulated
Bedrock behind the same endpoint, the local lexical model directly. Users change nothing
but ``embed_on="stream"``. While an in-process ``mock_aws`` is active (the emulation's
state is global to the process) it stands aside: such tests drive the stream themselves
with ``drain_stream``.
"""

from __future__ import annotations

import logging

from langchain_core.embeddings import Embeddings
from langgraph.store.dynamodb.embedders.build import bedrock_embeddings
from langgraph.store.dynamodb.embedders.lexical import LexicalEmbeddings
from langgraph.store.dynamodb.items.model_pin import BEDROCK, ModelIdentity
from langgraph.store.dynamodb.stream.consumer import FILTER_PATTERNS, StreamConsumer
from langgraph.store.dynamodb.table.schema import PIN_PREFIX
from langgraph.store.dynamodb.testing import _vector as v
from langgraph.store.dynamodb.testing._poller import Poller
from langgraph.store.dynamodb.testing.streams import drain_stream
from moto.core.models import MockAWS
from moto.dynamodb.models import dynamodb_backends

logger = logging.getLogger(__name__)

LEXICAL = LexicalEmbeddings.PINNED_AS
CONSUMER_ID = "embedder"


Pinned = tuple[str, str, str, ModelIdentity, str]


def pinned_indexes() -> list[Pinned]:
    """(region, table, index name, model, table identity) of every emulated index with a
    pinned model; the identity changes when a table of that name is created anew."""
    found = []
    with v.LOCK:
        for account, region, table, partition in v.streamed_meta(dynamodb_backends):
            for sort_key, item in list(partition.items()):
                name = str(sort_key.value)
                if not name.startswith(PIN_PREFIX):
                    continue
                attrs = item.attrs
                model = ModelIdentity(
                    provider=attrs["provider"].value,
                    model=attrs["model"].value,
                    dims=int(attrs["dims"].value),
                    normalize=bool(attrs["normalize"].value),
                )
                identity = f"{account}/{table.created_at.isoformat()}"
                found.append((region, table.name, name[len(PIN_PREFIX) :], model, identity))
    return found


class AutoEmbedder(Poller):
    """Polls for pinned tables and drains their streams through the consumer."""

    def __init__(self, endpoint_url: str, *, interval: float = 0.05, skip: set[str]) -> None:
        super().__init__(interval, "auto-embedder")
        self.endpoint_url = endpoint_url
        self.skip = skip
        self.errors: list[BaseException] = []
        self._consumers: dict[Pinned, StreamConsumer | None] = {}

    def poll(self) -> None:
        """Drain every pinned table's stream once."""
        if MockAWS._nested_count > 0:
            return
        for pinned in pinned_indexes():
            region, table, index_name, _, _ = pinned
            if table in self.skip:
                continue
            consumer = self._consumer(pinned)
            if consumer is None:
                continue
            try:
                drain_stream(
                    table,
                    consumer.handle,
                    filter_patterns=FILTER_PATTERNS,
                    region=region,
                    consumer_id=f"{CONSUMER_ID}:{index_name}",
                )
            except LookupError:
                pass  # the table went away meanwhile
            except Exception as error:  # keep consuming; surface it to tests
                self.errors.append(error)
                logger.warning("Stream consumer for %s failed: %s", table, error)

    def _consumer(self, key: Pinned) -> StreamConsumer | None:
        region, table, index_name, model, _ = key
        if key not in self._consumers:
            embeddings = runnable_embeddings(model, region, self.endpoint_url)
            if embeddings is None:
                logger.warning(
                    "Table %s pins %s, which the emulation cannot run: pass "
                    "local_endpoint(consumers={%r: handler}) to embed its writes.",
                    table,
                    model,
                    table,
                )
                self._consumers[key] = None
                return None
            self._consumers[key] = StreamConsumer(
                table,
                embeddings=embeddings,
                index_name=index_name,
                region_name=region,
                endpoint_url=self.endpoint_url,
            )
        return self._consumers[key]


def runnable_embeddings(model: ModelIdentity, region: str, endpoint_url: str) -> Embeddings | None:
    """Embeddings of a pinned `model` the emulation runs: the lexical model locally,
    Bedrock's through the emulated Bedrock at `endpoint_url`; None for any other."""
    if model.provider == LEXICAL:
        return LexicalEmbeddings(model.dims)
    if model.provider == BEDROCK:
        return bedrock_embeddings(
            model.model, model.dims, model.normalize, region_name=region, endpoint_url=endpoint_url
        )
    return None
