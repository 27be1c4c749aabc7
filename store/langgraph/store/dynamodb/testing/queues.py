"""Drive a Lambda's SQS event source from an emulated queue.

:func:`drain_queue` delivers a queue's messages to a handler in Lambda's SQS event shape,
one invocation at a time, with Lambda's semantics: a handler answering
``{"batchItemFailures": [{"itemIdentifier": <messageId>}]}`` has the other messages
deleted and those retried; an exception retries the whole batch; the queue's redrive
policy moves a message received ``maxReceiveCount`` times to its dead-letter queue, as
SQS does. A failed message is retried at once (Lambda waits out its visibility timeout):
messages are received with a visibility timeout of 0 and one batch is handled at a time.
Several pollers of one queue (Lambda's, one per concurrent instance) each pass a
``visibility_timeout`` (the queue's, 30 min in the stack), so that a batch in flight is
no other poller's; a failed message is then handed back by setting its visibility to 0.
Messages sent with ``DelaySeconds`` wait as on SQS, in real time; :func:`advance_queue`
moves a queue's time forward (a test whose clock is fake advances both).
:func:`run_queue` does the same continuously in a background thread (``serve``, the demo).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import boto3
from langgraph.store.dynamodb.testing._poller import Poller
from langgraph.store.dynamodb.testing.streams import LambdaContext
from moto.sqs.models import sqs_backends

__all__ = [
    "BackgroundQueue",
    "QueueReport",
    "advance_queue",
    "drain_queue",
    "run_queue",
    "sqs_record",
]

Handler = Callable[[dict[str, Any], Any], Any]


@dataclass
class QueueReport:
    """What a drain did: handler ``invocations``, messages ``delivered`` (acknowledged and
    deleted), ``retries`` (messages handed back after a failure), ``errors`` the handler
    raised."""

    invocations: int = 0
    delivered: int = 0
    retries: int = 0
    errors: list[BaseException] = field(default_factory=list)

    def merge(self, other: QueueReport) -> None:
        self.invocations += other.invocations
        self.delivered += other.delivered
        self.retries += other.retries
        self.errors.extend(other.errors)


def _queue(queue_url: str) -> Any:
    """moto's queue behind `queue_url` (`.../<account>/<name>`)."""
    account, name = queue_url.rstrip("/").split("/")[-2:]
    for backend in sqs_backends[account].values():
        if name in backend.queues:
            return backend.queues[name]
    raise LookupError(f"no emulated queue at {queue_url}")


def advance_queue(queue_url: str, seconds: float) -> int:
    """Let `seconds` pass for the delayed messages of `queue_url`: each delay ends that
    much sooner. Returns how many messages are still delayed."""
    queue = _queue(queue_url)
    delayed = [m for m in list(queue._messages) if m.delayed]
    for message in delayed:
        message.delayed_until -= 1000 * seconds
    return sum(1 for m in delayed if m.delayed)


def sqs_record(message: dict[str, Any], queue_arn: str, region: str) -> dict[str, Any]:
    """A received message (ReceiveMessage's shape) as a record of Lambda's SQS event."""
    return {
        "messageId": message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": message["Body"],
        "attributes": dict(message.get("Attributes", {})),
        "messageAttributes": message.get("MessageAttributes", {}),
        "md5OfBody": message["MD5OfBody"],
        "eventSource": "aws:sqs",
        "eventSourceARN": queue_arn,
        "awsRegion": region,
    }


def _failed(response: Any, batch: list[dict[str, Any]]) -> set[str]:
    """The message ids to retry: those a partial batch response names (all of them when
    it names one not in the batch, as Lambda does)."""
    if not isinstance(response, dict) or not response.get("batchItemFailures"):
        return set()
    ids = {record["messageId"] for record in batch}
    named = {failure.get("itemIdentifier") for failure in response["batchItemFailures"]}
    return ids if not named <= ids else {str(i) for i in named}


def drain_queue(
    queue_url: str,
    handler: Handler,
    *,
    client: Any = None,
    batch_size: int = 10,
    context: Any = None,
    max_invocations: int = 1_000,
    visibility_timeout: int = 0,
) -> QueueReport:
    """Deliver every visible message of `queue_url` to ``handler(event, context)`` until
    none is left (messages the handler sends meanwhile included); see the module's
    docstring. `client` is the SQS client polling the queue (Lambda's poller runs with
    the function's role); by default one of this process. `visibility_timeout` (s) hides
    a received batch from other pollers while it is handled."""
    if not 1 <= batch_size <= 10:
        raise ValueError("batch_size must be 1 to 10 (SQS returns at most 10 messages)")
    region = queue_url.split(".")[1] if queue_url.startswith("https://sqs.") else "us-east-1"
    sqs = client or boto3.client("sqs", region_name=region)
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])[
        "Attributes"
    ]["QueueArn"]
    region = queue_arn.split(":")[3]
    report = QueueReport()
    while report.invocations < max_invocations:
        received = sqs.receive_message(
            QueueUrl=queue_url,
            MaxNumberOfMessages=batch_size,
            AttributeNames=["All"],
            MessageSystemAttributeNames=["All"],
            MessageAttributeNames=["All"],
            # 0: this loop hands a failed message back by not deleting it
            VisibilityTimeout=visibility_timeout,
        ).get("Messages", [])
        if not received:
            return report
        batch = [sqs_record(m, queue_arn, region) for m in received]
        report.invocations += 1
        try:
            response = handler({"Records": batch}, context or LambdaContext())
            failed = _failed(response, batch)
        except Exception as error:
            report.errors.append(error)
            failed = {record["messageId"] for record in batch}
        for record in batch:
            if record["messageId"] in failed:
                report.retries += 1
                if visibility_timeout:
                    sqs.change_message_visibility(
                        QueueUrl=queue_url,
                        ReceiptHandle=record["receiptHandle"],
                        VisibilityTimeout=0,
                    )
            else:
                report.delivered += 1
                sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=record["receiptHandle"])
    return report


class BackgroundQueue(Poller):
    """A queue drained continuously through a handler (see :func:`run_queue`)."""

    def __init__(self, queue_url: str, handler: Handler, interval: float, **kwargs: Any):
        super().__init__(interval, "queue-consumer")
        self.queue_url = queue_url
        self.handler = handler
        self.kwargs = kwargs
        self.report = QueueReport()

    def poll(self) -> None:
        self.report.merge(drain_queue(self.queue_url, self.handler, **self.kwargs))


@contextlib.contextmanager
def run_queue(
    queue_url: str, handler: Handler, *, interval: float = 0.05, **drain_kwargs: Any
) -> Iterator[BackgroundQueue]:
    """Drain `queue_url` through `handler` in a background thread (the keyword arguments
    of :func:`drain_queue`), for the life of the block."""
    consumer = BackgroundQueue(queue_url, handler, interval, **drain_kwargs)
    consumer.start()
    try:
        yield consumer
    finally:
        consumer.stop()
