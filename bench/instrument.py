"""Meter every AWS call a store makes on the in-process emulation, and model its latency.

`Meter` counts, per measured operation: API calls, items DynamoDB read (`ScannedCount`,
`BatchGetItem` responses, search results), read and write units from the sizes of the
items touched (see `bench.capacity`; a TransactWriteItems costs twice the units of the
same writes made plainly), vector-search bytes, embedding calls and their input tokens,
and the bytes of the request bodies sent. A request the service refuses (a ClientError:
a failed condition, an item over 400 KB) counts as a request and an API call, with no
units. Sizes come from the emulated table itself: a Query or Scan is re-run
without its filter and projection to learn what it read, a write is sized on the stored
item before and after it.

Latency model. Every call waits a fixed round trip at botocore's `_make_api_call`
(`Latency`: 5 ms per DynamoDB call, 60 ms per Bedrock `InvokeModel`), identically for
every store. The emulator (moto behind botocore's `before-send` hook) runs behind one
lock, and the time spent inside it is subtracted from each operation's wall time, so a
result is round trips plus client work, not moto's speed. The subtraction stays sound
when an operation runs requests concurrently: the emulator intervals are disjoint (one
lock), and while one runs, every other thread of the operation is either waiting for
that lock or sleeping a round trip whose deadline `Meter.round_trip` pushes back by
exactly the emulator time that passed meanwhile. Removing those intervals from the
timeline therefore leaves each thread's round trips and client work intact, as if the
server answered in zero time. The residue: client code running (under the GIL) at the
same moment as the emulator is subtracted with it, which flatters concurrent clients by
at most that overlap; on this workload it is well below a millisecond per operation.
"""

from __future__ import annotations

import inspect
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from botocore.client import BaseClient
from botocore.exceptions import ClientError
from langgraph.store.dynamodb.testing import LexicalEmbedder
from moto.core.botocore_stubber import BotocoreStubber
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import Table

from . import capacity

T = TypeVar("T")
EMBEDDING_CALL = "InvokeModel"
READS = ("GetItem", "BatchGetItem")
SCANS = ("Query", "Scan")
WRITES = ("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem")
# A transactional write costs two write units per KB of each item it writes.
TRANSACT_WRITES = "TransactWriteItems"
_tokens = LexicalEmbedder()


@dataclass(frozen=True)
class Latency:
    """Round-trip time added to each call, in milliseconds."""

    dynamodb_ms: float = 5.0
    embedding_ms: float = 60.0

    def of(self, service: str, operation: str) -> float:
        if service.startswith("dynamodb"):
            return self.dynamodb_ms
        if service == "bedrock-runtime" and operation == EMBEDDING_CALL:
            return self.embedding_ms
        return 0.0


@dataclass
class Usage:
    """What the calls of one measured operation cost."""

    calls: dict[str, int] = field(default_factory=dict)  # per API
    requests: int = 0  # DynamoDB API calls (embedding calls are counted apart)
    items_read: int = 0
    read_units: float = 0.0
    write_units: float = 0.0
    search_bytes: int = 0
    embed_calls: int = 0
    embed_tokens: int = 0
    bytes_sent: int = 0  # request bodies, as serialized for the wire (every service)


@dataclass
class Sample:
    """One measured run of an operation."""

    result: Any
    usage: Usage
    wall_ms: float
    emulator_ms: float

    @property
    def latency_ms(self) -> float:
        """Wall time without the emulator's own time: round trips plus client work."""
        return self.wall_ms - self.emulator_ms


class _Access(threading.local):
    """Item sizes the emulator touched while serving this thread's current call."""

    def __init__(self) -> None:
        self.active = False
        self.reads: list[int] = []
        self.scanned: list[int] = []
        self.writes: list[tuple[int, int]] = []

    def start(self) -> None:
        self.active, self.reads, self.scanned, self.writes = True, [], [], []


_access = _Access()


def _size(item: Any) -> int:
    """Size of a moto `Item` (read straight from its attribute objects: fast)."""
    if item is None:
        return 0
    return sum(len(name.encode()) + _value_size(value) for name, value in item.attrs.items())


def _value_size(value: Any) -> int:
    if isinstance(value, dict):  # moto keeps some nested values in wire form
        if len(value) == 1 and next(iter(value)) in capacity.TYPES:
            return capacity.value_size(value)
        value = DynamoType(value)
    if value.type == "N":
        return capacity.number_size(value.value)
    if value.type == "S":
        return len(value.value.encode())
    if value.type == "L":
        return 3 + sum(1 + _value_size(member) for member in value.value)
    if value.type == "M":
        return 3 + sum(
            1 + len(name.encode()) + _value_size(member) for name, member in value.value.items()
        )
    return capacity.value_size({value.type: value.value})


