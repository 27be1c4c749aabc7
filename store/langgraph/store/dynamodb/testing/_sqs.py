"""SQS's documented message limits, which moto does not enforce as SQS does.

SQS refuses a message over 262,144 bytes (its body in UTF-8 plus its attributes' names,
types and values; moto counts the body's characters against 1 MiB), a SendMessageBatch
whose messages come to more than that in all (`BatchRequestTooLong`; moto: 1 MiB of body
characters), and a `DelaySeconds` below 0 (moto refuses only above 900): SendMessage with
`InvalidParameterValue`, a batch entry in the answer's `Failed`, as moto already reports a
delay above 900. At most 10 entries a batch (`TooManyEntriesInBatchRequest`) and a delay of
at most 900 s are moto's own checks.

Two more, for queues read by several consumers at once (Lambda's pollers):

- Each message operation is atomic (`LOCK`, `atomic`): moto's DeleteMessage rebuilds a
  queue's message list, losing a message sent meanwhile, and two concurrent
  ReceiveMessage calls can hand out the same message. A long poll waits outside the lock.
- Fair queues (`fair_receive`): SQS's documented noisy-neighbour rule for standard queues
  whose messages carry a `MessageGroupId` ("How Amazon SQS fair queues work", SQS
  Developer Guide). A group (tenant) becomes a noisy neighbour when it holds more than
  10% of the queue's in-flight messages and at least 30 of its own; while it is one, a
  receive returns the quiet groups' waiting messages first (a message without a group is
  a tenant of its own), then the noisy groups', fewest in flight first; it stops being one
  when none of its messages waits any more, or when it sent nothing for 5 minutes. Not
  modelled: SQS's second measure, a tenant's share of recent consumer processing time
  (the guide does not define "recent"), the exit once a noisy group's shares are
  "comparable" to the quiet ones' (not defined either), and the approximation of a
  distributed service's thresholds. `EmulatorSettings(fair_queues=False)` turns it off.
  Outside fairness moto delivers a standard queue in
  the order it was sent (SQS: best effort).
"""

from __future__ import annotations

import base64
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from langgraph.store.dynamodb.testing._settings import current_settings
from moto.sqs.exceptions import InvalidParameterValue, SQSException

__all__ = [
    "LOCK",
    "MAX_MESSAGE_BYTES",
    "NOISY_MIN_IN_FLIGHT",
    "NOISY_SHARE",
    "atomic",
    "checked_batch",
    "checked_send",
    "fair_receive",
    "noisy_groups",
]

# SQS: a message, and a batch's messages in all, at most 256 KiB.
MAX_MESSAGE_BYTES = 262_144


def _value_bytes(value: Any) -> int:
    if isinstance(value, bytes):
        return len(value)
    return len(str(value).encode())


def message_bytes(body: str, attributes: Mapping[str, Mapping[str, Any]] | None) -> int:
    """A message's size as SQS counts it: the body in UTF-8, and each attribute's name,
    data type and value."""
    size = len(body.encode())
    for name, attribute in (attributes or {}).items():
        size += len(name.encode()) + len(str(attribute.get("DataType", "")).encode())
        if "BinaryValue" in attribute:
            binary = attribute["BinaryValue"]
            size += len(binary) if isinstance(binary, bytes) else len(base64.b64decode(binary))
        else:
            size += _value_bytes(attribute.get("StringValue", ""))
    return size


class BatchRequestTooLong(SQSException):
    def __init__(self, size: int) -> None:
        super().__init__(
            "AWS.SimpleQueueService.BatchRequestTooLong",
            f"Batch requests cannot be longer than {MAX_MESSAGE_BYTES} bytes. "
            f"You have sent {size} bytes.",
        )


