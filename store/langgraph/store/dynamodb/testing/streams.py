"""Drive a Lambda stream consumer from the emulated table's DynamoDB stream.

:func:`drain_stream` delivers pending stream records to a handler in Lambda's event shape,
deterministically, with Lambda's batching, event filtering and partial-batch-failure
semantics. :func:`run_consumer` does the same continuously in a background thread (for
``local_endpoint`` setups). Both read moto's stream in this process, so they work for
``mock_aws`` and ``local_endpoint`` alike.
"""

from __future__ import annotations

import calendar
import contextlib
import copy
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from langgraph.store.dynamodb.stream.event_filter import matches_any, matches_filter, parse_patterns
from langgraph.store.dynamodb.testing import _vector as v
from langgraph.store.dynamodb.testing._poller import Poller
from moto.dynamodb.models import dynamodb_backends

__all__ = [
    "BackgroundConsumer",
    "DrainReport",
    "LambdaContext",
    "drain_stream",
    "matches_filter",
    "run_consumer",
]

Handler = Callable[[dict[str, Any], Any], Any]


@dataclass
class DrainReport:
    """What a drain did.

    ``invocations`` handler calls; ``delivered`` records acknowledged by the handler;
    ``filtered_out`` records dropped by ``filter_patterns`` (never delivered); ``retries``
    re-deliveries after a failure; ``failed`` the records given up on after ``max_retries``
    (in Lambda's event-record shape, oldest first), as Lambda would send them to an
    on-failure destination; ``errors`` the exceptions the handler raised.
    """

    invocations: int = 0
    delivered: int = 0
    filtered_out: int = 0
    retries: int = 0
    failed: list[dict[str, Any]] = field(default_factory=list)
    errors: list[BaseException] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failed

    def merge(self, other: DrainReport) -> None:
        self.invocations += other.invocations
        self.delivered += other.delivered
        self.filtered_out += other.filtered_out
        self.retries += other.retries
        self.failed.extend(other.failed)
        self.errors.extend(other.errors)


@dataclass
class LambdaContext:
    """A minimal Lambda context object passed to handlers."""

    function_name: str = "emulated-stream-consumer"
    function_version: str = "$LATEST"
    memory_limit_in_mb: int = 1024
    invoked_function_arn: str = (
        "arn:aws:lambda:us-east-1:123456789012:function:emulated-stream-consumer"
    )
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    log_group_name: str = "/aws/lambda/emulated-stream-consumer"
    log_stream_name: str = "emulated"

    def get_remaining_time_in_millis(self) -> int:
        return 900_000


# --------------------------------------------------------------------------- stream access


def _find_table(table_name: str, region: str | None, account_id: str | None) -> tuple[str, Any]:
    found = [
        (reg, table)
        for account, reg, table in v.iter_tables(dynamodb_backends)
        if table.name == table_name
        and (region is None or reg == region)
        and (account_id is None or account == account_id)
    ]
    if not found:
        raise LookupError(f"no emulated table named {table_name!r}")
    if len(found) > 1:
        raise LookupError(f"several tables named {table_name!r}: pass region=/account_id=")
    return found[0]


def _event_record(raw: Mapping[str, Any], region: str, stream_arn: str) -> dict[str, Any]:
    rec = copy.deepcopy(dict(raw))
    rec["eventVersion"] = "1.1"
    rec["eventSource"] = "aws:dynamodb"
    rec["awsRegion"] = region
    rec["eventSourceARN"] = stream_arn
    dyn = rec["dynamodb"]
    created = dyn.get("ApproximateCreationDateTime")
    if isinstance(created, datetime):
        dyn["ApproximateCreationDateTime"] = float(calendar.timegm(created.utctimetuple()))
    return rec


def _failed_from(response: Any, batch: list[dict[str, Any]]) -> int | None:
    """Index in ``batch`` to retry from (None: all succeeded); -> 0 for whole-batch failure."""
    if not isinstance(response, Mapping) or "batchItemFailures" not in response:
        return None
    failures = response["batchItemFailures"] or []
    if not failures:
        return None
    positions = {r["dynamodb"]["SequenceNumber"]: i for i, r in enumerate(batch)}
    found: list[int] = []
    for failure in failures:
        ident = failure.get("itemIdentifier") if isinstance(failure, Mapping) else None
        if not ident or ident not in positions:
            return 0  # invalid identifier: Lambda treats the whole batch as failed
        found.append(positions[ident])
    return min(found)


