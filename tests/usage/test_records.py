"""`on_usage`: every request asks for its capacity at no extra request, and each request's
units and each embedding land on the tenant group they were for."""

from __future__ import annotations

import io
import json
import logging
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from aws_lambda_powertools import Logger
from botocore.exceptions import ClientError
from langgraph.store.base import GetOp, PutOp
from langgraph.store.dynamodb import DynamoDBStore, reindex
from langgraph.store.dynamodb.stream.consumer import FILTER_PATTERNS, StreamConsumer
from langgraph.store.dynamodb.table.usage import EMBED, UsageLogSink, UsageRecord, usage_records
from langgraph.store.dynamodb.testing import LexicalEmbeddings, drain_stream, mock_aws

from tests.fault.layer import UNPROCESSED, FaultLayer

TABLE = "usage"
DIMS = 32


class Requests:
    """What each request sent (parameters) and whether it succeeded, observed at botocore's
    boundary."""

    def __init__(self, client: Any) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.succeeded: Counter[str] = Counter()
        client.meta.events.register("before-call.dynamodb", self._sent)
        client.meta.events.register("after-call.dynamodb", self._answered)

    def _sent(self, model: Any, params: dict[str, Any], **_: Any) -> None:
        self.sent.append((model.name, json.loads(params["body"] or b"{}")))

    def _answered(self, model: Any, http_response: Any, **_: Any) -> None:
        if http_response.status_code < 300:
            self.succeeded[model.name] += 1

    def counts(self) -> Counter[str]:
        return Counter(name for name, _ in self.sent)


def index(embed_on: str = "write") -> dict[str, Any]:
    return {
        "dims": DIMS,
        "embed": LexicalEmbeddings(dims=DIMS),
        "fields": ["text"],
        "embed_on": embed_on,
    }


def workload(store: DynamoDBStore) -> None:
    store.batch(
        [
            PutOp(("acme", "u1", "notes"), "a", {"text": "x" * 3000}),
            PutOp(("beta", "u2"), "b", {"text": "small"}),
        ]
    )
    store.put(("acme", "u1"), "c", {"text": "hello world"})
    store.batch([GetOp(("acme", "u1", "notes"), "a"), GetOp(("beta", "u2"), "b")])
    store.search(("acme", "u1"), query="hello")
    store.search(("acme",), limit=5)
    store.list_namespaces(prefix=("beta",))
    store.delete(("beta", "u2"), "b")


@pytest.fixture
def emulated() -> Iterator[None]:
    with mock_aws():
        yield


def make_store(table: str = TABLE, **kwargs: Any) -> DynamoDBStore:
    store = DynamoDBStore(table, region_name="us-east-1", index=index(), **kwargs)  # type: ignore[arg-type]
    store.setup()
    return store


def test_every_request_asks_for_capacity_and_none_is_added(emulated: None) -> None:
    plain = make_store()
    plain_requests = Requests(plain.client)
    workload(plain)
    records: list[UsageRecord] = []
    metered = make_store("metered", on_usage=records.append)
    metered_requests = Requests(metered.client)
    records.clear()
    workload(metered)

    assert metered_requests.counts() == plain_requests.counts()
    assert all(
        body.get("ReturnConsumedCapacity") == "TOTAL" for _, body in metered_requests.sent
    ), [name for name, body in metered_requests.sent if "ReturnConsumedCapacity" not in body]
    assert all("ReturnConsumedCapacity" not in body for _, body in plain_requests.sent)
    # A record at least per successful request (a batch over two groups gives two); a
    # refused conditional write reports no capacity (nor does DynamoDB's error).
    reported = Counter(r.operation for r in records if r.operation != EMBED)
    assert all(reported[name] >= n for name, n in metered_requests.succeeded.items())


