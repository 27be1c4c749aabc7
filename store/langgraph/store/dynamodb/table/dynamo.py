"""DynamoDB plumbing: clients, paginated queries and batch calls retried until done."""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import random
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

import boto3
from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from botocore.config import Config
from botocore.exceptions import ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as BotoConnectionError
from langgraph.store.dynamodb.table.errors import plain_moto
from langgraph.store.dynamodb.table.schema import PK, SK
from langgraph.store.dynamodb.table.transient import UnprocessedError

T = TypeVar("T")
R = TypeVar("R")
A = TypeVar("A")
B = TypeVar("B")

BATCH_GET_LIMIT = 100
BATCH_WRITE_LIMIT = 25
MAX_BATCH_ROUNDS = 12
MAX_WORKERS = 16

# Bytes per read unit of an eventually consistent read (4 KB per half unit): what a
# counting Query's consumed capacity says about the bytes it evaluated.
BYTES_PER_EVENTUAL_UNIT = 8192

# Attempts to connect to an endpoint before a request fails (`fail_fast_on_connection_errors`).
CONNECTION_ATTEMPTS = 2

DEFAULT_CONFIG = Config(retries={"mode": "adaptive", "max_attempts": 10})

_serializer = TypeSerializer()
_deserializer = TypeDeserializer()


