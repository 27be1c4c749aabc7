"""Usage per tenant: the capacity each DynamoDB request consumed and each embedding, by group.

A `UsageMeter` attached to a boto3 DynamoDB client asks every request that can report it
for its consumed capacity (`ReturnConsumedCapacity="TOTAL"`, added to the request itself:
no extra request) and turns each answer into `UsageRecord`s for the group of the rows it
touched: a namespace's first two labels (`keys.group_of`), the unit the registry and IAM
use. A checkpointer's rows (`DynamoDBSaver`: threads, their registry and run index) count
for `(THREADS, tenant)`, tenant `.threads.<tenant>`. Registry rows count for the group they
describe; the rows every tenant shares (the
model pin, resume markers, the list of groups read by a short prefix) count for the
empty group `()`, tenant `""`.

DynamoDB reports capacity per table, not per item, so a batch over several groups is
apportioned: BatchWriteItem by write units estimated per request (a put's item size in
1 KB units, DynamoDB's write unit; a delete as 1, its item's size is not in the request),
TransactWriteItems the same way (a Put by its size, an Update or Delete as 1), BatchGetItem
by the number of keys per group (each key read costs at least one unit);
keys DynamoDB left unprocessed are left out, they are paid by the retry that processes
them. The shares add up to what DynamoDB reported. A request whose answer carries no
capacity (an error such as a failed condition: DynamoDB does not report what it charged)
yields no record.

Embeddings are recorded by whoever calls the model (`embedded`): texts embedded and their
length in characters (Bedrock bills Titan and Cohere embeddings by input tokens, which the
LangChain embedders do not expose; characters are what the store sees).

Model calls are recorded by whoever calls the model (`conversed`): an extraction's
Converse calls and their input and output tokens, as the model reported them, for the
tenant whose thread they read (group `(THREADS, tenant)`).

The hook is called on the thread that made the request; an exception from it is logged and
never fails the store's operation.
"""

from __future__ import annotations

import logging
import math
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, Protocol, runtime_checkable

from langgraph.store.dynamodb.table.keys import (
    Namespace,
    decode_namespace,
    encode_namespace,
    group_of,
    namespace_of_registry_key,
)
from langgraph.store.dynamodb.table.schema import GROUPS_PK, PK, REGISTRY_PREFIX, SK
from langgraph.store.dynamodb.table.thread_keys import tenant_of_partition
from langgraph.store.dynamodb.table.values import attribute_size

logger = logging.getLogger(__name__)

SHARED: Namespace = ()
# The first label of the group a checkpointer's rows count for, (THREADS, its tenant): no
# namespace label holds a `.`, so no store group can be this one.
THREADS = ".threads"
EMBED = "Embed"
CONVERSE = "Converse"
READ_OPERATIONS = frozenset({"GetItem", "BatchGetItem", "Query", "Scan", "SearchVectors"})
WRITE_UNIT_BYTES = 1024
_KEY_TERM = re.compile(r"(#?[A-Za-z0-9_]+)\s*=\s*(:[A-Za-z0-9_]+)")


@dataclass(frozen=True)
class UsageRecord:
    """What one request (or one share of a batch request) or one embedding cost one group.

    `group` is the namespace's first two labels (`()` for rows all tenants share);
    `operation` the DynamoDB action or `"Embed"`; units as DynamoDB reported them
    (`vector_search_bytes`: SearchVectors' `VectorSearchRequestBytes`); `embedding_texts`
    texts sent to the model (one InvokeModel each for Titan) and `embedding_chars` their
    length; `model_calls` chat model calls (`"Converse"`) and their `input_tokens` and
    `output_tokens`; `at` epoch seconds."""

    group: Namespace
    operation: str
    table: str
    at: float
    read_units: float = 0.0
    write_units: float = 0.0
    vector_search_bytes: float = 0.0
    embedding_texts: int = 0
    embedding_chars: int = 0
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def tenant(self) -> str:
        """The group as one string (its labels joined by `.`; `""` when shared)."""
        return encode_namespace(self.group)

    def fields(self) -> dict[str, Any]:
        """The record as flat JSON-ready fields, the tenant as a string."""
        fields = asdict(self)
        del fields["group"]
        return {"tenant": self.tenant, **fields}


UsageHook = Callable[[UsageRecord], None]


@runtime_checkable
class Flushable(Protocol):
    """A hook that buffers records and can be told to write them now."""

    def flush(self) -> None: ...


def group_of_partition(partition_key: str, sort_key: str | None = None) -> Namespace:
    """The group a row belongs to: a namespace's first two labels; a registry row's group;
    `(THREADS, tenant)` for a checkpointer's rows (its threads, their registry and run
    index); `SHARED` for the rows all tenants share (a `._groups` row counts for the group
    it names when its sort key is given)."""
    tenant = tenant_of_partition(partition_key)
    if tenant is not None:
        return (THREADS, tenant)
    if partition_key.startswith(REGISTRY_PREFIX):
        return decode_namespace(partition_key[len(REGISTRY_PREFIX) :])
    if partition_key == GROUPS_PK and sort_key:
        return group_of(namespace_of_registry_key(sort_key))
    if partition_key.startswith("."):
        return SHARED
    return group_of(decode_namespace(partition_key))


