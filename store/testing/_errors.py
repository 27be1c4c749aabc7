"""Service errors raised by the emulation, serialised by moto like DynamoDB's own."""

from __future__ import annotations

from moto.core.exceptions import JsonRESTError
from moto.dynamodb.exceptions import MockValidationException

_PREFIX = "com.amazonaws.dynamodb.v20120810#"

__all__ = [
    "ItemCollectionSizeLimitExceeded",
    "LimitExceeded",
    "ResourceNotFound",
    "ValidationError",
    "limit_exceeded_one_online_index",
]


class ValidationError(MockValidationException):
    """``ValidationException`` (a MockValidationException, so moto rolls transactions back)."""


class LimitExceeded(JsonRESTError):
    def __init__(self, message: str) -> None:
        super().__init__(_PREFIX + "LimitExceededException", message)


class ItemCollectionSizeLimitExceeded(JsonRESTError):
    def __init__(self) -> None:
        super().__init__(
            _PREFIX + "ItemCollectionSizeLimitExceededException",
            "The total size of an item collection has exceeded the maximum limit of 10 gigabytes.",
        )


class ResourceNotFound(JsonRESTError):
    def __init__(self, message: str = "Requested resource not found") -> None:
        super().__init__(_PREFIX + "ResourceNotFoundException", message)


def limit_exceeded_one_online_index() -> LimitExceeded:
    return LimitExceeded(
        "Subscriber limit exceeded: Only 1 online index can be created or deleted "
        "simultaneously per table"
    )