def drain_stream(
    table_name: str,
    handler: Handler,
    *,
    batch_size: int = 100,
    filter_patterns: Any = None,
    max_retries: int = 2,
    consumer_id: str = "default",
    region: str | None = None,
    account_id: str | None = None,
    context: Any = None,
    max_invocations: int = 10_000,
) -> DrainReport:
    """Deliver every pending stream record of ``table_name`` to ``handler(event, context)``.

    Works like a Lambda event source mapping, one invocation at a time, until the stream has
    no unprocessed records (including records the handler's own writes produce):

    * records not matching ``filter_patterns`` are dropped before batching;
    * each invocation gets up to ``batch_size`` records as
      ``{"Records": [{"eventID", "eventName", "eventVersion": "1.1", "eventSource":
      "aws:dynamodb", "awsRegion", "dynamodb": {...}, "eventSourceARN", ...}]}``;
    * a response ``{"batchItemFailures": [{"itemIdentifier": <SequenceNumber>}]}``
      checkpoints the records before the lowest failed one and retries from it; an
      exception, or an invalid identifier, retries the whole batch;
    * after ``max_retries`` retries of the same record, the records from it to the end of
      that batch are given up on and listed in ``DrainReport.failed``.

    Progress is kept per ``consumer_id`` on the table, so two consumers can read the same
    stream independently and a second call only sees new records.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be >= 1")
    region_name, table = _find_table(table_name, region, account_id)
    patterns = parse_patterns(filter_patterns)
    report = DrainReport()
    attempts: dict[str, int] = {}
    filtered_seen: set[int] = set()
    while report.invocations < max_invocations:
        with v.LOCK:
            shard = table.stream_shard
            if shard is None:
                raise LookupError(f"table {table_name!r} has no stream enabled")
            checkpoints: dict[str, int] = table.__dict__.setdefault("_drain_checkpoints", {})
            done = checkpoints.get(consumer_id, -1)
            stream_arn = f"{table.table_arn}/stream/{table.latest_stream_label}"
            pending = [
                r.to_json()
                for r in shard.items
                if int(r.to_json()["dynamodb"]["SequenceNumber"]) > done
            ]
        batch: list[dict[str, Any]] = []
        last_seen = done
        for raw in pending:
            record = _event_record(raw, region_name, stream_arn)
            seq = int(record["dynamodb"]["SequenceNumber"])
            if not matches_any(patterns, record):
                if seq not in filtered_seen:
                    filtered_seen.add(seq)
                    report.filtered_out += 1
                if not batch:
                    last_seen = seq
                continue
            batch.append(record)
            if len(batch) >= batch_size:
                break
        if last_seen != done:
            checkpoints[consumer_id] = last_seen
        if not batch:
            return report
        report.invocations += 1
        try:
            response = handler({"Records": batch}, context or LambdaContext())
            failed_at = _failed_from(response, batch)
        except Exception as exc:
            report.errors.append(exc)
            failed_at = 0
        if failed_at is None:
            report.delivered += len(batch)
            checkpoints[consumer_id] = int(batch[-1]["dynamodb"]["SequenceNumber"])
            continue
        report.delivered += failed_at
        if failed_at > 0:
            checkpoints[consumer_id] = int(batch[failed_at - 1]["dynamodb"]["SequenceNumber"])
        failed_seq = batch[failed_at]["dynamodb"]["SequenceNumber"]
        attempts[failed_seq] = attempts.get(failed_seq, 0) + 1
        if attempts[failed_seq] > max_retries:
            report.failed.extend(batch[failed_at:])
            checkpoints[consumer_id] = int(batch[-1]["dynamodb"]["SequenceNumber"])
        else:
            report.retries += 1
    return report


class BackgroundConsumer(Poller):
    """A consumer draining a table's stream continuously (see :func:`run_consumer`)."""

    def __init__(self, table_name: str, handler: Handler, interval: float, **kwargs: Any):
        super().__init__(interval, "stream-consumer")
        self.table_name = table_name
        self.handler = handler
        self.kwargs = kwargs
        self.report = DrainReport()
        self._idle = threading.Event()

    def _pending(self) -> bool:
        try:
            _, table = _find_table(
                self.table_name, self.kwargs.get("region"), self.kwargs.get("account_id")
            )
        except LookupError:
            return False
        shard = table.stream_shard
        if shard is None or not shard.items:
            return False
        done = table.__dict__.get("_drain_checkpoints", {}).get(
            self.kwargs.get("consumer_id", "default"), -1
        )
        last = int(shard.items[-1].to_json()["dynamodb"]["SequenceNumber"])
        return last > int(done)

    def poll(self) -> None:
        try:
            self.report.merge(drain_stream(self.table_name, self.handler, **self.kwargs))
        except LookupError:
            pass  # table or stream not created yet
        finally:
            if not self._pending():
                self._idle.set()

    def wait_until_idle(self, timeout: float = 10.0) -> bool:
        """Block until every record written so far has been handled (True) or timeout."""
        import time

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._idle.clear()
            if self._idle.wait(max(0.0, deadline - time.monotonic())) and not self._pending():
                return True
        return not self._pending()


@contextlib.contextmanager
def run_consumer(
    table_name: str, handler: Handler, *, interval: float = 0.05, **drain_kwargs: Any
) -> Iterator[BackgroundConsumer]:
    """Drain ``table_name``'s stream through ``handler`` in a background thread.

    Accepts :func:`drain_stream`'s keyword arguments. Yields a :class:`BackgroundConsumer`
    (``.report`` accumulates, ``.wait_until_idle()`` waits for the stream to be consumed).
    """
    consumer = BackgroundConsumer(table_name, handler, interval, **drain_kwargs)
    consumer.start()
    try:
        yield consumer
    finally:
        consumer.stop()
