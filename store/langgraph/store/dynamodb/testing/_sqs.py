"""SQS's documented message limits, which moto does not enforce as SQS does.

SQS refuses a message over 262,144 bytes (its body in UTF-8 plus its attributes' names,
types and values; moto counts the body's characters against 1 MiB), a SendMessageBatch
whose messages come to more than that in all (`BatchRequestTooLong`; moto: 1 MiB of body
characters), and a `DelaySeconds` below 0 (moto refuses only above 900): SendMessage with
`InvalidParameterValue`, a batch entry in the answer's `Failed`, as moto already reports a
delay above 900. At most 10 entries a batch (`TooManyEntriesInBatchRequest`) and a delay of
at most 900 s are moto's own checks.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from typing import Any

from moto.sqs.exceptions import InvalidParameterValue, SQSException

__all__ = ["MAX_MESSAGE_BYTES", "checked_batch", "checked_send"]

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