class UsageMeter:
    """Turns the consumed capacity of a client's requests, and the embeddings made for
    `table`, into records for `hook` (does nothing without one)."""

    def __init__(self, hook: UsageHook | None, table: str) -> None:
        self.hook = hook
        self.table = table

    def attach(self, client: Any) -> None:
        """Ask every request of `client` that can report it for its consumed capacity and
        report each answer (once per client and meter)."""
        if self.hook is None:
            return
        events = client.meta.events
        tag = f"usage-meter-{id(self)}"
        events.register("before-parameter-build.dynamodb", self._ask, unique_id=f"{tag}-ask")
        events.register("after-call.dynamodb", self._answered, unique_id=f"{tag}-answer")

    def embedded(self, items: Iterable[tuple[Namespace, Sequence[str]]]) -> None:
        """Record the texts embedded for each group (one record per group)."""
        if self.hook is None:
            return
        texts: dict[Namespace, int] = {}
        chars: dict[Namespace, int] = {}
        for group, batch in items:
            texts[group] = texts.get(group, 0) + len(batch)
            chars[group] = chars.get(group, 0) + sum(len(text) for text in batch)
        at = time.time()
        for group, count in texts.items():
            self._emit(
                UsageRecord(
                    group=group,
                    operation=EMBED,
                    table=self.table,
                    at=at,
                    embedding_texts=count,
                    embedding_chars=chars[group],
                )
            )

    def conversed(
        self, group: Namespace, calls: int, input_tokens: int, output_tokens: int
    ) -> None:
        """Record chat model calls and their tokens for `group` (one record)."""
        if self.hook is None:
            return
        self._emit(
            UsageRecord(
                group=group,
                operation=CONVERSE,
                table=self.table,
                at=time.time(),
                model_calls=calls,
                input_tokens=input_tokens,
                output_tokens=output_tokens,
            )
        )

    def flush(self) -> None:
        """Tell a buffering hook to write what it holds."""
        if isinstance(self.hook, Flushable):
            try:
                self.hook.flush()
            except Exception:
                logger.exception("The usage hook failed to flush")

    def _ask(self, params: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        if "ReturnConsumedCapacity" in model.input_shape.members:
            params.setdefault("ReturnConsumedCapacity", "TOTAL")
            context["usage_params"] = params

    def _answered(self, parsed: Mapping[str, Any], model: Any, context: Any, **_: Any) -> None:
        params = context.get("usage_params")
        consumed = parsed.get("ConsumedCapacity")
        if params is None or not consumed:
            return
        try:
            records = usage_records(model.name, params, parsed, time.time())
        except Exception:
            logger.exception("Could not attribute the capacity of a %s request", model.name)
            return
        for record in records:
            self._emit(record)

    def _emit(self, record: UsageRecord) -> None:
        assert self.hook is not None
        try:
            self.hook(record)
        except Exception:
            logger.exception("The usage hook failed on %s", record)


def usage_records(
    operation: str, params: Mapping[str, Any], response: Mapping[str, Any], at: float
) -> list[UsageRecord]:
    """The records of one answered request: its consumed capacity, per table, apportioned
    over the groups of the rows it touched (see the module docstring)."""
    consumed = response["ConsumedCapacity"]
    records: list[UsageRecord] = []
    for capacity in consumed if isinstance(consumed, list) else [consumed]:
        table = str(capacity.get("TableName") or params.get("TableName", ""))
        base = UsageRecord(group=SHARED, operation=operation, table=table, at=at)
        if "VectorSearchRequestBytes" in capacity:
            base = replace(base, vector_search_bytes=float(capacity["VectorSearchRequestBytes"]))
        units = float(capacity.get("CapacityUnits", 0.0))
        reads = float(capacity.get("ReadCapacityUnits", 0.0))
        writes = float(capacity.get("WriteCapacityUnits", 0.0))
        if not reads and not writes:
            reads, writes = (units, 0.0) if operation in READ_OPERATIONS else (0.0, units)
        base = replace(base, read_units=reads, write_units=writes)
        weights = _weights(operation, params, response, table)
        total = sum(weights.values())
        records.extend(
            replace(
                base,
                group=group,
                read_units=base.read_units * weight / total,
                write_units=base.write_units * weight / total,
                vector_search_bytes=base.vector_search_bytes * weight / total,
            )
            for group, weight in weights.items()
        )
    return records


def _weights(
    operation: str, params: Mapping[str, Any], response: Mapping[str, Any], table: str
) -> dict[Namespace, float]:
    """How a request's capacity on `table` divides among groups (never empty)."""
    weights: dict[Namespace, float] = {}
    if operation == "BatchWriteItem":
        left = {_request_key(r) for r in response.get("UnprocessedItems", {}).get(table, [])}
        for request in params["RequestItems"].get(table, []):
            if _request_key(request) in left:
                continue
            put = request.get("PutRequest")
            row = put["Item"] if put else request["DeleteRequest"]["Key"]
            weight = math.ceil(_wire_size(row) / WRITE_UNIT_BYTES) if put else 1
            group = group_of_partition(row[PK]["S"], row[SK]["S"])
            weights[group] = weights.get(group, 0.0) + max(1, weight)
    elif operation == "TransactWriteItems":
        for item in params["TransactItems"]:
            for kind, action in item.items():
                if action.get("TableName") != table:
                    continue
                row = action.get("Item") or action["Key"]
                weight = math.ceil(_wire_size(row) / WRITE_UNIT_BYTES) if kind == "Put" else 1
                group = group_of_partition(row[PK]["S"], row[SK]["S"])
                weights[group] = weights.get(group, 0.0) + max(1, weight)
    elif operation == "BatchGetItem":
        unprocessed = response.get("UnprocessedKeys", {}).get(table, {}).get("Keys", [])
        left = {(k[PK]["S"], k[SK]["S"]) for k in unprocessed}
        for key in params["RequestItems"].get(table, {}).get("Keys", []):
            if (key[PK]["S"], key[SK]["S"]) not in left:
                group = group_of_partition(key[PK]["S"], key[SK]["S"])
                weights[group] = weights.get(group, 0.0) + 1.0
    else:
        weights[_single_group(params)] = 1.0
    return weights or {SHARED: 1.0}


def _single_group(params: Mapping[str, Any]) -> Namespace:
    """The group of a request on one partition: by its key or item, or the partition its
    key (or search) condition names."""
    row = params.get("Key") or params.get("Item")
    if row is not None:
        return group_of_partition(row[PK]["S"], row.get(SK, {}).get("S"))
    condition = params.get("KeyConditionExpression") or params.get("SearchConditionExpression")
    names = params.get("ExpressionAttributeNames") or {}
    values = params.get("ExpressionAttributeValues") or {}
    for name, placeholder in _KEY_TERM.findall(condition or ""):
        if names.get(name, name) == PK and "S" in values.get(placeholder, {}):
            return group_of_partition(values[placeholder]["S"])
    return SHARED


def _request_key(request: Mapping[str, Any]) -> tuple[str, str]:
    put = request.get("PutRequest")
    row = put["Item"] if put else request["DeleteRequest"]["Key"]
    return row[PK]["S"], row[SK]["S"]


def _wire_size(row: Mapping[str, Any]) -> int:
    return sum(len(name.encode()) + attribute_size(value) for name, value in row.items())


class UsageLogSink:
    """A ready `on_usage` hook: usage as structured JSON log lines, the tenant a field (not
    a metric dimension: see docs/usage.md for why and what it costs).

    With `window_seconds` > 0, records are summed per (tenant, table, operation) and
    written when a record arrives after the window has passed, or on `flush()`: one line
    per active tenant and operation per window instead of one per request. Thread-safe.
    Writes through `log` (default: a Powertools `Logger`, service `memory-usage`, which
    prints one JSON object per line with the record's fields at the top level)."""

    def __init__(self, log: Any = None, *, window_seconds: float = 60.0) -> None:
        if log is None:
            from aws_lambda_powertools import Logger

            log = Logger(service="memory-usage")
        self._log = log
        self._window = window_seconds
        self._lock = threading.Lock()
        self._totals: dict[tuple[str, str, str], UsageRecord] = {}
        self._since = time.monotonic()

    def __call__(self, record: UsageRecord) -> None:
        if self._window <= 0:
            self._write([record])
            return
        key = (record.tenant, record.table, record.operation)
        with self._lock:
            old = self._totals.get(key)
            self._totals[key] = record if old is None else _add(old, record)
            due = time.monotonic() - self._since >= self._window
        if due:
            self.flush()

    def flush(self) -> None:
        """Write the sums held so far."""
        with self._lock:
            records = list(self._totals.values())
            self._totals.clear()
            self._since = time.monotonic()
        self._write(records)

    def _write(self, records: Iterable[UsageRecord]) -> None:
        for record in records:
            self._log.info("usage", extra=record.fields())


def _add(a: UsageRecord, b: UsageRecord) -> UsageRecord:
    return replace(
        a,
        at=max(a.at, b.at),
        read_units=a.read_units + b.read_units,
        write_units=a.write_units + b.write_units,
        vector_search_bytes=a.vector_search_bytes + b.vector_search_bytes,
        embedding_texts=a.embedding_texts + b.embedding_texts,
        embedding_chars=a.embedding_chars + b.embedding_chars,
        model_calls=a.model_calls + b.model_calls,
        input_tokens=a.input_tokens + b.input_tokens,
        output_tokens=a.output_tokens + b.output_tokens,
    )
