"""The model call: a user's own fake chat model plugs in; a malformed or refused answer is
retried once, then recorded with its reason and nothing is written; throttling is retried
with backoff by the Bedrock client; a permanent failure is a typed error naming the thread
and the checkpoint."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from langchain_aws import ChatBedrockConverse
from langchain_core.messages import AIMessage
from langgraph.store.dynamodb.extraction import ExtractionError
from langgraph.store.dynamodb.extraction.strategies.model_call import BEDROCK_RETRIES
from langgraph.store.dynamodb.testing import ScriptedChatModel, mock_aws, tool_call

from tests.fault.layer import FaultLayer

from .conftest import TENANT, Tables, open_tables


def facts_call(*facts: tuple[str, list[str]]) -> AIMessage:
    memories = [{"text": text, "message_ids": ids} for text, ids in facts]
    return tool_call("Facts", "call-1", memories=memories)


@pytest.fixture
def scripted() -> Iterator[tuple[Tables, ScriptedChatModel]]:
    model = ScriptedChatModel(responses=[AIMessage("I'd rather not.")])
    with mock_aws(), open_tables(model=model) as tables:
        yield tables, model


def message_ids(tables: Tables, thread: str) -> list[str]:
    config = {"configurable": {"thread_id": thread, "tenant": TENANT}}
    return [m.id for m in tables.graph.get_state(config).values["messages"]]


def test_a_users_own_chat_model_plugs_in(scripted: tuple[Tables, ScriptedChatModel]) -> None:
    tables, model = scripted
    tables.say("t1", "anything at all")
    first = message_ids(tables, "t1")[0]
    model.responses = [facts_call(("User collects stamps", [first]))]
    (run,) = tables.extractor.run(TENANT, "t1").runs
    assert run.model_calls == 1 and len(run.written) == 1
    assert tables.facts() == ["User collects stamps"]


def test_a_refusal_is_retried_once_then_recorded_and_nothing_written(
    scripted: tuple[Tables, ScriptedChatModel],
) -> None:
    tables, _ = scripted
    checkpoint = tables.say("t1", "I prefer tea.")
    (run,) = tables.extractor.run(TENANT, "t1").runs
    assert run.model_calls == 2 and run.written == ()
    assert tables.facts() == []
    (status,) = tables.extractor.status(TENANT, "t1")
    assert status.last_error is not None and "malformed answer twice" in status.last_error
    assert status.checkpoint_id == checkpoint  # recorded, not retried forever


def test_an_answer_naming_messages_outside_the_window_is_garbage(
    scripted: tuple[Tables, ScriptedChatModel],
) -> None:
    tables, model = scripted
    tables.say("t1", "I prefer tea.")
    model.responses = [facts_call(("User owns the moon", ["not-a-message"]))]
    (run,) = tables.extractor.run(TENANT, "t1").runs
    assert run.model_calls == 2 and tables.facts() == []
    (status,) = tables.extractor.status(TENANT, "t1")
    assert "not in the window" in (status.last_error or "")


def test_a_malformed_answer_then_a_good_one_writes_the_good_one(
    scripted: tuple[Tables, ScriptedChatModel],
) -> None:
    tables, model = scripted
    tables.say("t1", "I prefer tea.")
    first = message_ids(tables, "t1")[0]
    model.responses = [
        tool_call("Facts", "c", memories="not a list"),
        facts_call(("User prefers tea", [first])),
    ]
    (run,) = tables.extractor.run(TENANT, "t1").runs
    assert run.model_calls == 2 and len(run.written) == 1
    assert tables.extractor.status(TENANT, "t1")[0].last_error is None


def bedrock_with_faults(rate: float, code: str) -> tuple[Any, FaultLayer]:
    client = boto3.client("bedrock-runtime", region_name="us-east-1", config=BEDROCK_RETRIES)
    return client, FaultLayer(client, rate=rate, kinds=(code,), seed=3)


def test_throttling_is_retried_with_backoff() -> None:
    with mock_aws():
        client, faults = bedrock_with_faults(0.5, "ThrottlingException")

        def model(model_id: str) -> ChatBedrockConverse:
            return ChatBedrockConverse(model=model_id, client=client, region_name="us-east-1")

        with open_tables(model=model) as tables:
            for turn in range(4):
                tables.say("t1", f"My number {turn} is {turn}.")
                tables.extractor.run(TENANT, "t1")
            assert faults.injected["ThrottlingException"] > 0
            assert len(tables.facts()) == 4


def test_a_permanent_failure_names_the_thread_and_checkpoint() -> None:
    with mock_aws():
        client, _ = bedrock_with_faults(1.0, "AccessDeniedException")

        def model(model_id: str) -> ChatBedrockConverse:
            return ChatBedrockConverse(model=model_id, client=client, region_name="us-east-1")

        with open_tables(model=model) as tables:
            checkpoint = tables.say("t1", "I prefer tea.")
            with pytest.raises(ExtractionError) as failed:
                tables.extractor.run(TENANT, "t1")
            error = failed.value
            assert (error.tenant, error.thread_id, error.checkpoint_id) == (
                TENANT,
                "t1",
                checkpoint,
            )
            assert "AccessDenied" in str(error) and checkpoint in str(error)
            assert tables.facts() == []
            (status,) = tables.extractor.status(TENANT, "t1")
            assert status.checkpoint_id is None  # not advanced: a retry reprocesses it
            assert "AccessDeniedException" in (status.last_error or "")
