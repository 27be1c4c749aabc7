"""Service errors raised by the emulation, serialised by moto like DynamoDB's own."""

from __future__ import annotations

from moto.core.exceptions import JsonRESTError
from moto.dynamodb.exceptions import MockValidationException

DYNAMODB_ERROR_PREFIX = "com.amazonaws.dynamodb.v20120810#"

__all__ = [
    "AccessDenied",
    "ItemCollectionSizeLimitExceeded",
    "LimitExceeded",
    "ResourceNotFound",
    "ValidationError",
    "limit_exceeded_one_online_index",
]


class ValidationError(MockValidationException):
    """``ValidationException`` (a MockValidationException, so moto rolls transactions back)."""


class AccessDenied(JsonRESTError):
    """``AccessDeniedException`` as the service answers it (type prefix, HTTP status)."""

    def __init__(self, message: str, *, prefix: str, status: int) -> None:
        super().__init__(prefix + "AccessDeniedException", message)
        self.code = status


class LimitExceeded(JsonRESTError):
    def __init__(self, message: str) -> None:
        super().__init__(DYNAMODB_ERROR_PREFIX + "LimitExceededException", message)


class ItemCollectionSizeLimitExceeded(JsonRESTError):
    def __init__(self) -> None:
        super().__init__(
            DYNAMODB_ERROR_PREFIX + "ItemCollectionSizeLimitExceededException",
            "The total size of an item collection has exceeded the maximum limit of 10 gigabytes.",
        )


class ResourceNotFound(JsonRESTError):
    def __init__(self, message: str = "Requested resource not found") -> None:
        super().__init__(DYNAMODB_ERROR_PREFIX + "ResourceNotFoundException", message)


def limit_exceeded_one_online_index() -> LimitExceeded:
    return LimitExceeded(
        "Subscriber limit exceeded: Only 1 online index can be created or deleted "
        "simultaneously per table"
    )
