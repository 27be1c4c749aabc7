"""The Bedrock embedding models the stream consumer can call, and the rule for a model id.

The consumer embeds through `langchain_aws.BedrockEmbeddings`, which shapes each request
for the model's provider; the consumer sends text only. So a model id it can call is:

- an Amazon Titan Embed or Cohere Embed model id (`amazon.titan-embed-*`, `cohere.embed-*`),
- the same behind a cross-region inference profile (`us.`, `eu.`, `global.`, ... + the id),
- or a foundation-model ARN of one (`arn:aws:bedrock:<region>::foundation-model/<id>`).

An inference profile ARN is refused (give the profile id): the stack grants the profile's
foundation model from the id. For the models listed in `MODEL_DIMS`, `dims` must also be
one the model returns as the consumer calls it.
"""

from __future__ import annotations

import re

from langgraph.store.dynamodb.table.errors import InvalidSettingError

# Inference profiles name a foundation model behind a geographic prefix.
PROFILE_PREFIXES = ("us.", "us-gov.", "eu.", "apac.", "jp.", "au.", "ca.", "global.")
# The dimensions each model returns as the consumer calls it (only Titan Text v2 is asked
# for a size: `dimensions`).
MODEL_DIMS: dict[str, tuple[int, ...]] = {
    "amazon.titan-embed-text-v1": (1536,),
    "amazon.titan-embed-text-v2:0": (256, 512, 1024),
    "amazon.titan-embed-image-v1": (1024,),
    "cohere.embed-english-v3": (1024,),
    "cohere.embed-multilingual-v3": (1024,),
    "cohere.embed-v4:0": (1536,),
}
EMBEDDING_MODEL = re.compile(r"(amazon\.titan-embed|cohere\.embed)-[a-z0-9-]+(:[0-9]+)?")
FOUNDATION_MODEL_ARN = re.compile(
    r"arn:aws[a-z-]*:bedrock:[a-z0-9-]+::foundation-model/(?P<model>[^/]+)"
)


def foundation_model(model_id: str) -> str:
    """The foundation model a model id, inference profile id or foundation-model ARN names
    (`us.amazon.titan-embed-text-v2:0` -> `amazon.titan-embed-text-v2:0`)."""
    arn = FOUNDATION_MODEL_ARN.fullmatch(model_id)
    if arn is not None:
        return arn["model"]
    if model_id.startswith(PROFILE_PREFIXES):
        return model_id.split(".", 1)[1]
    return model_id


def check_embedding_model(model_id: str, dims: int) -> None:
    """Raise `InvalidSettingError` (key `model_id` or `dims`) unless the consumer can call
    `model_id` and the model returns `dims`-dimensional vectors."""
    model = foundation_model(model_id)
    if model_id.startswith("arn:") and model == model_id:
        raise InvalidSettingError(
            "model_id",
            model_id,
            "must be a foundation-model ARN (arn:aws:bedrock:<region>::foundation-model/<id>); "
            "for an inference profile give its id instead (e.g. us.amazon.titan-embed-text-v2:0)",
        )
    if not EMBEDDING_MODEL.fullmatch(model):
        raise InvalidSettingError(
            "model_id",
            model_id,
            "must name a Bedrock text embedding model the stream consumer can call, Amazon "
            "Titan Embed or Cohere Embed (e.g. amazon.titan-embed-text-v2:0, "
            "cohere.embed-english-v3, or us.amazon.titan-embed-text-v2:0 through an "
            "inference profile)",
        )
    known = MODEL_DIMS.get(model)
    if known is not None and dims not in known:
        choices = ", ".join(str(n) for n in known)
        raise InvalidSettingError("dims", dims, f"must be what {model} returns: {choices}")
