"""The emulation answers Bedrock Converse (moto has none): the deterministic extractor
through plain boto3 and through `ChatBedrockConverse` with structured output, the
service's refusal of an unknown model, and a configurable latency."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from langchain_aws import ChatBedrockConverse
from langgraph.store.dynamodb.extraction import Message, SemanticFacts, Transcript
from langgraph.store.dynamodb.testing import local_endpoint, mock_aws
from langgraph.store.dynamodb.testing.extractor import extract_facts

MODEL = "amazon.nova-micro-v1:0"
TOOL = {
    "tools": [
        {
            "toolSpec": {
                "name": "save",
                "inputSchema": {"json": {"type": "object", "properties": {"memories": {}}}},
            }
        }
    ]
}


@pytest.fixture
def bedrock() -> Iterator[Any]:
    with mock_aws():
        yield boto3.client("bedrock-runtime", region_name="us-east-1")


def ask(client: Any, text: str, model: str = MODEL, **extra: Any) -> dict[str, Any]:
    answer: dict[str, Any] = client.converse(
        modelId=model, messages=[{"role": "user", "content": [{"text": text}]}], **extra
    )
    return answer


def test_first_person_statements_become_facts_and_actually_a_correction(bedrock: Any) -> None:
    text = (
        "[m1] human: Hello there. I prefer green tea. My dog is Rex.\n"
        "[m2] ai: I like that. I'm happy to help.\n"
        "[m3] human: Actually, now I live in Oslo! What is the time?"
    )
    answer = ask(bedrock, text, toolConfig=TOOL)
    (block,) = answer["output"]["message"]["content"]
    assert answer["stopReason"] == "tool_use" and block["toolUse"]["name"] == "save"
    assert block["toolUse"]["input"] == {
        "memories": [
            {"text": "User prefers green tea", "message_ids": ["m1"]},
            {"text": "User's dog is Rex", "message_ids": ["m1"]},
            {"text": "User lives in Oslo", "message_ids": ["m3"], "correction": True},
        ]
    }
    usage = answer["usage"]
    assert usage["inputTokens"] > 0 and usage["outputTokens"] > 0
    assert usage["totalTokens"] == usage["inputTokens"] + usage["outputTokens"]


def test_without_a_memories_tool_the_answer_is_text(bedrock: Any) -> None:
    answer = ask(bedrock, "[m1] human: I prefer tea")
    assert answer["stopReason"] == "end_turn"
    assert "text" in answer["output"]["message"]["content"][0]


def test_an_unknown_model_is_refused_as_bedrock_does(bedrock: Any) -> None:
    with pytest.raises(ClientError) as refused:
        ask(bedrock, "hi", model="acme.nonexistent-v1")
    assert refused.value.response["Error"]["Code"] == "ValidationException"


def test_inference_profiles_and_arns_name_known_models(bedrock: Any) -> None:
    assert ask(bedrock, "hi", model=f"us.{MODEL}")["stopReason"] == "end_turn"
    arn = f"arn:aws:bedrock:us-east-1::foundation-model/{MODEL}"
    assert ask(bedrock, "hi", model=arn)["stopReason"] == "end_turn"


def test_latency_is_configurable() -> None:
    with mock_aws() as mocked:
        mocked.settings.converse_latency = 0.3
        client = boto3.client("bedrock-runtime", region_name="us-east-1")
        started = time.monotonic()
        answer = ask(client, "hi")
        assert time.monotonic() - started >= 0.3
        assert answer["metrics"]["latencyMs"] == 300


def test_the_semantic_facts_strategy_through_chat_bedrock_converse(bedrock: Any) -> None:
    model = ChatBedrockConverse(model=MODEL, client=bedrock, region_name="us-east-1")
    transcript = Transcript(
        tenant="acme",
        thread_id="t1",
        messages=(
            Message("m1", "human", "I prefer green tea.", "cp1"),
            Message("m2", "ai", "Noted.", "cp1"),
            Message("m3", "human", "My city is Oslo. My dog is Rex.", "cp2"),
        ),
    )
    strategy = SemanticFacts(name="facts")
    found = strategy.extract(transcript, model)
    assert [(c.content["text"], c.provenance.message_ids) for c in found] == [
        ("User prefers green tea", ("m1",)),
        ("User's city is Oslo", ("m3",)),
        ("User's dog is Rex", ("m3",)),
    ]
    first = found[0].provenance
    assert (first.checkpoint_ids, first.model, first.strategy) == (("cp1",), MODEL, "facts")
    assert first.prompt_version == SemanticFacts.prompt_version
    assert len({c.key for c in found}) == 3
    # the same messages extracted again give the same keys
    assert [c.key for c in strategy.extract(transcript, model)] == [c.key for c in found]


def test_the_documented_rules() -> None:
    assert extract_facts("[a] human: I have two cats; I am vegetarian") == [
        {"text": "User has two cats", "message_ids": ["a"]},
        {"text": "User is vegetarian", "message_ids": ["a"]},
    ]
    assert extract_facts("[a] tool: I prefer tea\nnot a line\n[b] human: we prefer tea") == []


def test_the_server_answers_converse_too() -> None:
    with local_endpoint() as url:
        client = boto3.client("bedrock-runtime", region_name="us-east-1", endpoint_url=url)
        answer = ask(client, "[m1] human: I prefer tea", toolConfig=TOOL)
    (block,) = answer["output"]["message"]["content"]
    assert block["toolUse"]["input"]["memories"][0]["text"] == "User prefers tea"