def test_units_and_embeddings_land_on_their_tenant(emulated: None) -> None:
    records: list[UsageRecord] = []
    store = make_store(on_usage=records.append)
    store.batch(
        [
            PutOp(("acme", "u1", "notes"), "a", {"text": "x" * 3000}),
            PutOp(("beta", "u2"), "b", {"text": "small"}),
        ]
    )
    shares = {r.tenant: r.write_units for r in records if r.operation == "BatchWriteItem"}
    # acme's item is ~4 KB, beta's under 1 KB: the batch's units are apportioned by size,
    # not halved (and the registry rows each put registered count for their own group).
    assert shares["acme.u1"] > 3 * shares["beta.u2"] > 0
    registered = {r.tenant for r in records if r.operation == "UpdateItem"}
    assert registered == {"acme.u1", "beta.u2"}
    embedded = {
        r.tenant: (r.embedding_texts, r.embedding_chars) for r in records if r.operation == EMBED
    }
    assert embedded == {"acme.u1": (1, 3000), "beta.u2": (1, 5)}

    records.clear()
    store.search(("beta", "u2"), query="small words")
    searched = [r for r in records if r.operation in ("SearchVectors", EMBED)]
    assert {r.tenant for r in searched} == {"beta.u2"}
    assert sum(r.vector_search_bytes for r in searched) > 0
    assert sum(r.embedding_chars for r in searched) == len("small words")


def test_a_batch_over_two_groups_splits_what_dynamodb_reported(emulated: None) -> None:
    records: list[UsageRecord] = []
    store = make_store(on_usage=records.append)
    store.batch([PutOp(("acme", "u1"), str(n), {"text": "t"}) for n in range(3)])
    reported: list[float] = []

    def total(model: Any, parsed: Any, **_: Any) -> None:
        if model.name == "BatchGetItem":
            reported.extend(c["CapacityUnits"] for c in parsed["ConsumedCapacity"])

    store.client.meta.events.register("after-call.dynamodb", total)
    records.clear()
    store.batch([GetOp(("acme", "u1"), str(n)) for n in range(3)] + [GetOp(("beta", "u2"), "x")])
    shares = {r.tenant: r.read_units for r in records if r.operation == "BatchGetItem"}
    assert set(shares) == {"acme.u1", "beta.u2"}
    assert sum(shares.values()) == pytest.approx(sum(reported))
    assert shares["acme.u1"] == pytest.approx(3 * shares["beta.u2"])


def batch_write_units(records: list[UsageRecord]) -> dict[str, float]:
    units: Counter[str] = Counter()
    for r in records:
        if r.operation == "BatchWriteItem":
            units[r.tenant] += r.write_units
    return dict(units)


def test_unprocessed_writes_are_billed_once_to_the_tenant_whose_rows_they_are(
    emulated: None,
) -> None:
    """A BatchWriteItem DynamoDB half-applies (`UnprocessedItems`, retried until done)
    bills each tenant what its rows cost written once, as the same batch applied whole."""
    ops = [PutOp(("acme", "u1"), str(n), {"text": "x" * 2500}) for n in range(4)]
    ops += [PutOp(("beta", "u2"), str(n), {"text": "small"}) for n in range(4)]

    def billed(table: str, unprocessed: bool) -> dict[str, float]:
        records: list[UsageRecord] = []
        store = make_store(table, on_usage=records.append)
        faults = FaultLayer(
            store.client,
            rate=1.0 if unprocessed else 0.0,
            kinds=(UNPROCESSED,),
            when=lambda operation, _: operation == "BatchWriteItem",
        )
        records.clear()
        store.batch(ops)
        assert faults.injected[UNPROCESSED] >= (2 if unprocessed else 0)
        return batch_write_units(records)

    whole = billed("whole", unprocessed=False)
    assert whole["acme.u1"] > 2 * whole["beta.u2"] > 0
    retried = billed("retried", unprocessed=True)
    assert retried == pytest.approx(whole)