def make_client(
    *,
    region_name: str | None,
    endpoint_url: str | None,
    boto3_session: boto3.Session | None,
    boto_config: Config | None,
) -> Any:
    """A DynamoDB client with adaptive retries (`boto_config` wins where it sets an
    option); raises when no region can be found."""
    session = boto3_session or boto3.Session()
    region = region_name or session.region_name
    if not region:
        raise ValueError(
            "No AWS region found: pass region_name='us-east-1' (or your region) to "
            "DynamoDBStore, or set AWS_REGION / AWS_DEFAULT_REGION."
        )
    if endpoint_url is not None:
        parts = urlsplit(endpoint_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(
                f"endpoint_url must be an http:// or https:// URL with a host, e.g. "
                f"http://127.0.0.1:8484 (the one `dynamodb-memory serve` prints), got "
                f"{endpoint_url!r}."
            )
    config = DEFAULT_CONFIG.merge(boto_config) if boto_config else DEFAULT_CONFIG
    client = session.client(
        "dynamodb", region_name=region, endpoint_url=endpoint_url, config=config
    )
    if endpoint_url is not None:
        fail_fast_on_connection_errors(client)
    return client


def fail_fast_on_connection_errors(client: Any) -> None:
    """Make `client` give up on an endpoint it cannot connect to after
    `CONNECTION_ATTEMPTS` attempts; every other retry (throttling, server errors, a
    dropped connection) stays as its retry mode decides. Clients of an explicit
    `endpoint_url` (a local endpoint: nothing listening stays so) get it by default."""

    def give_up(attempts: int, caught_exception: BaseException | None, **_: Any) -> None:
        if isinstance(caught_exception, BotoConnectionError) and attempts >= CONNECTION_ATTEMPTS:
            raise caught_exception
        # None: no opinion, the retry mode's own handler decides.

    service = client.meta.service_model.service_id.hyphenize()
    client.meta.events.register_first(
        f"needs-retry.{service}", give_up, unique_id="fail-fast-on-connection-errors"
    )


# Set by the emulation (`langgraph.store.dynamodb.testing`) once it has patched moto, which
# then serves each request atomically, as DynamoDB does.
_emulated = threading.Event()


def mark_emulated() -> None:
    """Record that moto in this process carries the emulation's patches."""
    _emulated.set()


def refuse_plain_moto(client: Any, owner: str) -> None:
    """Make every request of `client` fail at once, with `errors.plain_moto(owner)`, when
    plain moto's `mock_aws` would answer it in this process (no emulation patched in):
    moto alone is not safe under the concurrent requests `owner` makes. Checked per
    request (a mock may start after the client exists); costs a dictionary lookup."""

    def check(**_: Any) -> None:
        if _emulated.is_set():
            return
        models = sys.modules.get("moto.core.models")
        if models is None or not getattr(models.botocore_stubber, "enabled", False):
            return
        host = urlsplit(client.meta.endpoint_url).hostname or ""
        if host.endswith(".amazonaws.com"):  # a custom endpoint is a real server
            raise plain_moto(owner)

    service = client.meta.service_model.service_id.hyphenize()
    client.meta.events.register(f"before-call.{service}", check)


def serialize(item: dict[str, Any]) -> dict[str, Any]:
    """Python values to DynamoDB attribute values."""
    return {k: _serializer.serialize(v) for k, v in item.items()}


def deserialize(item: dict[str, Any]) -> dict[str, Any]:
    """DynamoDB attribute values to Python values."""
    return {k: _deserializer.deserialize(v) for k, v in item.items()}


_executor: contextvars.ContextVar[Executor | None] = contextvars.ContextVar(
    "dynamo_executor", default=None
)


@contextlib.contextmanager
def fan_out_on(executor: Executor) -> Iterator[None]:
    """Run `parallel_map`s of this context (and of the tasks they start) on `executor`."""
    token = _executor.set(executor)
    try:
        yield
    finally:
        _executor.reset(token)


def current_executor() -> Executor | None:
    """The executor `parallel_map` fans out on in this context, if one was set."""
    return _executor.get()


def parallel_map(fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """`map` over threads (I/O bound); results in input order, first error raised.

    Under `fan_out_on(executor)` the calling thread works through the items itself and
    asks up to `MAX_WORKERS - 1` of the executor's workers to help: it never waits for a
    helper that has not started (those are cancelled), so nested calls on a saturated
    executor run inline instead of deadlocking, and the executor bounds the threads (and
    so the connections) of every caller sharing it. Without one, a private pool runs it.
    """
    if len(items) <= 1:
        return [fn(item) for item in items]
    executor = _executor.get()
    if executor is None:
        with ThreadPoolExecutor(max_workers=min(MAX_WORKERS, len(items))) as pool:
            return list(pool.map(fn, items))
    outcomes: list[tuple[bool, Any]] = [(False, None)] * len(items)
    claims = itertools.count()
    lock = threading.Lock()

    def drain() -> None:
        while True:
            with lock:
                index = next(claims)
            if index >= len(items):
                return
            try:
                outcomes[index] = (True, fn(items[index]))
            except BaseException as error:  # re-raised in the caller, in input order
                outcomes[index] = (False, error)

    helpers: list[Future[None]] = [
        executor.submit(contextvars.copy_context().run, drain)
        for _ in range(min(MAX_WORKERS, len(items)) - 1)
    ]
    drain()
    for helper in helpers:
        if not helper.cancel():
            helper.result()
    for ok, value in outcomes:
        if not ok:
            raise value
    return [cast(R, value) for _, value in outcomes]


def both(first: Callable[[], A], second: Callable[[], B]) -> tuple[A, B]:
    """Two calls at once (as `parallel_map` runs them); both results."""
    calls: list[Callable[[], object]] = [first, second]
    a, b = parallel_map(lambda call: call(), calls)
    return cast(A, a), cast(B, b)


# Errors after which the same request may succeed (botocore's own retry rules).
RETRYABLE_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "RequestLimitExceeded",
        "InternalServerError",
        "ServiceUnavailable",
        "TransactionConflictException",
    }
)


def retrying(fn: Callable[[T], R], arg: T) -> R:
    """`fn(arg)`, retried with backoff on throttling, server errors, timeouts and dropped
    connections beyond the client's own retries: for upkeep that must not be skipped
    (idempotent calls only)."""
    for round_number in range(MAX_BATCH_ROUNDS - 1):
        try:
            return fn(arg)
        except ClientError as error:
            if error.response["Error"]["Code"] not in RETRYABLE_CODES:
                raise
        except (BotoConnectionError, HTTPClientError):
            pass
        _backoff(round_number)
    return fn(arg)


def chunks(items: Sequence[T], size: int) -> list[Sequence[T]]:
    """Consecutive slices of at most `size` items."""
    return [items[i : i + size] for i in range(0, len(items), size)]


def _backoff(round_number: int) -> None:
    time.sleep(min(5.0, 0.05 * 2**round_number) * random.uniform(0.5, 1.0))


