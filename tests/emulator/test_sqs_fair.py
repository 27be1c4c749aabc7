"""The emulated SQS with several consumers: its message operations are atomic (no message
handed to two pollers at once, none lost to a concurrent delete), and a standard queue
whose messages carry a `MessageGroupId` delivers as SQS documents fair queues do: a group
with more than 10% of the in-flight messages and at least 30 of its own is a noisy
neighbour, whose waiting messages come after the quiet groups' until none of them waits."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from langgraph.store.dynamodb.testing.pytest_plugin import EmulatedAWS


@pytest.fixture
def sqs(emu: EmulatedAWS) -> Any:
    return emu.client("sqs")


@pytest.fixture
def url(sqs: Any) -> str:
    return str(sqs.create_queue(QueueName="fair")["QueueUrl"])


def send(sqs: Any, url: str, group: str, count: int, start: int = 0) -> None:
    for n in range(start, start + count, 10):
        entries = [
            {"Id": str(i), "MessageBody": f"{group}{i}", "MessageGroupId": group}
            for i in range(n, min(n + 10, start + count))
        ]
        sqs.send_message_batch(QueueUrl=url, Entries=entries)


def receive(sqs: Any, url: str, count: int) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = []
    while len(got) < count:
        batch = sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=min(10, count - len(got)), VisibilityTimeout=600
        ).get("Messages", [])
        if not batch:
            break
        got += batch
    return got


def test_a_noisy_groups_backlog_waits_behind_a_quiet_groups_message(sqs: Any, url: str) -> None:
    send(sqs, url, "noisy", 50)
    in_flight = receive(sqs, url, 30)  # 30 of its own in flight: 100% of the queue's
    send(sqs, url, "quiet", 1)
    (first,) = receive(sqs, url, 1)
    assert first["Body"] == "quiet0"  # sent last, delivered first
    assert [m["Body"] for m in receive(sqs, url, 2)] == ["noisy30", "noisy31"]
    # Its backlog drained (every message in flight or gone), the group is quiet again:
    for message in in_flight:
        sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    receive(sqs, url, 20)
    send(sqs, url, "noisy", 1, start=50)
    send(sqs, url, "other", 1)
    assert [m["Body"] for m in receive(sqs, url, 2)] == ["noisy50", "other0"]


def test_below_30_in_flight_delivery_stays_in_arrival_order(sqs: Any, url: str) -> None:
    send(sqs, url, "busy", 45)
    receive(sqs, url, 29)
    send(sqs, url, "quiet", 1)
    # 29 in flight: not yet a noisy neighbour, the queue delivers in arrival order ...
    assert [m["Body"] for m in receive(sqs, url, 10)] == [f"busy{i}" for i in range(29, 39)]
    # ... 39 in flight: it is one, the quiet group's message comes first.
    assert [m["Body"] for m in receive(sqs, url, 2)] == ["quiet0", "busy39"]


def test_concurrent_pollers_never_share_a_message_and_lose_none(sqs: Any, url: str) -> None:
    send(sqs, url, "t", 60)
    seen: list[str] = []
    lock = threading.Lock()

    def poll() -> None:
        while batch := sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=600
        ).get("Messages", []):
            for message in batch:
                with lock:
                    seen.append(message["Body"])
                if message["Body"] != "late":  # a send racing the deletes: moto drops some
                    sqs.send_message(QueueUrl=url, MessageBody="late", MessageGroupId="u")
                sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])

    pollers = [threading.Thread(target=poll) for _ in range(4)]
    for poller in pollers:
        poller.start()
    for poller in pollers:
        poller.join()
    bodies = [b for b in seen if b != "late"]
    assert sorted(bodies) == sorted(f"t{i}" for i in range(60))
    assert seen.count("late") + len(receive(sqs, url, 200)) == 60


@pytest.mark.emulator_settings(fair_queues=False)
def test_fairness_off_delivers_in_arrival_order(sqs: Any, url: str) -> None:
    send(sqs, url, "noisy", 50)
    receive(sqs, url, 30)
    send(sqs, url, "quiet", 1)
    assert [m["Body"] for m in receive(sqs, url, 2)] == ["noisy30", "noisy31"]
