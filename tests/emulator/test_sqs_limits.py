"""The emulated SQS refuses what SQS documents it refuses, as SQS answers it: at most 10
entries a SendMessageBatch, a message of at most 262,144 bytes (UTF-8 body and
attributes) and a batch of at most that much in all, a `DelaySeconds` of 0 to 900 (a
SendMessage error; a batch entry's in the answer's `Failed`, the others sent)."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError
from langgraph.store.dynamodb.testing.pytest_plugin import EmulatedAWS

LIMIT = 262_144


@pytest.fixture
def sqs(emu: EmulatedAWS) -> Any:
    return emu.client("sqs")


@pytest.fixture
def url(sqs: Any) -> str:
    return str(sqs.create_queue(QueueName="limits")["QueueUrl"])


def code(error: pytest.ExceptionInfo[ClientError]) -> str:
    return str(error.value.response["Error"]["Code"])


def bodies(sqs: Any, url: str) -> list[str]:
    found = []
    while messages := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
        for message in messages:
            found.append(message["Body"])
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    return sorted(found)


def entries(count: int, size: int = 1) -> list[dict[str, Any]]:
    return [{"Id": f"e{i}", "MessageBody": str(i % 10) * size} for i in range(count)]


def test_a_batch_takes_at_most_10_entries(sqs: Any, url: str) -> None:
    assert sqs.send_message_batch(QueueUrl=url, Entries=entries(10))["Successful"]
    with pytest.raises(ClientError) as error:
        sqs.send_message_batch(QueueUrl=url, Entries=entries(11))
    assert code(error) == "AWS.SimpleQueueService.TooManyEntriesInBatchRequest"
    assert len(bodies(sqs, url)) == 10


def test_a_message_takes_at_most_256_kib_counted_in_utf8_with_its_attributes(
    sqs: Any, url: str
) -> None:
    sqs.send_message(QueueUrl=url, MessageBody="x" * LIMIT)
    attribute = {"a": {"DataType": "String", "StringValue": "b"}}  # 1 + 6 + 1 bytes
    sqs.send_message(QueueUrl=url, MessageBody="x" * (LIMIT - 8), MessageAttributes=attribute)
    for body, attributes in (
        ("x" * (LIMIT + 1), {}),
        ("é" * (LIMIT // 2 + 1), {}),  # 2 bytes a character
        ("x" * (LIMIT - 7), attribute),
    ):
        with pytest.raises(ClientError) as error:
            sqs.send_message(QueueUrl=url, MessageBody=body, MessageAttributes=attributes)
        assert code(error) == "InvalidParameterValue"
        assert "262144 bytes" in error.value.response["Error"]["Message"]
    assert len(bodies(sqs, url)) == 2


def test_a_batch_takes_at_most_256_kib_in_all(sqs: Any, url: str) -> None:
    sqs.send_message_batch(QueueUrl=url, Entries=entries(8, LIMIT // 8))
    with pytest.raises(ClientError) as error:
        sqs.send_message_batch(QueueUrl=url, Entries=entries(8, LIMIT // 8 + 1))
    assert code(error) == "AWS.SimpleQueueService.BatchRequestTooLong"
    assert len(bodies(sqs, url)) == 8


@pytest.mark.parametrize("delay", [-1, 901])
def test_a_delay_outside_0_to_900_is_refused(sqs: Any, url: str, delay: int) -> None:
    sqs.send_message(QueueUrl=url, MessageBody="late", DelaySeconds=900)
    with pytest.raises(ClientError) as error:
        sqs.send_message(QueueUrl=url, MessageBody="x", DelaySeconds=delay)
    assert code(error) == "InvalidParameterValue"
    answer = sqs.send_message_batch(
        QueueUrl=url,
        Entries=[
            {"Id": "now", "MessageBody": "now", "DelaySeconds": 0},
            {"Id": "bad", "MessageBody": "bad", "DelaySeconds": delay},
        ],
    )
    assert [s["Id"] for s in answer["Successful"]] == ["now"]
    [failed] = answer["Failed"]
    assert failed["Id"] == "bad" and failed["SenderFault"] is True
    assert failed["Code"] == "InvalidParameterValue"
    assert "DelaySeconds" in failed["Message"]
    assert bodies(sqs, url) == ["now"]  # the 900 s one is still delayed
