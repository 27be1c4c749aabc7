"""Model pinning: one embedding model per vector index, recorded in the table.

`setup()` writes a metadata row naming the model (provider, model id, dims, normalize)
that fills the index; a store, consumer or reindex with another model is refused at
once, because vectors of two models cannot be compared and would silently corrupt
rankings. `reindex(..., adopt_model=True)` is the way to move an index to a new model.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError
from langchain_core.embeddings import Embeddings
from langgraph.store.dynamodb.table import dynamo
from langgraph.store.dynamodb.table.schema import (
    META_PK,
    PIN_DIMS,
    PIN_FIELDS,
    PIN_MODEL,
    PIN_NORMALIZE,
    PIN_PREFIX,
    PIN_PROVIDER,
    PK,
    SK,
)

logger = logging.getLogger(__name__)

BEDROCK = "bedrock"
# How long a store trusts its last check of the table's pinned model.
PIN_CHECK_SECONDS = 60.0
# How long after its pin check is due a store's write under the old pin may still land
# (an embedding call and the write, retries included): what `reindex(adopt_model=True)`
# waits beyond `PIN_CHECK_SECONDS` before it looks for such writes.
OLD_PIN_WRITE_GRACE_SECONDS = 30.0


@dataclass(frozen=True)
class ModelIdentity:
    """What makes two embedding models' vectors comparable."""

    provider: str
    model: str
    dims: int
    normalize: bool

    def __str__(self) -> str:
        return f"{self.provider} {self.model!r} ({self.dims} dims, normalize={self.normalize})"

    @property
    def key(self) -> str:
        """A stable string for content hashes: vectors are valid while this matches."""
        return f"{self.provider}|{self.model}|{self.dims}|{int(self.normalize)}"


def identify(embeddings: Embeddings, dims: int) -> ModelIdentity:
    """The identity of a LangChain embedder: Bedrock models by model id, anything else by
    its class (its own `PINNED_AS` when it declares one; and `model`/`model_name` attribute
    when it has one)."""
    model_id = getattr(embeddings, "model_id", None)
    if type(embeddings).__name__ == "BedrockEmbeddings" and isinstance(model_id, str):
        return ModelIdentity(BEDROCK, model_id, dims, bool(getattr(embeddings, "normalize", False)))
    kind = type(embeddings)
    func = getattr(embeddings, "func", None)  # langgraph's wrapper around a plain function
    target = func if callable(func) else kind
    provider = vars(kind).get("PINNED_AS") or (
        f"{target.__module__}.{getattr(target, '__qualname__', kind.__qualname__)}"
    )
    model = next(
        (
            value
            for name in ("model", "model_name", "model_id")
            if isinstance(value := getattr(embeddings, name, None), str)
        ),
        "",
    )
    return ModelIdentity(provider, model, dims, False)


def pin_key(index_name: str) -> dict[str, str]:
    """The metadata row pinning the model of one vector index."""
    return {PK: META_PK, SK: PIN_PREFIX + index_name}


def read_pin(client: Any, table: str, index_name: str) -> dict[str, Any] | None:
    """The pinned model row of an index (None when nothing is pinned yet)."""
    response = client.get_item(
        TableName=table, Key=dynamo.serialize(pin_key(index_name)), ConsistentRead=True
    )
    item = response.get("Item")
    return dynamo.deserialize(item) if item else None


def identity_of(pin: dict[str, Any]) -> ModelIdentity:
    """The model a pin row names."""
    return ModelIdentity(
        str(pin[PIN_PROVIDER]), str(pin[PIN_MODEL]), int(pin[PIN_DIMS]), bool(pin[PIN_NORMALIZE])
    )


class ModelMismatchError(ValueError):
    """A store, consumer or reindex uses another model than the one the index holds."""


def mismatch(table: str, index_name: str, pinned: ModelIdentity, mine: ModelIdentity) -> str:
    """The refusal message: both models and the ways out."""
    return (
        f"Vector index {index_name!r} on table {table} holds vectors of {pinned}, but this "
        f"store is configured with {mine}. Vectors of two models cannot be compared. Use "
        f"the pinned model, or move the index to the new one with "
        f"`langgraph.store.dynamodb.jobs.reindex(store, adopt_model=True)`, which re-pins the "
        f"model and re-embeds every item."
    )


def ensure_pin(
    client: Any, table: str, index_name: str, identity: ModelIdentity, fields: tuple[str, ...]
) -> bool:
    """Pin `identity` if the index has no model yet (True when this call pinned it);
    raise `ModelMismatchError` if another model is pinned. Reads first, so a store on a
    pinned table (the usual case, and the only one for a read-only or tenant principal)
    never writes the shared pin row."""
    pin = read_pin(client, table, index_name)
    if pin is None:
        try:
            client.put_item(
                TableName=table,
                Item=_pin_item(index_name, identity, fields),
                ConditionExpression="attribute_not_exists(#pk)",
                ExpressionAttributeNames={"#pk": PK},
            )
            logger.info("Pinned embedding model %s for index %s of %s", identity, index_name, table)
            return True
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
        pin = read_pin(client, table, index_name)
    if pin is not None:
        check_pin(table, index_name, pin, identity)
    return False


def check_pin(table: str, index_name: str, pin: dict[str, Any], identity: ModelIdentity) -> None:
    """Raise `ModelMismatchError` unless the pin names `identity`."""
    pinned = identity_of(pin)
    if pinned != identity:
        raise ModelMismatchError(mismatch(table, index_name, pinned, identity))


def repin(
    client: Any, table: str, index_name: str, identity: ModelIdentity, fields: tuple[str, ...]
) -> None:
    """Pin `identity` whatever was pinned before (only `reindex(adopt_model=True)` does)."""
    client.put_item(TableName=table, Item=_pin_item(index_name, identity, fields))


def _pin_item(index_name: str, identity: ModelIdentity, fields: tuple[str, ...]) -> Any:
    return dynamo.serialize(
        {
            **pin_key(index_name),
            PIN_PROVIDER: identity.provider,
            PIN_MODEL: identity.model,
            PIN_DIMS: identity.dims,
            PIN_NORMALIZE: identity.normalize,
            PIN_FIELDS: list(fields),
        }
    )