def test_a_batch_write_bills_only_the_rows_it_applied() -> None:
    """`usage_records` on answers with `UnprocessedItems`: the units go to the groups of
    the rows applied; the rows left are billed by the retry that applies them."""
    acme = [
        {"PutRequest": {"Item": {"PK": {"S": "acme.u1.notes"}, "SK": {"S": f"k#{n}"}}}}
        for n in range(2)
    ]
    beta = [{"DeleteRequest": {"Key": {"PK": {"S": "beta.u2"}, "SK": {"S": "k#0"}}}}]
    ours = {"TableName": TABLE, "CapacityUnits": 2.0}

    def billed(requests: list[dict[str, Any]], left: list[dict[str, Any]], units: float) -> Any:
        params = {"RequestItems": {TABLE: requests}}
        answer: dict[str, Any] = {"ConsumedCapacity": [{**ours, "CapacityUnits": units}]}
        if left:
            answer["UnprocessedItems"] = {TABLE: left}
        return {r.tenant: r.write_units for r in usage_records("BatchWriteItem", params, answer, 0)}

    assert billed(acme + beta, beta, 2.0) == {"acme.u1": 2.0}
    assert billed(acme + beta, acme, 1.0) == {"beta.u2": 1.0}
    assert billed(beta, [], 1.0) == {"beta.u2": 1.0}
    assert billed(acme + beta, [], 3.0) == {"acme.u1": 2.0, "beta.u2": 1.0}


def test_each_search_and_listing_is_billed_to_its_tenant(emulated: None) -> None:
    """Queries naming the partition as `PK = :pk` (the recency index, the registry) count
    for the group they read, not the shared rows."""
    records: list[UsageRecord] = []
    store = make_store(on_usage=records.append)
    store.put(("acme", "u1", "notes"), "a", {"text": "hello"})
    store.put(("beta", "u2"), "b", {"text": "small"})
    for tenant, read in (
        ("acme.u1", lambda: store.search(("acme", "u1", "notes"), limit=5)),
        ("acme.u1", lambda: store.search(("acme", "u1"), limit=5)),
        ("beta.u2", lambda: store.list_namespaces(prefix=("beta", "u2"))),
    ):
        records.clear()
        read()
        queried = {r.tenant for r in records if r.operation == "Query"}
        assert queried == {tenant}


def test_answers_without_capacity_give_no_record_and_no_error(
    emulated: None, caplog: pytest.LogCaptureFixture
) -> None:
    """A write refused on its condition answers without capacity (as DynamoDB does): no
    record, and nothing logged as a failure to attribute it."""
    records: list[UsageRecord] = []
    store = make_store(on_usage=records.append)
    row = {"PK": {"S": "acme.u1"}, "SK": {"S": "k#a"}}
    store.client.put_item(TableName=TABLE, Item=row)
    records.clear()
    with caplog.at_level(logging.ERROR), pytest.raises(ClientError):
        store.client.put_item(
            TableName=TABLE, Item=row, ConditionExpression="attribute_not_exists(PK)"
        )
    assert records == []
    assert caplog.records == []


def test_a_batch_deleting_group_rows_bills_the_groups_they_name() -> None:
    """A `._groups` row (a purge deletes it, a copy writes it) counts for the group it
    names, in a batch as in a single write."""
    batch = {
        "RequestItems": {
            TABLE: [
                {"DeleteRequest": {"Key": {"PK": {"S": "._groups"}, "SK": {"S": "acme.u1."}}}},
                {"DeleteRequest": {"Key": {"PK": {"S": "beta.u2"}, "SK": {"S": "k#a"}}}},
            ]
        }
    }
    answer = {"ConsumedCapacity": [{"TableName": TABLE, "CapacityUnits": 2.0}]}
    shares = {r.tenant: r.write_units for r in usage_records("BatchWriteItem", batch, answer, 0)}
    assert shares == {"acme.u1": 1.0, "beta.u2": 1.0}