def checked_send(original: Callable[..., Any]) -> Any:
    """SendMessage (and each batch entry) refused past 256 KiB or with a negative delay."""

    def send_message(
        self: Any,
        queue_name: str,
        message_body: str,
        message_attributes: dict[str, Any] | None = None,
        delay_seconds: int | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        if delay_seconds is not None and int(delay_seconds) < 0:
            raise InvalidParameterValue(
                f"Value {delay_seconds} for parameter DelaySeconds is invalid. "
                "Reason: DelaySeconds must be >= 0 and <= 900."
            )
        if message_bytes(message_body, message_attributes) > MAX_MESSAGE_BYTES:
            raise InvalidParameterValue(
                "One or more parameters are invalid. Reason: Message must be shorter than "
                f"{MAX_MESSAGE_BYTES} bytes."
            )
        return original(
            self, queue_name, message_body, message_attributes, delay_seconds, *args, **kwargs
        )

    return send_message


def checked_batch(original: Callable[..., Any]) -> Any:
    """SendMessageBatch refused when its messages come to more than 256 KiB in all."""

    def send_message_batch(self: Any, queue_name: str, entries: dict[str, Any]) -> Any:
        size = sum(
            message_bytes(e["MessageBody"], e.get("MessageAttributes")) for e in entries.values()
        )
        if size > MAX_MESSAGE_BYTES:
            raise BatchRequestTooLong(size)
        return original(self, queue_name, entries)

    return send_message_batch


# --------------------------------------------------------------------------- concurrency

# Around every emulated SQS message operation (see the module's docstring).
LOCK = threading.RLock()


def atomic(original: Callable[..., Any]) -> Any:
    """`original` (an SQS backend operation) under `LOCK`."""

    def call(*args: Any, **kwargs: Any) -> Any:
        with LOCK:
            return original(*args, **kwargs)

    return call


# --------------------------------------------------------------------------- fair queues

# A noisy neighbour holds more than this share of the queue's in-flight messages ...
NOISY_SHARE = 0.10
# ... and at least this many of its own.
NOISY_MIN_IN_FLIGHT = 30
# A noisy neighbour that sent nothing this long is quiet again.
NOISY_QUIET_AFTER_MS = 300_000


def noisy_groups(queue: Any) -> set[str]:
    """The message groups of moto's `queue` that are noisy neighbours now (call under
    `LOCK`): the state is kept on the queue, as SQS keeps it per queue."""
    if queue.fifo_queue:
        return set()
    noisy: set[str] = queue.__dict__.setdefault("_fair_noisy", set())
    messages = list(queue._messages)
    in_flight = Counter(m.group_id for m in messages if m.group_id and not m.visible)
    total = sum(1 for m in messages if not m.visible)
    for group, count in in_flight.items():
        if count >= NOISY_MIN_IN_FLIGHT and count > NOISY_SHARE * total:
            noisy.add(group)
    now = time.time() * 1000
    for group in list(noisy):
        own = [m for m in messages if m.group_id == group]
        waiting = any(m.visible for m in own)  # delayed ones included: they will come
        last_sent = max((m.sent_timestamp or 0 for m in own), default=0)
        if not waiting or now - last_sent >= NOISY_QUIET_AFTER_MS:
            noisy.discard(group)
    return noisy


def _fairly(queue: Any, receive: Callable[[], Any]) -> Any:
    """`receive()` with the queue's messages ordered as a fair queue delivers them (call
    under `LOCK`): the quiet groups' first, then the noisy ones', fewest in flight first;
    arrival order within each. The queue's own order is restored afterwards."""
    noisy = noisy_groups(queue) if current_settings().fair_queues else set()
    if not noisy:
        return receive()
    saved = queue._messages
    in_flight = Counter(m.group_id for m in saved if m.group_id in noisy and not m.visible)

    def rank(message: Any) -> tuple[int, int]:
        group = message.group_id
        return (1, in_flight[group]) if group in noisy else (0, 0)

    queue._messages = sorted(saved, key=rank)
    try:
        return receive()
    finally:
        kept = {id(m) for m in queue._messages}  # a receive moves some to the DLQ
        queue._messages = [m for m in saved if id(m) in kept]


def fair_receive(original: Callable[..., Any]) -> Any:
    """ReceiveMessage atomic and fair (see the module's docstring); a long poll
    (`WaitTimeSeconds`) waits for messages outside `LOCK`."""

    def receive_message(
        self: Any,
        queue_name: str,
        count: int,
        wait_seconds_timeout: int,
        visibility_timeout: int,
        message_attribute_names: list[str] | None = None,
    ) -> Any:
        deadline = time.monotonic() + (wait_seconds_timeout or 0)
        while True:
            with LOCK:
                queue = self.get_queue(queue_name)
                received = _fairly(
                    queue,
                    lambda: original(
                        self, queue_name, count, 0, visibility_timeout, message_attribute_names
                    ),
                )
            left = deadline - time.monotonic()
            if received or left <= 0:
                return received
            queue.wait_for_messages(min(1.0, left))

    return receive_message
