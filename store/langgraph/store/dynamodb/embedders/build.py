"""Every embedder this project builds, built here: by name for the command line and the
config (`embedder`), and for a pinned Bedrock model for the stream consumer
(`bedrock_embeddings`), so a model named the same way is the same model everywhere
(same dimensions, same normalization, same identity for the pin).

Names: `bedrock:<model id>` (Titan, Cohere, behind an id, a profile id or an ARN),
`local:minilm` (all-MiniLM-L6-v2 on the CPU, the `local-embeddings` extra), `lexical`
(the word-overlap stand-in the emulation serves as Bedrock; no extra), or any provider
string LangChain's `init_embeddings` knows.
"""

from __future__ import annotations

from botocore.config import Config
from langchain_core.embeddings import Embeddings
from langgraph.store.dynamodb.embedders.bedrock_models import (
    MODEL_DIMS,
    check_embedding_model,
    foundation_model,
)
from langgraph.store.dynamodb.embedders.lexical import LexicalEmbeddings
from langgraph.store.dynamodb.table.errors import InvalidSettingError

BEDROCK_PREFIX = "bedrock:"
# Dimensions of the local models, so `dims` can be left out for them (Bedrock models'
# come from `bedrock_models.MODEL_DIMS`).
LOCAL_DIMS = {"local:minilm": 384, "lexical": 1024}


def default_dims(name: str) -> int | None:
    """The dimensions the model a name stands for returns by default, when known here
    (the largest a Bedrock model offers, as Bedrock itself defaults to)."""
    if name.startswith(BEDROCK_PREFIX):
        offered = MODEL_DIMS.get(foundation_model(name.removeprefix(BEDROCK_PREFIX)))
        return max(offered) if offered else None
    return LOCAL_DIMS.get(name)


def bedrock_embeddings(
    model_id: str,
    dims: int,
    normalize: bool,
    *,
    region_name: str | None = None,
    endpoint_url: str | None = None,
    credentials_profile_name: str | None = None,
) -> Embeddings:
    """`langchain_aws.BedrockEmbeddings` for `model_id` returning `dims` dimensions, with
    adaptive retries; refuses (`InvalidSettingError`) a model it cannot call (see
    `bedrock_models`)."""
    from langchain_aws import BedrockEmbeddings

    check_embedding_model(model_id, dims)
    model = foundation_model(model_id)
    return BedrockEmbeddings(
        model_id=model_id,
        provider=model.split(".", 1)[0],
        normalize=normalize,
        dimensions=dims if model.startswith("amazon.titan-embed-text-v2") else None,
        region_name=region_name,
        endpoint_url=endpoint_url,
        credentials_profile_name=credentials_profile_name,
        config=Config(retries={"mode": "adaptive", "max_attempts": 8}),
    )


def embedder(
    name: str,
    dims: int | None = None,
    *,
    region_name: str | None = None,
    endpoint_url: str | None = None,
    profile: str | None = None,
) -> Embeddings:
    """The embedder a name stands for (see the module docstring), returning `dims`
    dimensions (default: the model's own, `default_dims`)."""
    dims = dims or default_dims(name)
    if name.startswith(BEDROCK_PREFIX):
        if dims is None:
            raise InvalidSettingError("dims", dims, f"must be given for {name}")
        return bedrock_embeddings(
            name.removeprefix(BEDROCK_PREFIX),
            dims,
            False,
            region_name=region_name,
            # The local emulation serves Bedrock at the DynamoDB endpoint; boto3's
            # AWS_ENDPOINT_URL* variables apply when no endpoint is set here.
            endpoint_url=endpoint_url,
            credentials_profile_name=profile,
        )
    if name == "local:minilm":
        from langgraph.store.dynamodb.embedders.local_embeddings import MiniLMEmbeddings

        return MiniLMEmbeddings()
    if name == "lexical":
        return LexicalEmbeddings(dims=dims or LOCAL_DIMS["lexical"])
    from langgraph.store.base import ensure_embeddings

    try:
        return ensure_embeddings(name)
    except Exception as error:
        raise InvalidSettingError(
            "embed",
            name,
            f"cannot be loaded ({error}): use bedrock:<model id>, local:minilm, lexical, or a "
            "provider string LangChain's init_embeddings knows",
        ) from error