def _stored(backend: DynamoDBBackend, table_name: str, key: dict[str, Any]) -> int:
    table = backend.get_table(table_name)
    hash_key, range_key = backend.get_keys_value(table, key)
    partition = table.items.get(hash_key)
    if range_key is None or partition is None:
        return _size(partition)
    return _size(partition.get(range_key))


class Meter:
    """Installs the counters, the emulator lock and (inside `delays`) the latency model."""

    def __init__(self) -> None:
        self.usage = Usage()
        self.latency: Latency | None = None
        self.emulator_s = 0.0  # total time spent inside the emulator, ever
        self._emulator = threading.RLock()
        self._depth = threading.local()
        self._count = threading.Lock()
        self._undo: list[tuple[Any, str, Any]] = []

    # installation

    def __enter__(self) -> Meter:
        self._patch(BaseClient, "_make_api_call", self._api_call)
        self._patch(BotocoreStubber, "__call__", self._emulated)
        self._patch(DynamoDBBackend, "get_item", _sized_get)
        self._patch(Table, "query", lambda query: _sized_scan(query, "projection_expressions"))
        self._patch(Table, "scan", lambda scan: _sized_scan(scan, "projection_expression"))
        self._patch(DynamoDBBackend, "put_item", _sized_put)
        self._patch(DynamoDBBackend, "update_item", _sized_write)
        self._patch(DynamoDBBackend, "delete_item", _sized_write)
        return self

    def __exit__(self, *exc: object) -> None:
        for owner, name, original in reversed(self._undo):
            setattr(owner, name, original)
        self._undo.clear()

    def _patch(self, owner: Any, name: str, make: Callable[[Any], Any]) -> None:
        original = getattr(owner, name)
        self._undo.append((owner, name, original))
        setattr(owner, name, make(original))

    # measuring

    @contextmanager
    def delays(self, latency: Latency | None) -> Iterator[None]:
        """Inject `latency` on every call made inside the block."""
        previous, self.latency = self.latency, latency
        try:
            yield
        finally:
            self.latency = previous

    def measure(self, operation: Callable[[], T]) -> Sample:
        """Run `operation` once and return what it cost."""
        usage = self.usage = Usage()
        emulated = self.emulator_s
        started = time.perf_counter()
        try:
            result = operation()
        finally:
            wall = time.perf_counter() - started
            self.usage = Usage()  # calls outside a measurement count nowhere
        return Sample(result, usage, wall * 1000, (self.emulator_s - emulated) * 1000)

    def round_trip(self, seconds: float) -> None:
        """Sleep `seconds` of time outside the emulator: emulator time spent meanwhile (by
        any thread) extends the sleep, so subtracting it later leaves `seconds` intact."""
        deadline = time.perf_counter() + seconds
        emulated = self.emulator_s
        while (left := deadline + (self.emulator_s - emulated) - time.perf_counter()) > 0:
            time.sleep(left)

    # hooks

    def _api_call(self, original: Callable[..., Any]) -> Callable[..., Any]:
        meter = self

        def call(client: BaseClient, operation: str, params: dict[str, Any]) -> Any:
            service = client.meta.service_model.service_name
            if meter.latency is not None:
                meter.round_trip(meter.latency.of(service, operation) / 1000)
            _access.start()
            try:
                response = original(client, operation, params)
            except ClientError:
                with meter._count:  # refused, but sent: a request, without units
                    meter._account(meter.usage, operation, params, {}, refused=True)
                raise
            finally:
                _access.active = False
            with meter._count:
                meter._account(meter.usage, operation, params, response)
            return response

        return call

    def _emulated(self, original: Callable[..., Any]) -> Callable[..., Any]:
        meter = self

        def dispatch(stubber: Any, event_name: str, request: Any, **kwargs: Any) -> Any:
            with meter._emulator:  # one request at a time: `usage` is safe to add to here
                depth = getattr(meter._depth, "n", 0)
                if depth == 0:
                    meter.usage.bytes_sent += _body_size(request.body)
                meter._depth.n = depth + 1
                started = time.perf_counter()
                try:
                    return original(stubber, event_name, request, **kwargs)
                finally:
                    meter._depth.n = depth
                    if depth == 0:
                        meter.emulator_s += time.perf_counter() - started

        return dispatch

    @staticmethod
    def _account(
        usage: Usage,
        operation: str,
        params: dict[str, Any],
        response: dict[str, Any],
        refused: bool = False,
    ) -> None:
        usage.calls[operation] = usage.calls.get(operation, 0) + 1
        if operation == EMBEDDING_CALL:
            usage.embed_calls += 1
            usage.embed_tokens += _input_tokens(params.get("body"))
            return
        usage.requests += 1
        if refused:
            return
        usage.items_read += _items_read(response)
        if operation in READS:
            consistent = params.get("ConsistentRead", False) or any(
                spec.get("ConsistentRead", False)
                for spec in params.get("RequestItems", {}).values()
            )
            usage.read_units += capacity.total_read_units(_access.reads, consistent=consistent)
        elif operation in SCANS:
            consistent = bool(params.get("ConsistentRead", False))
            usage.read_units += capacity.read_units(sum(_access.scanned), consistent=consistent)
        elif operation in WRITES:
            writes = _access.writes or [(0, 0)]
            usage.write_units += sum(capacity.write_units(b, a) for b, a in writes)
        elif operation == TRANSACT_WRITES:
            writes = _access.writes or [(0, 0)]
            usage.write_units += 2 * sum(capacity.write_units(b, a) for b, a in writes)
        elif operation == "SearchVectors":
            usage.search_bytes += capacity.search_bytes(len(params["SearchVector"]))


