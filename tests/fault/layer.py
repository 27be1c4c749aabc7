"""A fault layer at botocore's boundary: it answers *instead of* the service, so a request
it fails is really not applied (unlike a `before-send` hook, which the emulation's own
`before-send` handler runs next to).

It replaces one client's `Endpoint._do_get_response`, below botocore's retry loop, so the
client's retries run as in production. At a configurable rate it injects:

- error responses: `ProvisionedThroughputExceededException`, `ThrottlingException`,
  `InternalServerError`, `RequestLimitExceeded` (or any code given);
- a read timeout before the request reaches the service (not applied) and after (applied,
  the answer lost), and a connection reset (not applied);
- partial `UnprocessedItems` / `UnprocessedKeys`: the service applies only the first half
  of a batch and the rest comes back unprocessed.
"""

from __future__ import annotations

import json
import random
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from botocore.awsrequest import AWSResponse
from botocore.endpoint import convert_to_response_dict
from botocore.exceptions import ConnectionClosedError, ReadTimeoutError

# (operation name, decoded request body) -> whether a fault may be injected
Selector = Callable[[str, dict[str, Any]], bool]

ERROR_STATUS = {
    "ProvisionedThroughputExceededException": 400,
    "ThrottlingException": 400,
    "RequestLimitExceeded": 400,
    "InternalServerError": 500,
}
TIMEOUT_BEFORE = "timeout before apply"
TIMEOUT_AFTER = "timeout after apply"
RESET = "connection reset"
UNPROCESSED = "partial unprocessed"
KINDS: tuple[str, ...] = (*ERROR_STATUS, TIMEOUT_BEFORE, TIMEOUT_AFTER, RESET, UNPROCESSED)
BATCHES = ("BatchWriteItem", "BatchGetItem")


class RawBody:
    """The streaming body botocore reads a response from."""

    def __init__(self, body: bytes) -> None:
        self._body = body

    def stream(self, **_: Any) -> Iterable[bytes]:
        yield self._body


def body_of(request: Any) -> dict[str, Any]:
    body = request.body or b"{}"
    decoded: dict[str, Any] = json.loads(body.decode() if isinstance(body, bytes) else body)
    return decoded


class FaultLayer:
    """Injects faults into one boto3 client's requests (see the module docstring)."""

    def __init__(
        self,
        client: Any,
        *,
        rate: float,
        kinds: Iterable[str] = KINDS,
        seed: int = 0,
        when: Selector | None = None,
    ) -> None:
        self.rate = rate
        self.kinds = tuple(kinds)
        self.when = when
        self.enabled = True
        self.requests = 0
        self.injected: Counter[str] = Counter()
        self.answered: list[str] = []
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self._endpoint = client._endpoint
        self._original = self._endpoint._do_get_response
        self._endpoint._do_get_response = self._do_get_response

    def remove(self) -> None:
        """Send every later request to the service untouched."""
        self._endpoint._do_get_response = self._original

    def _choose(self, operation: str, body: dict[str, Any]) -> str | None:
        # `when` runs outside the lock: a selector may wait for other requests.
        if self.when is not None and not self.when(operation, body):
            with self._lock:
                self.requests += 1
            return None
        with self._lock:
            self.requests += 1
            if not self.enabled or self._random.random() >= self.rate:
                return None
            kinds = [k for k in self.kinds if k != UNPROCESSED or _splittable(operation, body)]
            if not kinds:
                return None
            kind = self._random.choice(kinds)
            self.injected[kind] += 1
            self.answered.append(operation)
            return kind

    def _do_get_response(self, request: Any, operation_model: Any, context: Any) -> Any:
        body = body_of(request)
        kind = self._choose(operation_model.name, body)
        if kind is None:
            return self._original(request, operation_model, context)
        if kind == TIMEOUT_BEFORE:
            return None, ReadTimeoutError(endpoint_url=request.url)
        if kind == TIMEOUT_AFTER:
            self._original(request, operation_model, context)
            return None, ReadTimeoutError(endpoint_url=request.url)
        if kind == RESET:
            return None, ConnectionClosedError(endpoint_url=request.url)
        if kind == UNPROCESSED:
            return self._partial(request, operation_model, context, body)
        return self._error(request, operation_model, kind)

    def _error(self, request: Any, operation_model: Any, code: str) -> Any:
        payload = {"__type": f"com.amazonaws.dynamodb.v20120810#{code}", "message": code}
        headers = {"Content-Type": "application/x-amz-json-1.0"}
        http = AWSResponse(
            request.url,
            ERROR_STATUS.get(code, 400),
            headers,
            RawBody(json.dumps(payload).encode()),
        )
        response = convert_to_response_dict(http, operation_model)
        protocol = operation_model.service_model.resolved_protocol
        parser = self._endpoint._response_parser_factory.create_parser(protocol)
        parsed = parser.parse(response, operation_model.output_shape)
        self._endpoint._add_modeled_error_fields(response, parsed, operation_model, parser)
        return (http, parsed), None

    def _partial(
        self, request: Any, operation_model: Any, context: Any, body: dict[str, Any]
    ) -> Any:
        """Apply the first half of each table's requests; return the rest unprocessed."""
        applied: dict[str, Any] = {}
        left: dict[str, Any] = {}
        for table, entries in body["RequestItems"].items():
            if operation_model.name == "BatchWriteItem":
                half = max(1, len(entries) // 2)
                applied[table], left[table] = entries[:half], entries[half:]
            else:
                keys = entries["Keys"]
                half = max(1, len(keys) // 2)
                applied[table] = {**entries, "Keys": keys[:half]}
                left[table] = {**entries, "Keys": keys[half:]}
        left = {t: e for t, e in left.items() if e and (not isinstance(e, dict) or e["Keys"])}
        request.body = json.dumps({**body, "RequestItems": applied}).encode()
        request.headers["Content-Length"] = str(len(request.body))
        response, error = self._original(request, operation_model, context)
        if response is None or response[0].status_code >= 300:
            return response, error
        name = "UnprocessedItems" if operation_model.name == "BatchWriteItem" else "UnprocessedKeys"
        response[1][name] = left
        return response, error


def _splittable(operation: str, body: dict[str, Any]) -> bool:
    if operation not in BATCHES:
        return False
    entries = next(iter(body["RequestItems"].values()))
    return len(entries if isinstance(entries, list) else entries["Keys"]) > 1


def fail_requests(client: Any, code: str, when: Selector | None = None) -> list[str]:
    """Answer the client's requests (those `when` selects; all by default) with error
    `code`, never applying them; returns the operations answered."""
    return FaultLayer(client, rate=1.0, kinds=(code,), when=when).answered