def test_the_consumer_flushes_a_buffering_sink_after_each_batch(emulated: None) -> None:
    """A Lambda invocation can be the last before the environment freezes: the consumer
    writes a windowed sink's sums at the end of every batch, not when the window ends."""
    store = DynamoDBStore(TABLE, region_name="us-east-1", index=index("stream"))  # type: ignore[arg-type]
    store.setup()
    out = io.StringIO()
    sink = UsageLogSink(
        Logger(service="usage-consumer", logger_handler=logging.StreamHandler(out)),
        window_seconds=3600,
    )
    consumer = StreamConsumer(
        TABLE, region_name="us-east-1", embeddings=LexicalEmbeddings(dims=DIMS), on_usage=sink
    )
    store.put(("acme", "u1"), "a", {"text": "stream me"})
    assert drain_stream(TABLE, consumer.handle, filter_patterns=FILTER_PATTERNS).ok
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert {(line["tenant"], line["operation"]) for line in lines} >= {("acme.u1", EMBED)}


def test_a_failing_hook_never_fails_the_store(
    emulated: None, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(record: UsageRecord) -> None:
        raise RuntimeError("billing is down")

    store = make_store(on_usage=broken)
    with caplog.at_level(logging.ERROR):
        store.put(("acme", "u1"), "a", {"text": "hello"})
        item = store.get(("acme", "u1"), "a")
    assert item is not None and item.value == {"text": "hello"}
    assert "billing is down" in caplog.text


def test_reindex_and_the_stream_consumer_report_by_tenant(emulated: None) -> None:
    records: list[UsageRecord] = []
    store = DynamoDBStore(
        TABLE, region_name="us-east-1", index=index("stream"), on_usage=records.append
    )  # type: ignore[arg-type]
    store.setup()
    consumer_records: list[UsageRecord] = []
    consumer = StreamConsumer(
        TABLE,
        region_name="us-east-1",
        embeddings=LexicalEmbeddings(dims=DIMS),
        on_usage=consumer_records.append,
    )
    store.put(("acme", "u1"), "a", {"text": "stream me"})
    drain_stream(TABLE, consumer.handle, filter_patterns=FILTER_PATTERNS)
    embedded = [r for r in consumer_records if r.operation == EMBED]
    assert [(r.tenant, r.embedding_chars) for r in embedded] == [("acme.u1", len("stream me"))]
    assert any(r.tenant == "acme.u1" and r.write_units > 0 for r in consumer_records)

    records.clear()
    reindex(store, restart=True)
    assert {r.tenant for r in records if r.operation == "Query"} >= {"acme.u1"}


def test_the_log_sink_writes_one_json_object_per_tenant_and_window() -> None:
    out = io.StringIO()
    sink = UsageLogSink(Logger(service="usage-test", logger_handler=logging.StreamHandler(out)))
    for n in range(3):
        sink(
            UsageRecord(group=("acme", "u1"), operation="Query", table=TABLE, at=n, read_units=0.5)
        )
    sink(UsageRecord(group=("beta", "u2"), operation="Query", table=TABLE, at=1, read_units=1.0))
    assert out.getvalue() == ""  # summed until the window passes or a flush
    sink.flush()
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert sorted((line["tenant"], line["read_units"], line["at"]) for line in lines) == [
        ("acme.u1", 1.5, 2),  # a window's sum is stamped with its latest record
        ("beta.u2", 1.0, 1),
    ]
    assert all(line["operation"] == "Query" and line["table"] == TABLE for line in lines)

    unbuffered = io.StringIO()
    each = UsageLogSink(
        Logger(service="usage-each", logger_handler=logging.StreamHandler(unbuffered)),
        window_seconds=0,
    )
    each(UsageRecord(group=(), operation="GetItem", table=TABLE, at=0, read_units=1.0))
    assert json.loads(unbuffered.getvalue())["tenant"] == ""
