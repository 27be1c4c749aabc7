"""Bedrock InvokeModel emulation (both modes), LangChain's BedrockEmbeddings, the embedder."""

from __future__ import annotations

import json
import math
import uuid
from typing import Any

import numpy as np
import pytest
from botocore.exceptions import ClientError
from langchain_aws import BedrockEmbeddings
from langgraph.store.dynamodb.testing import LexicalEmbedder, LexicalEmbeddings


def invoke(emu: Any, model_id: str, body: dict[str, Any]) -> dict[str, Any]:
    client = emu.client("bedrock-runtime")
    response = client.invoke_model(
        modelId=model_id,
        body=json.dumps(body),
        contentType="application/json",
        accept="application/json",
    )
    result: dict[str, Any] = json.loads(response["body"].read())
    return result


def norm(v: list[float]) -> float:
    return math.sqrt(sum(x * x for x in v))


@pytest.mark.parametrize("dims", [256, 512, 1024])
def test_titan_v2_dimensions(emu: Any, dims: int) -> None:
    out = invoke(
        emu, "amazon.titan-embed-text-v2:0", {"inputText": "hello, world!", "dimensions": dims}
    )
    assert out["embedding"] == pytest.approx(LexicalEmbedder().embed("hello, world!", dims))
    assert len(out["embedding"]) == dims
    assert out["inputTextTokenCount"] == 4  # hello , world !
    assert norm(out["embedding"]) == pytest.approx(1.0)


def test_titan_v2_defaults_and_normalize_false(emu: Any) -> None:
    out = invoke(emu, "amazon.titan-embed-text-v2:0", {"inputText": "hello world"})
    assert len(out["embedding"]) == 1024
    raw = invoke(
        emu, "amazon.titan-embed-text-v2:0", {"inputText": "hello world", "normalize": False}
    )
    expected = LexicalEmbedder().embed_raw("hello world", 1024)
    assert raw["embedding"] == pytest.approx(expected)
    assert norm(raw["embedding"]) == pytest.approx(norm(expected))
    assert norm(expected) != pytest.approx(1.0)  # the raw vector really is unnormalised


def test_titan_v2_rejects_bad_dimensions(emu: Any) -> None:
    with pytest.raises(ClientError) as exc:
        invoke(emu, "amazon.titan-embed-text-v2:0", {"inputText": "x", "dimensions": 384})
    assert exc.value.response["Error"]["Code"] == "ValidationException"


def test_titan_v2_takes_at_most_50000_characters(emu: Any) -> None:
    assert invoke(emu, "amazon.titan-embed-text-v2:0", {"inputText": "a " * 25_000})
    with pytest.raises(ClientError) as exc:
        invoke(emu, "amazon.titan-embed-text-v2:0", {"inputText": "a " * 25_000 + "b"})
    assert exc.value.response["Error"]["Code"] == "ValidationException"
    assert "maxLength: 50000, actual: 50001" in exc.value.response["Error"]["Message"]


def test_titan_v1(emu: Any) -> None:
    out = invoke(emu, "amazon.titan-embed-text-v1", {"inputText": "hello"})
    assert len(out["embedding"]) == 1536


@pytest.mark.parametrize("model", ["cohere.embed-english-v3", "cohere.embed-multilingual-v3"])
def test_cohere(emu: Any, model: str) -> None:
    out = invoke(emu, model, {"texts": ["a cat", "a dog"], "input_type": "search_document"})
    assert out["response_type"] == "embeddings_floats"
    assert out["texts"] == ["a cat", "a dog"]
    assert [len(e) for e in out["embeddings"]] == [1024, 1024]
    assert out["embeddings"][0] == pytest.approx(LexicalEmbedder().embed("a cat", 1024))
    again = invoke(emu, model, {"texts": ["a cat"], "input_type": "search_query"})
    assert uuid.UUID(out["id"]).version == 4  # a fresh request id each call, as Bedrock's
    assert uuid.UUID(again["id"]).version == 4 and again["id"] != out["id"]


def test_unknown_model(emu: Any) -> None:
    with pytest.raises(ClientError) as exc:
        invoke(emu, "amazon.nope-v9", {"inputText": "x"})
    assert exc.value.response["Error"]["Code"] == "ValidationException"
    assert exc.value.response["Error"]["Message"] == "The provided model identifier is invalid."


@pytest.mark.parametrize(
    ("model", "dims"),
    [
        ("amazon.titan-embed-text-v2:0", 1024),
        ("cohere.embed-english-v3", 1024),
        ("amazon.titan-embed-text-v1", 1536),
    ],
)
def test_langchain_bedrock_embeddings_unmodified(emu: Any, model: str, dims: int) -> None:
    embeddings = BedrockEmbeddings(
        model_id=model, region_name="us-east-1", endpoint_url=emu.endpoint_url
    )
    docs = embeddings.embed_documents(["idle sockets closed after 60 seconds", "email please"])
    query = embeddings.embed_query("idle sockets closed after 60 seconds")
    assert [len(d) for d in docs] == [dims, dims]
    assert float(np.dot(docs[0], query)) == pytest.approx(1.0, abs=1e-6)
    expected = LexicalEmbedder().embed("idle sockets closed after 60 seconds", dims)
    assert query == pytest.approx(expected)


def test_langchain_titan_v2_with_dimensions(emu: Any) -> None:
    embeddings = BedrockEmbeddings(
        model_id="amazon.titan-embed-text-v2:0",
        region_name="us-east-1",
        endpoint_url=emu.endpoint_url,
        dimensions=256,
    )
    assert len(embeddings.embed_query("hi")) == 256


def test_worked_example_ranks_mem1_first() -> None:
    embedder = LexicalEmbedder()
    memories = {
        "mem-1": "Account runs a proxy that closes idle sockets after 60 seconds",
        "mem-2": "Customer prefers email, asked not to be called by phone",
        "mem-3": "Uses a custom build of the SDK pinned to version 2.14",
    }
    for dims in (256, 512, 1024):
        q = np.array(embedder.embed("connection drops after a minute of inactivity", dims))
        scores = {k: float(q @ np.array(embedder.embed(t, dims))) for k, t in memories.items()}
        ranked = sorted(scores, key=scores.__getitem__, reverse=True)
        assert ranked[0] == "mem-1", (dims, scores)


def test_embedder_deterministic_and_normalized() -> None:
    a = LexicalEmbedder().embed("The Quick brown fox", 64)
    b = LexicalEmbedder().embed("the quick BROWN fox!", 64)
    assert a == b
    assert norm(a) == pytest.approx(1.0)
    assert LexicalEmbedder().embed("a completely different thing", 64) != a


@pytest.mark.parametrize("text", ["", "   ", "!!!", "the of and"])
def test_empty_text_gives_valid_vector(text: str) -> None:
    v = LexicalEmbedder().embed(text, 32)
    assert all(math.isfinite(x) for x in v)
    assert norm(v) == pytest.approx(1.0)


def test_lexical_embeddings_wrapper() -> None:
    emb = LexicalEmbeddings(dims=128)
    assert len(emb.embed_query("x")) == 128
    assert emb.embed_documents(["a b", "a b"])[0] == emb.embed_documents(["a b"])[0]


async def test_lexical_embeddings_async() -> None:
    emb = LexicalEmbeddings(dims=16)
    assert await emb.aembed_query("hello") == emb.embed_query("hello")
