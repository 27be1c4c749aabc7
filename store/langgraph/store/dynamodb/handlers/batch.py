"""The skeleton of both Lambda handlers (the stream consumer's, the extraction worker's),
shaped as Powertools' batch utility shapes one: the base owns the Lambda set-up and the
loop over the batch; a handler writes only what it does with its records.

`BatchHandler` sets up the service's `Logger` and `Metrics` (namespace
`POWERTOOLS_METRICS_NAMESPACE`, default `LangGraphMemory`) and its X-Ray tracing
(`tracing.Tracing`), traces each invocation, and answers with Lambda's partial batch
response through Powertools' `BatchProcessor` and `process_partial_response`: a record
whose outcome is an exception fails alone (Lambda retries it), an exception out of the
batch step fails the whole batch.

A handler works its batch as a whole (it batches the model's calls, folds duplicates), so
it writes one step, `process_batch`, giving each record's outcome by the record's id
(`record_id`: what the partial batch response names); the per-record function the base
hands Powertools returns that outcome, or raises it. `Environment` reads the variables the
CDK stack sets on either function.

Outside Lambda (`drain_stream`, `drain_queue`, `serve`, a test) a handler is quiet by
default, as its metric lines and INFO logs would land in the user's stdout: no metrics,
logs from WARNING. `POWERTOOLS_METRICS_DISABLED=false` and `POWERTOOLS_LOG_LEVEL=INFO`
bring them back there; in Lambda (`AWS_LAMBDA_FUNCTION_NAME` set) Powertools' own
defaults and variables decide, as ever.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from enum import StrEnum
from typing import Any, ClassVar, TypeAlias, overload

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)
from aws_lambda_powertools.utilities.data_classes.common import DictWrapper
from langgraph.store.dynamodb.handlers.tracing import Tracing

DEFAULT_NAMESPACE = "LangGraphMemory"
IN_LAMBDA = "AWS_LAMBDA_FUNCTION_NAME"  # set by Lambda's runtime
LOG_LEVEL = "POWERTOOLS_LOG_LEVEL"
METRICS_DISABLED = "POWERTOOLS_METRICS_DISABLED"
QUIET_LOG_LEVEL = "WARNING"
# Where a record of each event type keeps the id its partial batch response names.
RECORD_ID: dict[EventType, tuple[str, ...]] = {
    EventType.SQS: ("messageId",),
    EventType.DynamoDBStreams: ("dynamodb", "SequenceNumber"),
}

# A record's outcome: what the handler did with it, or the error that fails it alone.
Outcome: TypeAlias = StrEnum | Exception


def loud(variable: str) -> bool:
    """Whether Powertools' `variable` decides (in Lambda, or when set outside it: only
    `POWERTOOLS_METRICS_DISABLED=false` turns metrics on there); else the handler is quiet."""
    if IN_LAMBDA in os.environ:
        return True
    value = os.environ.get(variable)
    return value is not None and (variable != METRICS_DISABLED or value.lower() == "false")


class BatchHandler(ABC):
    """A Lambda handler over a batch of `event_type` records, for `service` (its logger's
    name, its metrics' `service` dimension and its traces' annotation): a subclass names
    both in its class statement (`class Worker(BatchHandler, service=..., event_type=...)`)
    and writes `process_batch`. With `tracing`, X-Ray traces each batch (`span`: a phase)."""

    service: ClassVar[str]
    event_type: ClassVar[EventType]
    logger: ClassVar[Logger]
    metrics: ClassVar[Metrics]

    def __init_subclass__(cls, *, service: str, event_type: EventType, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.service = service
        cls.event_type = event_type
        cls.logger = Logger(service=service, level=None if loud(LOG_LEVEL) else QUIET_LOG_LEVEL)
        cls.metrics = Metrics(
            namespace=os.environ.get("POWERTOOLS_METRICS_NAMESPACE", DEFAULT_NAMESPACE),
            service=service,
        )

    def __init__(self, *, tracing: bool = False) -> None:
        self._tracing = Tracing(tracing, self.service)
        self._traced_handle = self._tracing.capture(self._handle)

    def handle(self, event: Mapping[str, Any], context: Any = None) -> dict[str, Any]:
        """Process a batch; returns Lambda's partial batch response."""
        response: dict[str, Any] = self._traced_handle(event, context)
        return response

    @abstractmethod
    def process_batch(self, records: list[Mapping[str, Any]]) -> Mapping[str, Outcome]:
        """Each record's outcome, by `record_id`; raises to fail the whole batch."""

    @classmethod
    def record_id(cls, record: Mapping[str, Any]) -> str:
        """The id of `record` the partial batch response names (a message id, a stream
        record's sequence number)."""
        found: Any = record
        for key in RECORD_ID[cls.event_type]:
            found = found[key]
        return str(found)

    def span(self, name: str) -> AbstractContextManager[Any]:
        """A traced phase of the batch (a no-op without tracing)."""
        return self._tracing.span(name)

    def report(self, counts: Mapping[str, float], failures: Sequence[Exception], why: str) -> None:
        """Emit `counts` as metrics (with any added before: one flush), then log each
        failure at WARNING, saying `why`."""
        for name, value in counts.items():
            self.metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)
        self.emit_metrics()
        for error in failures:
            self.logger.warning(why, exc_info=error)

    def emit_metrics(self) -> None:
        """Flush the metrics added so far (one EMF line), or, outside Lambda unless asked
        for, drop them."""
        if loud(METRICS_DISABLED):
            self.metrics.flush_metrics()
        else:
            self.metrics.clear_metrics()

    # `_handle` by name: the traced invocation's subsegment is `## _handle`.
    def _handle(self, event: Mapping[str, Any], context: Any) -> dict[str, Any]:
        outcomes = self.process_batch(list(event.get("Records", [])))

        def record_handler(record: DictWrapper) -> str:
            outcome = outcomes[self.record_id(record.raw_event)]
            if isinstance(outcome, Exception):
                raise outcome
            return outcome.value

        response = process_partial_response(
            event=dict(event),
            record_handler=record_handler,
            processor=BatchProcessor(event_type=self.event_type),
            context=context,
        )
        return dict(response)


class Environment:
    """A Lambda's settings: the variables the CDK stack sets on it (`os.environ`, unless
    `values` are given)."""

    def __init__(self, values: Mapping[str, str] | None = None) -> None:
        self.values = os.environ if values is None else values

    def require(self, names: Sequence[str], why: str) -> list[str]:
        """The variables `names`; ValueError `Set <the missing ones><why>` unless every
        one is set."""
        missing = [name for name in names if not self.values.get(name)]
        if missing:
            raise ValueError(f"Set {', '.join(missing)}{why}")
        return [self.values[name] for name in names]

    @overload
    def get(self, name: str) -> str | None: ...
    @overload
    def get(self, name: str, default: str) -> str: ...
    def get(self, name: str, default: str | None = None) -> str | None:
        """The variable, else `default` (an empty value counts as unset)."""
        return self.values.get(name) or default

    def flag(self, name: str, *, strict: bool = False) -> bool:
        """A true/false variable (unset: false); `strict` refuses anything else."""
        value = self.values.get(name, "false").lower()
        if strict and value not in ("true", "false"):
            raise ValueError(f"Set {name} to true or false, got {self.values[name]!r}.")
        return value == "true"


def flag(value: bool) -> str:
    """A true/false variable as the stack sets it (`Environment.flag` reads it)."""
    return str(value).lower()
