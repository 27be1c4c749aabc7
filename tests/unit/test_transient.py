"""Which errors are transient (a later run may succeed) and which permanent, as botocore
raises them from DynamoDB and Bedrock, and when wrapped."""

from __future__ import annotations

import pytest
from botocore.exceptions import (
    ClientError,
    ConnectTimeoutError,
    EndpointConnectionError,
    ReadTimeoutError,
)
from langgraph.store.dynamodb.extraction import ExtractionError
from langgraph.store.dynamodb.table.transient import UnprocessedError, is_transient

URL = "https://bedrock-runtime.us-east-1.amazonaws.com"


def client_error(code: str, status: int, operation: str = "Converse") -> ClientError:
    response = {
        "Error": {"Code": code, "Message": code},
        "ResponseMetadata": {"HTTPStatusCode": status},
    }
    return ClientError(response, operation)  # type: ignore[arg-type]


TRANSIENT = [
    client_error("ProvisionedThroughputExceededException", 400, "Query"),
    client_error("ThrottlingException", 400, "Query"),
    client_error("RequestLimitExceeded", 400, "Query"),
    client_error("InternalServerError", 500, "Query"),
    client_error("ThrottlingException", 429),
    client_error("ModelTimeoutException", 408),
    client_error("ServiceUnavailableException", 503),
    client_error("ModelNotReadyException", 429),
    ReadTimeoutError(endpoint_url=URL),
    ConnectTimeoutError(endpoint_url=URL),
    EndpointConnectionError(endpoint_url=URL),
    UnprocessedError("BatchWriteItem left 3 writes unprocessed"),
]
PERMANENT = [
    client_error("ValidationException", 400, "Query"),
    client_error("AccessDeniedException", 403),
    client_error("ResourceNotFoundException", 400, "Query"),
    ValueError("a bug"),
    PermissionError("not authorized"),
]


@pytest.mark.parametrize("error", TRANSIENT, ids=repr)
def test_throttling_timeouts_and_server_errors_are_transient(error: Exception) -> None:
    assert is_transient(error)


@pytest.mark.parametrize("error", PERMANENT, ids=repr)
def test_refusals_and_bugs_are_permanent(error: Exception) -> None:
    assert not is_transient(error)


def test_an_error_counts_by_what_it_was_raised_from() -> None:
    def wrapped(cause: Exception) -> ExtractionError:
        wrapper = RuntimeError("the store's own wrapper")
        wrapper.__cause__ = cause
        error = ExtractionError("acme", "t1", None, str(wrapper))
        error.__cause__ = wrapper
        return error

    assert wrapped(TRANSIENT[0]).transient
    assert not wrapped(PERMANENT[0]).transient
    assert not ExtractionError("acme", "t1", None, "no cause").transient