def _body_size(body: Any) -> int:
    """Bytes of a request body (DynamoDB's and Bedrock's are bytes or text; a streamed
    body, which neither sends, would count as 0)."""
    if isinstance(body, str):
        return len(body.encode())
    return len(body) if isinstance(body, (bytes, bytearray)) else 0


def _items_read(response: dict[str, Any]) -> int:
    if "ScannedCount" in response:
        return int(response["ScannedCount"])
    if "Responses" in response:
        return sum(len(items) for items in response["Responses"].values())
    if "SearchResults" in response:
        return len(response["SearchResults"])
    return 1 if "Item" in response else 0


def _input_tokens(body: Any) -> int:
    """Input tokens of an InvokeModel body (Titan `inputText`, Cohere `texts`), counted
    as the emulated Bedrock counts them."""
    if not body:
        return 0
    payload = json.loads(body)
    texts = payload.get("texts") or [payload.get("inputText", "")]
    return sum(_tokens.token_count(text) for text in texts)


# moto hooks: record the stored size of what a call read or wrote (only during a call)


def _sized_get(original: Callable[..., Any]) -> Callable[..., Any]:
    def get_item(backend: DynamoDBBackend, table_name: str, keys: Any, *a: Any, **k: Any) -> Any:
        if _access.active:
            _access.reads.append(_size(original(backend, table_name, keys)))
        return original(backend, table_name, keys, *a, **k)

    return get_item


def _sized_scan(original: Callable[..., Any], projection: str) -> Callable[..., Any]:
    """Run the Query or Scan without its filter and projection, size what it read, then
    filter and project as moto does (its last steps), so the emulator reads once."""
    signature = inspect.signature(original)

    def read(table: Table, *args: Any, **kwargs: Any) -> Any:
        if not _access.active:
            return original(table, *args, **kwargs)
        return _read(table, *args, **kwargs)

    def _read(table: Table, *args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(table, *args, **kwargs)
        condition = bound.arguments.get("filter_expression")
        projected = bound.arguments.get(projection)
        bound.arguments["filter_expression"] = None
        bound.arguments[projection] = None
        items, scanned, last_key = original(*bound.args, **bound.kwargs)
        _access.scanned.append(sum(_size(item) for item in items))
        if condition is not None:
            items = [item for item in items if condition.expr(item)]
        if projected:
            items = [item.project(projected) for item in items]
        return items, scanned, last_key

    return read


def _sized_put(original: Callable[..., Any]) -> Callable[..., Any]:
    def put_item(backend: DynamoDBBackend, table_name: str, item: Any, *a: Any, **k: Any) -> Any:
        if not _access.active:
            return original(backend, table_name, item, *a, **k)
        table = backend.get_table(table_name)
        key = {name: item[name] for name in (table.hash_key_attr, table.range_key_attr) if name}
        before = _stored(backend, table_name, key)
        try:
            return original(backend, table_name, item, *a, **k)
        finally:
            _access.writes.append((before, capacity.item_size(item)))

    return put_item


def _sized_write(original: Callable[..., Any]) -> Callable[..., Any]:
    def write(backend: DynamoDBBackend, table_name: str, key: Any, *a: Any, **k: Any) -> Any:
        if not _access.active:
            return original(backend, table_name, key, *a, **k)
        before = _stored(backend, table_name, key)
        try:
            return original(backend, table_name, key, *a, **k)
        finally:
            _access.writes.append((before, _stored(backend, table_name, key)))

    return write
