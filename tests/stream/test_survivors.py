"""Behaviours a mutation sweep (docs/mutation-testing.md) found unpinned, each pinned
here: how the consumer reads its normalize setting, what identifies a model, what a
re-put removes from extra vector rows, what exhausted retries raise, and how many texts
one embedding call takes."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError
from langchain_core.embeddings import Embeddings
from langgraph.store.dynamodb.embedders.batch import BatchEmbedder, EmbedJob, with_backoff
from langgraph.store.dynamodb.items.model_pin import identify
from langgraph.store.dynamodb.stream.consumer import consumer_from_env
from langgraph.store.dynamodb.table.schema import PK, SK
from langgraph.store.dynamodb.testing import mock_aws

from tests.stream.conftest import (
    DIMS,
    NS,
    TABLE,
    CountingEmbeddings,
    stream_setup,
)


@pytest.mark.parametrize(("value", "normalize"), [("true", True), ("TRUE", True), ("false", False)])
def test_the_consumer_reads_normalize_as_true_or_false(value: str, normalize: bool) -> None:
    env = {"TABLE_NAME": TABLE, "EMBEDDING_MODEL_ID": "amazon.titan-embed-text-v2:0"}
    consumer = consumer_from_env({**env, "EMBEDDING_DIMS": "256", "EMBEDDING_NORMALIZE": value})
    assert consumer._embeddings.normalize is normalize  # type: ignore[union-attr]


@pytest.mark.parametrize("value", ["yes", "1", ""])
def test_any_other_normalize_value_is_refused(value: str) -> None:
    env = {"TABLE_NAME": TABLE, "EMBEDDING_MODEL_ID": "amazon.titan-embed-text-v2:0"}
    with pytest.raises(ValueError, match="EMBEDDING_NORMALIZE"):
        consumer_from_env({**env, "EMBEDDING_DIMS": "256", "EMBEDDING_NORMALIZE": value})


class NamedModel(Embeddings):
    """An embedder naming its model as HuggingFace's do (`model_name`)."""

    def __init__(self, model_name: str) -> None:
        self.model_name = model_name

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[1.0] * DIMS for _ in texts]

    def embed_query(self, text: str) -> list[float]:
        return [1.0] * DIMS


def test_two_models_of_one_class_differ_by_model_name() -> None:
    assert identify(NamedModel("all-MiniLM-L6-v2"), DIMS) != identify(NamedModel("e5-small"), DIMS)


def test_a_reput_that_drops_a_filter_field_drops_it_from_the_extra_rows() -> None:
    with mock_aws():
        setup = stream_setup(fields=["text", "notes"], filter_fields=["kind"])
        store = setup.store
        value = {"text": "alpha", "notes": "walrus ukulele"}
        store.put(NS, "m", {**value, "kind": "todo"})
        assert setup.drain().ok
        store.put(NS, "m", value)  # same texts, no kind any more
        assert setup.drain().ok
        rows = store.client.query(
            TableName=TABLE,
            KeyConditionExpression="#pk = :pk AND begins_with(#sk, :v)",
            ExpressionAttributeNames={"#pk": PK, "#sk": SK},
            ExpressionAttributeValues={":pk": {"S": ".".join(NS)}, ":v": {"S": "v#m#"}},
        )["Items"]
        assert rows and all("filter_kind" not in row for row in rows), rows


def test_exhausted_throttling_retries_raise_the_throttling_error() -> None:
    def throttled() -> list[list[float]]:
        raise ClientError(
            {"Error": {"Code": "ThrottlingException", "Message": "slow down"}}, "InvokeModel"
        )

    with pytest.raises(ClientError, match="ThrottlingException"):
        with_backoff(throttled)


@pytest.mark.parametrize(("jobs", "calls"), [(96, 1), (97, 2)])
def test_one_call_embeds_a_full_batch(jobs: int, calls: int) -> None:
    embeddings = CountingEmbeddings()
    embedder = BatchEmbedder(embeddings, dims=DIMS, batch_size=96)
    work: list[Any] = [
        EmbedJob(pk="p", sk=f"k#{n}", texts=(f"text {n}",), digest="d") for n in range(jobs)
    ]
    embedder.embed(work)
    assert embeddings.calls == calls