def query(client: Any, **kwargs: Any) -> Iterator[dict[str, Any]]:
    """Every item a Query returns, following `LastEvaluatedKey`, deserialized."""
    while True:
        response = client.query(**kwargs)
        for item in response.get("Items", []):
            yield deserialize(item)
        last = response.get("LastEvaluatedKey")
        if not last:
            return
        kwargs["ExclusiveStartKey"] = last


@dataclass(frozen=True)
class Counted:
    """What a counting Query found: rows read, rows its filter kept, read units paid."""

    rows: int
    matching: int
    units: float


def count(client: Any, **kwargs: Any) -> Counted:
    """Run a `Select="COUNT"` Query (`kwargs`: its key condition, maybe a filter) over
    every page: the rows it read, those its filter kept, and the read units it consumed
    (0 for an empty answer, which DynamoDB still bills at its minimum charge)."""
    kwargs.update(Select="COUNT", ReturnConsumedCapacity="TOTAL")
    rows = matching = 0
    units = 0.0
    while True:
        response = client.query(**kwargs)
        rows += response["ScannedCount"]
        matching += response["Count"]
        units += response["ConsumedCapacity"]["CapacityUnits"]
        if "LastEvaluatedKey" not in response:
            return Counted(rows, matching, units if rows else 0.0)
        kwargs["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def batch_get(
    client: Any,
    table: str,
    keys: Iterable[dict[str, Any]],
    *,
    consistent: bool,
    projection: str | None = None,
    names: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Fetch items by key with BatchGetItem (100 per call, concurrent), retrying
    `UnprocessedKeys` with backoff until every key is answered."""
    unique = list({(k[PK], k[SK]): k for k in keys}.values())
    request: dict[str, Any] = {"ConsistentRead": consistent}
    if projection:
        request["ProjectionExpression"] = projection
    if names:
        request["ExpressionAttributeNames"] = names

    def fetch(chunk: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        pending: dict[str, Any] = {table: {**request, "Keys": [serialize(k) for k in chunk]}}
        found: list[dict[str, Any]] = []
        for round_number in range(MAX_BATCH_ROUNDS):
            response = client.batch_get_item(RequestItems=pending)
            found.extend(deserialize(i) for i in response.get("Responses", {}).get(table, []))
            pending = response.get("UnprocessedKeys") or {}
            if not pending:
                return found
            _backoff(round_number)
        left = len(pending[table]["Keys"])
        raise UnprocessedError(
            f"BatchGetItem on {table} left {left} keys unprocessed after {MAX_BATCH_ROUNDS} "
            "rounds of retries (sustained throttling); retry the operation later."
        )

    results = parallel_map(fetch, chunks(unique, BATCH_GET_LIMIT))
    return [item for chunk_items in results for item in chunk_items]


def batch_write(client: Any, table: str, requests: Sequence[dict[str, Any]]) -> None:
    """Apply `PutRequest`/`DeleteRequest`s (Python values) with BatchWriteItem (25 per
    call, concurrent), retrying `UnprocessedItems` with backoff until all are applied.
    Callers pass at most one request per key."""

    def write(chunk: Sequence[dict[str, Any]]) -> None:
        pending: list[dict[str, Any]] = [_serialize_request(r) for r in chunk]
        for round_number in range(MAX_BATCH_ROUNDS):
            response = client.batch_write_item(RequestItems={table: pending})
            pending = (response.get("UnprocessedItems") or {}).get(table, [])
            if not pending:
                return
            _backoff(round_number)
        raise UnprocessedError(
            f"BatchWriteItem on {table} left {len(pending)} writes unprocessed after "
            f"{MAX_BATCH_ROUNDS} rounds of retries (sustained throttling); retry later."
        )

    parallel_map(write, chunks(requests, BATCH_WRITE_LIMIT))


def _serialize_request(request: dict[str, Any]) -> dict[str, Any]:
    if "PutRequest" in request:
        return {"PutRequest": {"Item": serialize(request["PutRequest"]["Item"])}}
    return {"DeleteRequest": {"Key": serialize(request["DeleteRequest"]["Key"])}}
