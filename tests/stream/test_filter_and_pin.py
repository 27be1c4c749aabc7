"""The event-source filter pattern's pass/drop table, model pinning, the Lambda handler."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from langchain_aws import BedrockEmbeddings
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.items.model_pin import ModelMismatchError
from langgraph.store.dynamodb.items.rows import key_of
from langgraph.store.dynamodb.stream.consumer import (
    FILTER_PATTERN,
    SWEEP_PATTERN,
    StreamConsumer,
    consumer_from_env,
    filter_criteria,
)
from langgraph.store.dynamodb.table.schema import PENDING
from langgraph.store.dynamodb.testing import (
    LexicalEmbeddings,
    drain_stream,
    expire_ttl_items,
    matches_filter,
    mock_aws,
)
from langgraph.store.dynamodb.testing.mock import patched_env

from tests.stream.conftest import DIMS, NS, TABLE, CountingEmbeddings, make_stream_store


def test_filter_pattern_pass_drop_table() -> None:
    with mock_aws():
        embeddings = CountingEmbeddings()
        store = make_stream_store(embeddings, filter_fields=["kind"])
        store.ttl_config = {"refresh_on_read": True}
        write_mode = DynamoDBStore(
            TABLE,
            region_name="us-east-1",
            index={"dims": DIMS, "embed": embeddings, "fields": ["text"]},
        )
        consumer = StreamConsumer(TABLE, client=store.client, embeddings=embeddings)
        key = {k: {"S": v} for k, v in key_of(NS, "a").items()}

        def records_of(action: Callable[[], Any]) -> list[dict[str, Any]]:
            action()
            seen: list[dict[str, Any]] = []
            drain_stream(TABLE, lambda e, _: seen.extend(e["Records"]), consumer_id="all")
            return seen

        def age() -> None:
            store.client.update_item(
                TableName=TABLE,
                Key=key,
                UpdateExpression="SET expires_at = :e",
                ExpressionAttributeValues={":e": {"N": str(int(time.time()) + 30)}},
            )

        setup_records = records_of(lambda: None)  # the pin row, written by setup()
        assert setup_records and not any(matches_filter(r, [FILTER_PATTERN]) for r in setup_records)
        cases: list[tuple[str, Callable[[], Any], int, int]] = [
            # (what happened, the write, how many of the records it produced pass the
            # embedding pattern, and the sweep pattern)
            ("new item + its namespace", lambda: store.put(NS, "a", {"text": "x"}, ttl=1), 1, 0),
            ("changed text", lambda: store.put(NS, "a", {"text": "y"}, ttl=1), 1, 0),
            ("consumer's own write", lambda: drain_stream(TABLE, consumer.handle), 0, 0),
            ("identical re-put", lambda: store.put(NS, "a", {"text": "y"}, ttl=1), 0, 0),
            (
                "change outside the fields",
                lambda: store.put(NS, "a", {"text": "y", "n": 1}, ttl=1),
                0,
                0,
            ),
            (
                "filter field change",
                lambda: store.put(NS, "a", {"text": "y", "kind": "k"}, ttl=1),
                0,
                0,
            ),
            ("expiry moved (test setup)", age, 0, 0),
            ("TTL refresh on read", lambda: store.get(NS, "a"), 0, 0),
            ("write-mode put", lambda: write_mode.put(NS, "w", {"text": "z"}), 0, 0),
            ("delete", lambda: store.delete(NS, "w"), 0, 0),
            # Of the sweep's deletions, only the item row's passes the sweep pattern.
            ("TTL sweep", lambda: expire_ttl_items(TABLE, now=time.time() + 3600), 0, 1),
        ]
        for what, action, embeds, sweeps in cases:
            records = records_of(action)
            assert records, what
            for pattern, expected in [(FILTER_PATTERN, embeds), (SWEEP_PATTERN, sweeps)]:
                passed = [r for r in records if matches_filter(r, [pattern])]
                assert len(passed) == expected, what
                assert all(r["dynamodb"]["Keys"] == key for r in passed), what
            assert (
                len([r for r in records if matches_filter(r, filter_criteria())]) == embeds + sweeps
            )
        # The event source mapping's FilterCriteria are these same patterns.
        assert matches_filter(
            {"eventName": "INSERT", "dynamodb": {"NewImage": {"embed_pending": {"S": "h"}}}},
            filter_criteria(),
        )
        patterns = [json.loads(f["Pattern"]) for f in filter_criteria()["Filters"]]
        assert patterns == [FILTER_PATTERN, SWEEP_PATTERN]


def test_setup_with_another_model_is_refused() -> None:
    with mock_aws():
        make_stream_store(CountingEmbeddings())
        other = DynamoDBStore(
            TABLE,
            region_name="us-east-1",
            index={"dims": DIMS, "embed": LexicalEmbeddings(DIMS), "fields": ["text"]},
        )
        with pytest.raises(ModelMismatchError) as error:
            other.setup()
        message = str(error.value)
        assert "CountingEmbeddings" in message and "LexicalEmbeddings" in message
        assert "reindex" in message


def test_a_store_that_never_ran_setup_is_refused_before_it_writes_or_searches() -> None:
    with mock_aws():
        titan = BedrockEmbeddings(model_id="amazon.titan-embed-text-v2:0", region_name="us-east-1")
        cohere = BedrockEmbeddings(model_id="cohere.embed-english-v3", region_name="us-east-1")
        DynamoDBStore(TABLE, index={"dims": 1024, "embed": titan, "fields": ["text"]}).setup()
        other = DynamoDBStore(TABLE, index={"dims": 1024, "embed": cohere, "fields": ["text"]})
        with pytest.raises(ModelMismatchError, match=re.escape("cohere.embed-english-v3")):
            other.put(NS, "k", {"text": "written with the wrong model"})
        with pytest.raises(ModelMismatchError, match=re.escape("amazon.titan-embed-text-v2:0")):
            other.search(NS, query="searched with the wrong model")
        titan_store = DynamoDBStore(TABLE, index={"dims": 1024, "embed": titan, "fields": ["text"]})
        assert titan_store.search(NS) == []  # nothing was written


def test_bedrock_models_are_named_in_the_refusal() -> None:
    with mock_aws():
        titan = BedrockEmbeddings(model_id="amazon.titan-embed-text-v2:0", region_name="us-east-1")
        cohere = BedrockEmbeddings(model_id="cohere.embed-english-v3", region_name="us-east-1")
        DynamoDBStore(TABLE, index={"dims": 1024, "embed": titan}).setup()
        with pytest.raises(ModelMismatchError) as error:
            DynamoDBStore(TABLE, index={"dims": 1024, "embed": cohere}).setup()
        assert "amazon.titan-embed-text-v2:0" in str(error.value)
        assert "cohere.embed-english-v3" in str(error.value)


def test_a_bedrock_normalize_switch_is_refused() -> None:
    with mock_aws():
        raw = BedrockEmbeddings(model_id="amazon.titan-embed-text-v2:0", region_name="us-east-1")
        unit = BedrockEmbeddings(
            model_id="amazon.titan-embed-text-v2:0", region_name="us-east-1", normalize=True
        )
        DynamoDBStore(TABLE, index={"dims": 1024, "embed": raw}).setup()
        with pytest.raises(ModelMismatchError, match="normalize=True"):
            DynamoDBStore(TABLE, index={"dims": 1024, "embed": unit}).setup()


def _plain_one(texts: list[str]) -> list[list[float]]:
    return [[1.0] * DIMS for _ in texts]


def _plain_two(texts: list[str]) -> list[list[float]]:
    return [[2.0] * DIMS for _ in texts]


def test_a_switch_between_two_plain_functions_is_refused() -> None:
    with mock_aws():
        DynamoDBStore(
            TABLE, region_name="us-east-1", index={"dims": DIMS, "embed": _plain_one}
        ).setup()
        other = DynamoDBStore(
            TABLE, region_name="us-east-1", index={"dims": DIMS, "embed": _plain_two}
        )
        with pytest.raises(ModelMismatchError, match="_plain_two"):
            other.setup()


def test_setup_on_a_table_with_items_says_to_reindex(caplog: pytest.LogCaptureFixture) -> None:
    with mock_aws():
        DynamoDBStore(TABLE, region_name="us-east-1").setup()
        DynamoDBStore(TABLE, region_name="us-east-1").put(NS, "old", {"text": "before"})
        with caplog.at_level("WARNING"):
            make_stream_store(CountingEmbeddings())
        assert "reindex(store)" in caplog.text


# As the deployed function runs: Lambda's runtime names it, so its metrics print.
IN_LAMBDA = {"AWS_LAMBDA_FUNCTION_NAME": "memory-embedder"}


def test_lambda_handler_embeds_with_bedrock_from_env(capsys: pytest.CaptureFixture[str]) -> None:
    from lambdas.embedder import handler as lambda_handler

    env = {
        "TABLE_NAME": TABLE,
        **IN_LAMBDA,
        "EMBEDDING_MODEL_ID": "amazon.titan-embed-text-v2:0",
        "EMBEDDING_DIMS": "256",
    }
    with mock_aws(), patched_env(env):
        lambda_handler._consumer.cache_clear()
        embed = BedrockEmbeddings(
            model_id="amazon.titan-embed-text-v2:0", dimensions=256, region_name="us-east-1"
        )
        store = DynamoDBStore(
            TABLE,
            region_name="us-east-1",
            index={"dims": 256, "embed": embed, "fields": ["text"], "embed_on": "stream"},
        )
        store.setup()
        store.put(NS, "mem-1", {"text": "Account runs a proxy that closes idle sockets"})
        report = drain_stream(TABLE, lambda_handler.handler, filter_patterns=filter_criteria())
        lambda_handler._consumer.cache_clear()
        assert report.ok and report.delivered == 1
        found = store.search(NS, query="connection drops after idle sockets", limit=1)
        assert [r.key for r in found] == ["mem-1"]
    metrics = [json.loads(line) for line in capsys.readouterr().out.splitlines() if "_aws" in line]
    assert any(
        m.get("RecordsEmbedded") == [1.0] or m.get("RecordsEmbedded") == 1.0 for m in metrics
    )


def test_a_consumer_deployed_with_another_model_fails_its_batches_to_the_dlq(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """A stack deployed with a model the table's pin does not record: every invocation
    logs the refusal at ERROR naming both models and emits `ModelMismatch` = 1, and fails
    whole, so Lambda retries the records and finally hands all of them to the DLQ. Nothing
    is embedded with the wrong model; the items stay pending."""
    env = {
        "TABLE_NAME": TABLE,
        "EMBEDDING_MODEL_ID": "cohere.embed-english-v3",
        "EMBEDDING_DIMS": "1024",
    }
    with mock_aws(), patched_env(IN_LAMBDA):
        titan = BedrockEmbeddings(model_id="amazon.titan-embed-text-v2:0", region_name="us-east-1")
        store = DynamoDBStore(
            TABLE,
            region_name="us-east-1",
            index={"dims": 1024, "embed": titan, "fields": ["text"], "embed_on": "stream"},
        )
        store.setup()
        for key in ("a", "b"):
            store.put(NS, key, {"text": f"memory {key}"})
        consumer = consumer_from_env(env)
        capsys.readouterr()
        caplog.clear()
        report = drain_stream(
            TABLE, consumer.handle, filter_patterns=filter_criteria(), max_retries=2
        )
        assert report.delivered == 0 and report.retries == 2
        assert len(report.failed) == 2  # both records reach the DLQ: none is lost
        assert len(report.errors) == 3
        assert all(isinstance(error, ModelMismatchError) for error in report.errors)
        for key in ("a", "b"):
            row = store.client.get_item(
                TableName=TABLE, Key={k: {"S": v} for k, v in key_of(NS, key).items()}
            )["Item"]
            assert PENDING in row
        assert store.search(NS, query="memory a") == []
    refusals = [r for r in caplog.records if r.name == "memory-embedder" and r.levelname == "ERROR"]
    assert len(refusals) == 3
    for refusal in refusals:
        assert "amazon.titan-embed-text-v2:0" in refusal.getMessage()
        assert "cohere.embed-english-v3" in refusal.getMessage()
        assert refusal.records == 2  # type: ignore[attr-defined]
    metrics = [json.loads(line) for line in capsys.readouterr().out.splitlines() if "_aws" in line]
    assert [m["ModelMismatch"] for m in metrics if "ModelMismatch" in m] == [[1.0]] * 3
