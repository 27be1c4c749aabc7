"""Whether an error is transient: the same request may well succeed later (throttling, a
timeout, a lost connection, a server error) rather than fail again (a refused request, a
missing table, a bug).

botocore's own retry rules decide (its standard mode's throttled and transient error
codes, its connection and timeout errors), with what they leave to the HTTP status (any
5xx, 429) and Bedrock Runtime's codes for a model busy or slow to answer. A wrapped error
counts by its causes (`raise ... from error`), so an error the store or the extraction
wraps stays transient.
"""

from __future__ import annotations

from botocore.exceptions import ClientError
from botocore.retries.standard import (
    OrRetryChecker,
    RetryContext,
    ThrottledRetryableChecker,
    TransientRetryableChecker,
)

# Bedrock Runtime's errors for a model that is slow, warming up or briefly unavailable.
BEDROCK_TRANSIENT_CODES = frozenset(
    {
        "ModelTimeoutException",
        "ModelNotReadyException",
        "ServiceUnavailableException",
        "InternalServerException",
    }
)
TOO_MANY_REQUESTS = 429
SERVER_ERROR = 500

_BOTOCORE = OrRetryChecker([TransientRetryableChecker(), ThrottledRetryableChecker()])


class UnprocessedError(RuntimeError):
    """A batch request left items unprocessed after every round of retries: sustained
    throttling."""


def is_transient(error: BaseException) -> bool:
    """Whether `error`, or an error it was raised from, is transient (see the module)."""
    seen: set[int] = set()
    found: BaseException | None = error
    while found is not None and id(found) not in seen:
        seen.add(id(found))
        if _transient(found):
            return True
        found = found.__cause__
    return False


def _transient(error: BaseException) -> bool:
    if isinstance(error, UnprocessedError):
        return True
    if isinstance(error, ClientError):
        response = error.response
        status = int(response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0)
        code = response.get("Error", {}).get("Code")
        if status >= SERVER_ERROR or status == TOO_MANY_REQUESTS or code in BEDROCK_TRANSIENT_CODES:
            return True
        return bool(_BOTOCORE.is_retryable(RetryContext(1, parsed_response=dict(response))))
    return isinstance(error, Exception) and bool(
        _BOTOCORE.is_retryable(RetryContext(1, caught_exception=error))
    )
