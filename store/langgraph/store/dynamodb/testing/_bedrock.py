"""Bedrock runtime ``InvokeModel`` for the embedding models the project supports."""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable
from typing import Any

from langgraph.store.dynamodb.embedders.lexical import LexicalEmbedder
from langgraph.store.dynamodb.testing._moto_compat import check_targets
from moto.bedrockruntime.models import BedrockRuntimeBackend
from moto.core.exceptions import ServiceException

TITAN_V2 = "amazon.titan-embed-text-v2:0"
TITAN_V1 = "amazon.titan-embed-text-v1"
COHERE_MODELS = ("cohere.embed-english-v3", "cohere.embed-multilingual-v3")
TITAN_V2_DIMS = (256, 512, 1024)
TITAN_V2_MAX_CHARS = 50_000  # "up to 8,192 tokens or 50,000 characters" (Bedrock user guide)
COHERE_INPUT_TYPES = ("search_document", "search_query", "classification", "clustering")
SUPPORTED_MODELS = (TITAN_V2, TITAN_V1, *COHERE_MODELS)

_embedder = LexicalEmbedder()


class BedrockValidationError(ServiceException):
    code = "ValidationException"


def _malformed(detail: str) -> BedrockValidationError:
    return BedrockValidationError(
        f"Malformed input request: {detail}, please reformat your input and try again."
    )


def _model_name(model_id: str) -> str:
    # Accept foundation-model ARNs as Bedrock does.
    if model_id.startswith("arn:") and "/" in model_id:
        return model_id.rsplit("/", 1)[1]
    return model_id


def _titan(payload: dict[str, Any], v2: bool) -> dict[str, Any]:
    allowed = {"inputText", "dimensions", "normalize", "embeddingTypes"} if v2 else {"inputText"}
    extra = sorted(set(payload) - allowed)
    if extra:
        raise _malformed(f"extraneous key [{extra[0]}] is not permitted")
    if "inputText" not in payload:
        raise _malformed("#: required key [inputText] not found")
    text = payload["inputText"]
    if not isinstance(text, str):
        raise _malformed(f"#/inputText: expected type: String, found: {type(text).__name__}")
    if not text:
        raise _malformed("#/inputText: expected minLength: 1, actual: 0")
    if v2 and len(text) > TITAN_V2_MAX_CHARS:
        raise _malformed(
            f"#/inputText: expected maxLength: {TITAN_V2_MAX_CHARS}, actual: {len(text)}"
        )
    dims = 1536
    normalize = True
    if v2:
        dims = payload.get("dimensions", 1024)
        if dims not in TITAN_V2_DIMS:
            raise _malformed(f"#/dimensions: {dims} is not a valid enum value")
        normalize = payload.get("normalize", True)
        if not isinstance(normalize, bool):
            raise _malformed("#/normalize: expected type: Boolean")
    vector = _embedder.embed(text, dims) if normalize else _embedder.embed_raw(text, dims)
    return {"embedding": vector, "inputTextTokenCount": _embedder.token_count(text)}


def _cohere(payload: dict[str, Any]) -> dict[str, Any]:
    texts = payload.get("texts")
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise _malformed("#: required key [texts] not found")
    if not 0 < len(texts) <= 96:
        raise _malformed(f"#/texts: expected maxItems: 96, actual: {len(texts)}")
    input_type = payload.get("input_type")
    if input_type not in COHERE_INPUT_TYPES:
        raise _malformed(
            "#/input_type: "
            + (
                f"{input_type} is not a valid enum value"
                if input_type
                else "required key [input_type] not found"
            )
        )
    vectors = [_embedder.embed(t, 1024) for t in texts]
    types = payload.get("embedding_types")
    if types:
        if "float" not in types:
            raise _malformed("#/embedding_types: only 'float' is emulated")
        return {
            "embeddings": {"float": vectors},
            "id": str(uuid.uuid4()),
            "response_type": "embeddings_by_type",
            "texts": texts,
        }
    return {
        "embeddings": vectors,
        "id": str(uuid.uuid4()),
        "response_type": "embeddings_floats",
        "texts": texts,
    }


def invoke_embedding_model(model_id: str, payload: Any) -> dict[str, Any]:
    """The response body Bedrock returns for ``model_id`` (raises ValidationException)."""
    name = _model_name(model_id)
    if name not in SUPPORTED_MODELS:
        raise BedrockValidationError("The provided model identifier is invalid.")
    if not isinstance(payload, dict):
        raise _malformed("#: expected type: JSONObject")
    if name == TITAN_V2:
        return _titan(payload, v2=True)
    if name == TITAN_V1:
        return _titan(payload, v2=False)
    return _cohere(payload)


check_targets([(BedrockRuntimeBackend, "invoke_model", ("self", "payload", "model_id"))])


def install() -> None:
    original: Callable[..., Any] = BedrockRuntimeBackend.invoke_model
    if getattr(original, "__emulated__", False):
        return

    @functools.wraps(original)
    def invoke_model(self: BedrockRuntimeBackend, payload: Any, model_id: str) -> Any:
        return invoke_embedding_model(model_id, payload)

    invoke_model.__emulated__ = True  # type: ignore[attr-defined]
    BedrockRuntimeBackend.invoke_model = invoke_model  # type: ignore[method-assign]
