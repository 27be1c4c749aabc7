"""Every request each component sends is declared in `permissions.NEEDS`, and every
declaration is used: the grants derived from it are exactly what the code needs.

Each test runs one component across its whole surface on the emulation, recording the
requests at botocore's boundary; setup done on its behalf (tables, items to work on) runs
outside the recording. Lambda's stream poller (`Component.STREAM_POLLER`) is Lambda's own
code; `tests/infra` runs its calls under the consumer's role.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.base import GetOp, ListNamespacesOp, PutOp, SearchOp
from langgraph.store.dynamodb import DynamoDBStore, reindex
from langgraph.store.dynamodb.embedders.build import bedrock_embeddings
from langgraph.store.dynamodb.extraction import ExtractionConfig, SemanticFacts, Trigger
from langgraph.store.dynamodb.extraction.worker.queue_worker import worker_from_env
from langgraph.store.dynamodb.items.index_config import parse_index_shape
from langgraph.store.dynamodb.jobs.migration import copy_table
from langgraph.store.dynamodb.stream.consumer import EXTRACTION_PATTERNS, consumer_from_env
from langgraph.store.dynamodb.table.permissions import (
    KEYED_ACTIONS,
    NEEDS,
    SHARED_ROWS,
    Component,
    On,
    Permission,
)
from langgraph.store.dynamodb.table.table_spec import table_spec, ttl_spec
from langgraph.store.dynamodb.testing import drain_stream, expire_ttl_items, mock_aws
from langgraph.store.dynamodb.testing.queues import advance_queue, drain_queue, sqs_record

from tests.checkpoint.graphs import chat_graph, say
from tests.checkpoint.workload import use_threads
from tests.extraction.test_worker import BrokenModel
from tests.fault.layer import UNPROCESSED, FaultLayer
from tests.support import FakeClock

from .recorder import DEAD_LETTERS, SHARED_PARTITIONS, Call, Recorder
from .setup_paths import SETUP_OF
from .setup_paths import deployed_table as pinned_table

TABLE = "memory"
REGION = "us-east-1"
MODEL = "amazon.titan-embed-text-v2:0"
DIMS = 256
NS = ("memories", "acme", "u1")
OTHER = ("memories", "acme", "u2")


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorder]:
    with mock_aws():
        yield Recorder(monkeypatch)


def index(**overrides: Any) -> dict[str, Any]:
    config: dict[str, Any] = {
        "dims": DIMS,
        "embed": bedrock_embeddings(MODEL, DIMS, False, region_name=REGION),
        "fields": ["text"],
        "filter_fields": ["kind"],
    }
    config.update(overrides)
    return config


def store(table: str = TABLE, **kwargs: Any) -> DynamoDBStore:
    kwargs.setdefault("index", index())
    return DynamoDBStore(table, region_name=REGION, **kwargs)


def admin_setup(table: str = TABLE, **index_overrides: Any) -> DynamoDBStore:
    """The table as the CDK stack or an operator's `setup()` leaves it (not recorded)."""
    admin = store(table, index=index(**index_overrides))
    admin.setup()
    return admin


def check(component: Component, calls: list[Call]) -> None:
    """Every call declared; every declaration called."""
    assert calls, f"{component} sent no request"
    needs = NEEDS[component]
    used = frozenset().union(*(c.permissions for c in calls))
    undeclared = sorted(used - needs)
    assert not undeclared, (
        f"{component} sent requests store/langgraph/store/dynamodb/table/permissions.py does not declare for it: "
        f"{undeclared}; first such call: "
        f"{next(str(c) for c in calls if c.permissions & set(undeclared))}"
    )
    unused = sorted(needs - used)
    assert not unused, (
        f"store/langgraph/store/dynamodb/table/permissions.py grants {component} {unused}, which no request used: drop "
        "them, or exercise the path that needs them here"
    )


def check_shared_rows(calls: list[Call]) -> None:
    """Requests to the rows all tenants share use only what `SHARED_ROWS` grants a tenant
    on each, and never mix partitions in one request (a tenant policy could not allow it)."""
    for call in calls:
        partitions = call.partitions()
        if call.permission.action in KEYED_ACTIONS and partitions & SHARED_PARTITIONS:
            [partition] = partitions
            assert call.permission.action in SHARED_ROWS[partition], str(call)


def note(n: int, kind: str = "note", **extra: Any) -> dict[str, Any]:
    return {"text": f"memory {n} about sockets and proxies", "kind": kind, "n": n, **extra}


def use_the_whole_store(app: DynamoDBStore, clock: FakeClock) -> None:
    """Every public operation of a read-write store, sync and async, write mode (after
    its `setup()`)."""
    app.put(NS, "one", note(1))
    app.put(NS, "multi", {**note(2), "summary": "a proxy"}, index=["text", "summary"])
    app.put(NS, "plain", note(3), index=False)
    app.put(OTHER, "ttl", note(4), ttl=5)
    assert app.get(NS, "one") is not None
    assert app.get(OTHER, "ttl", refresh_ttl=True) is not None
    app.search(NS, filter={"kind": "note", "n": {"$gt": 0}}, limit=5)
    app.search(("memories",), limit=5, offset=1)
    app.search(("memories", "acme"), query="proxy closes sockets", limit=3)
    app.search(NS, query="proxy", filter={"kind": "note"})
    app.list_namespaces(prefix=("memories",), max_depth=3)
    app.list_namespaces(suffix=("u1",), limit=5)
    app.batch(
        [
            PutOp(NS, "b1", note(5)),
            PutOp(NS, "b2", note(6)),
            GetOp(NS, "b1"),
            SearchOp(("memories",), query="sockets", limit=2),
            ListNamespacesOp(),
        ]
    )
    app.put(NS, "multi", note(7), index=["text"])  # drops the extra vector row
    app.delete(OTHER, "ttl")  # empties OTHER: its registry row is marked
    clock.advance(20 * 60)  # past the grace period: a listing removes the row
    app.list_namespaces(prefix=("memories",))
    app.put(NS, "expiring", note(8), ttl=1)
    clock.advance(2 * 60)
    app.search(NS, limit=10)
    asyncio.run(use_async(app))


async def use_async(app: DynamoDBStore) -> None:
    await app.aput(NS, "async", note(9))
    await app.aget(NS, "async")
    await app.asearch(NS, query="sockets", limit=2)
    await app.asearch(NS, limit=2)
    await app.alist_namespaces(prefix=("memories",))
    await app.abatch([PutOp(NS, "a1", note(10)), GetOp(NS, "a1")])
    await app.adelete(NS, "async")


def deployed_table() -> None:
    """The table as the CDK stack deploys it: no model pinned yet (not recorded)."""
    client = boto3.client("dynamodb", region_name=REGION)
    shape = parse_index_shape({"dims": DIMS, "filter_fields": ["kind"]})
    client.create_table(TableName=TABLE, **table_spec(shape))
    client.update_time_to_live(TableName=TABLE, TimeToLiveSpecification=ttl_spec())


def test_the_store_sends_only_what_it_declares(recorder: Recorder, clock: FakeClock) -> None:
    deployed_table()
    app = store(ttl={"default_ttl": 60, "refresh_on_read": True})
    streaming = store(index=index(embed_on="stream"))
    with recorder.recording() as calls:
        app.setup()  # verifies the deployed table, pins the model (the app's role only)
    pinned = len(calls)
    with recorder.recording():
        use_the_whole_store(app, clock)
        streaming.put(NS, "streamed", note(11))
        streaming.put(NS, "streamed-multi", note(12), index=["text", "kind"])
    check(Component.STORE, calls)
    check_shared_rows(calls[pinned:])


def test_a_read_only_store_sends_only_reads(recorder: Recorder, clock: FakeClock) -> None:
    admin = admin_setup()
    admin.put(NS, "one", note(1), ttl=5)
    admin.put(OTHER, "two", note(2))
    reader = store()
    with recorder.recording() as calls:
        reader.setup()  # verifies the deployed table and the pinned model
        reader.get(NS, "one")
        reader.search(("memories",), filter={"kind": "note"})
        reader.search(("memories", "acme"), query="sockets", limit=5)
        reader.list_namespaces(prefix=("memories",))
        reader.batch([GetOp(OTHER, "two"), SearchOp(NS, query="proxy")])
        asyncio.run(reader.asearch(NS, query="sockets"))
    check(Component.STORE_READ, calls)
    check_shared_rows(calls)


def test_setup_sends_only_what_it_declares(recorder: Recorder) -> None:
    DynamoDBStore("kv-first", region_name=REGION).setup()  # a table from before the index
    with recorder.recording() as calls:
        store().setup()  # creates the table, its index and TTL, pins the model
        store("kv-first").setup()  # retrofits the index with UpdateTable
    check(Component.SETUP, calls)


def test_the_stream_consumer_sends_only_what_it_declares(
    recorder: Recorder, clock: FakeClock
) -> None:
    admin_setup(embed_on="stream", fields=["text", "summary"])
    app = store(index=index(embed_on="stream", fields=["text", "summary"]))
    queue = boto3.client("sqs", region_name=REGION).create_queue(QueueName="extraction")
    consumer = consumer_from_env(
        {
            "TABLE_NAME": TABLE,
            "EMBEDDING_MODEL_ID": MODEL,
            "EMBEDDING_DIMS": str(DIMS),
            "AWS_REGION": REGION,
            "EXTRACTION_QUEUE_URL": queue["QueueUrl"],
        }
    )
    with DynamoDBSaver(TABLE, region_name=REGION, tenant_key="tenant") as saver:
        config = {"configurable": {"thread_id": "t", "tenant": "acme"}}
        chat_graph(saver).invoke(say("hi"), config)  # a new checkpoint: routed
    app.put(NS, "one", note(1))
    app.put(NS, "multi", {**note(2), "summary": "proxy"})  # two vectors: extra rows
    app.put(NS, "ttl", note(3), ttl=1)
    with recorder.recording():
        drain(consumer)
    app.put(NS, "multi", note(4))  # overwritten with one vector: the extra row goes
    app.delete(NS, "one")
    with recorder.recording():
        drain(consumer)
    clock.advance(120)
    expire_ttl_items(TABLE, now=clock.now())  # the TTL sweep
    with recorder.recording():
        drain(consumer)
    app.put(NS, "retried", {**note(5), "summary": "throttled"})
    faults = FaultLayer(consumer.client, rate=0.5, kinds=(UNPROCESSED, "ThrottlingException"))
    with recorder.recording():
        drain(consumer)  # throttled requests and unprocessed batch items, retried
    assert faults.injected, "no fault was injected: the retries went untested"
    check(Component.CONSUMER, recorder.calls)


def drain(consumer: Any) -> None:
    report = drain_stream(TABLE, consumer.handle, filter_patterns=EXTRACTION_PATTERNS)
    assert report.ok, report


def test_reindex_sends_only_what_it_declares(recorder: Recorder, clock: FakeClock) -> None:
    kv = DynamoDBStore(TABLE, region_name=REGION)
    kv.setup()
    kv.put(NS, "one", note(1))
    kv.put(NS, "multi", {**note(2), "summary": "proxy"})
    indexed = store(index=index(fields=["text", "summary"]))
    indexed.setup()
    with recorder.recording() as calls:
        assert reindex(indexed, page_size=1).embedded == 2
        reindex(indexed, adopt_model=True)
    check(Component.REINDEX, calls)


def test_migration_sends_only_what_it_declares(recorder: Recorder) -> None:
    old = admin_setup("old")
    old.put(NS, "one", note(1))
    admin_setup("new")
    client = boto3.client("dynamodb", region_name=REGION)
    with recorder.recording() as calls:
        assert copy_table(client, "old", "new") > 0
    check(Component.MIGRATION, calls)


def test_purge_sends_only_what_it_declares(recorder: Recorder) -> None:
    app = admin_setup()
    app.put(NS, "one", note(1))
    app.put(NS, "multi", {**note(2), "summary": "proxy"}, index=["text", "summary"])
    app.put(("memories", "beta", "u1"), "two", note(3))
    with recorder.recording() as tenant_calls:
        assert app.purge(("memories", "acme")).rows_left == 0
    assert "dynamodb:Scan" not in {call.permission.action for call in tenant_calls}
    app.put(NS, "again", note(4))
    with recorder.recording() as calls:  # adds to the calls recorded above
        assert app.purge(("memories", "acme"), scan=True).rows_left == 0
        app.purge((), all_tenants=True)  # a wipe always finds its rows by a Scan
    check(Component.PURGE, calls)


def test_the_recorder_maps_requests_to_permissions(recorder: Recorder) -> None:
    admin_setup()
    client = boto3.client("dynamodb", region_name=REGION)
    with recorder.recording() as calls:
        client.query(
            TableName=TABLE,
            IndexName="recency",
            KeyConditionExpression="PK = :pk",
            ExpressionAttributeValues={":pk": {"S": "._groups"}},
        )
    [call] = calls
    assert call.permission == Permission("dynamodb:Query", call.permission.on)
    assert call.permission.on.value == "local index"
    assert call.partitions() == {"._groups"}


def test_the_recorder_maps_a_transaction_to_its_item_actions() -> None:
    """AWS authorizes each operation of a TransactWriteItems as its item action ("Using
    IAM with DynamoDB transactions"), so the recorder must too."""
    key = {"PK": {"S": ".t/acme/t"}, "SK": {"S": "c##1"}}
    operations = {
        "Put": ({"Item": key}, "dynamodb:PutItem"),
        "Update": ({"Key": key, "UpdateExpression": "SET a = :a"}, "dynamodb:UpdateItem"),
        "Delete": ({"Key": key}, "dynamodb:DeleteItem"),
        "ConditionCheck": ({"Key": key}, "dynamodb:ConditionCheckItem"),
    }
    for kind, (operation, action) in operations.items():
        items = [{kind: {"TableName": TABLE, **operation}}]
        call = Call("dynamodb", "TransactWriteItems", {"TransactItems": items})
        assert call.permissions == {Permission(action, On.TABLE)}, kind


def test_the_checkpointer_sends_only_what_it_declares(recorder: Recorder, clock: FakeClock) -> None:
    deployed_table()
    ttl = {"default_ttl": 60.0, "refresh_on_read": True}
    with (
        DynamoDBSaver(TABLE, region_name=REGION, ttl=ttl, tenant_key="tenant") as saver,
        recorder.recording() as calls,
    ):
        saver.setup()  # checks the deployed table, as an app's first call does
        use_threads(saver, clock)
    check(Component.CHECKPOINTER, calls)
    assert all(c.partitions() <= thread_partitions(calls) for c in calls)


def thread_partitions(calls: list[Call]) -> set[str]:
    """The partitions the checkpointer may touch: its threads', registry and run index
    partitions (none of the store's)."""
    found = set().union(*(c.partitions() for c in calls))
    assert found and all(p.startswith((".t/", ".r/")) for p in found), found
    return found


@pytest.mark.parametrize("component", [c for c, run in SETUP_OF.items() if run], ids=str)
def test_each_components_setup_sends_only_what_it_declares(
    recorder: Recorder, component: Component
) -> None:
    """`setup()` as each printed component's principal runs it (`SETUP_OF`), and that
    principal's first requests after it: all declared for that component."""
    if component is not Component.SETUP:
        pinned_table()  # deployed and pinned (not recorded)
    run = SETUP_OF[component]
    assert run is not None
    with recorder.recording() as calls:
        run(boto3.Session(region_name=REGION))
    assert any(c.operation == "DescribeTable" for c in calls), "setup() was not recorded"
    used = frozenset().union(*(c.permissions for c in calls))
    undeclared = sorted(used - NEEDS[component])
    assert not undeclared, f"{component}'s setup() needs {undeclared}, not in NEEDS"


def extraction_queues() -> tuple[str, str]:
    """The extraction queue and its dead-letter queue, as the stack deploys them."""
    sqs = boto3.client("sqs", region_name=REGION)
    dead = sqs.create_queue(QueueName=f"extraction{DEAD_LETTERS}")["QueueUrl"]
    return sqs.create_queue(QueueName="extraction")["QueueUrl"], dead


def received(queue: str) -> dict[str, Any]:
    """The queue's messages as the SQS event Lambda hands the extractor (not recorded)."""
    sqs = boto3.client("sqs", region_name=REGION)
    arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]
    messages = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10)["Messages"]
    for message in messages:
        sqs.delete_message(QueueUrl=queue, ReceiptHandle=message["ReceiptHandle"])
    return {"Records": [sqs_record(m, arn["QueueArn"], REGION) for m in messages]}


def test_the_extractor_sends_only_what_it_declares(recorder: Recorder, clock: FakeClock) -> None:
    admin_setup()
    queue, dead = extraction_queues()
    env = {
        "TABLE_NAME": TABLE,
        "EXTRACTION_QUEUE_URL": queue,
        "EXTRACTION_DLQ_URL": dead,
        "EMBEDDING_MODEL_ID": MODEL,
        "EMBEDDING_DIMS": str(DIMS),
        "EMBEDDING_FIELDS": "text",
        "THREAD_TENANT_KEY": "tenant",
    }
    worker = worker_from_env(env)
    facts = SemanticFacts(name="facts", namespace=("memories", "{tenant}", "{thread_id}"))
    later = SemanticFacts(
        name="later", namespace=("memories", "{tenant}", "later"), trigger=Trigger(idle_seconds=60)
    )
    worker.extractor.set_config(ExtractionConfig(strategies=[facts, later]))
    consumer = consumer_from_env({"TABLE_NAME": TABLE, "EXTRACTION_QUEUE_URL": queue})
    with DynamoDBSaver(TABLE, region_name=REGION, tenant_key="tenant") as saver:
        graph = chat_graph(saver)
        for thread in ("t1", "t2"):
            config = {"configurable": {"thread_id": thread, "tenant": "acme"}}
            graph.invoke(say("I prefer green tea. My dog is Rex."), config)
        # A window that forms nothing still spends tokens: counted while the cursor exists.
        graph.invoke(say("Hello there."), {"configurable": {"thread_id": "t0", "tenant": "acme"}})
        drain(consumer)
        event = received(queue)
        with recorder.recording() as calls:
            worker.handle(event)  # facts now; `later` deferred on the queue
        drain(consumer)  # the memories embedded, so consolidation finds them
        graph.invoke(
            say("I prefer green tea. My cat is Tom."),
            {"configurable": {"thread_id": "t2", "tenant": "acme"}},
        )
        drain(consumer)
        event = received(queue)
        with recorder.recording():
            worker.handle(event)  # consolidation searches the nearest memories
        # The Lambda consolidates by default: the tea, said again, is still one memory.
        formed = worker.extractor.store.search(("memories", "acme", "t2"), limit=10)
        assert sorted(item.value["text"] for item in formed) == [
            "User prefers green tea",
            "User's cat is Tom",
            "User's dog is Rex",
        ]
        graph.invoke(say("I own a boat."), {"configurable": {"thread_id": "t3", "tenant": "acme"}})
        drain(consumer)
        saver.for_tenant("acme").delete_thread("t3")
        event = received(queue)
        with recorder.recording() as gone:
            worker.handle(event)  # the thread is gone before its run: its cursors deleted
        clock.advance(61)
        advance_queue(queue, 61)
        broken = worker_from_env(env)
        broken.extractor._model = BrokenModel()
        graph.invoke(
            say("I live in Oslo."), {"configurable": {"thread_id": "t1", "tenant": "acme"}}
        )
        drain(consumer)
        event = received(queue)
        with recorder.recording():
            broken.handle(event)  # the model fails for good: dead-lettered
    check(Component.EXTRACTOR, [*calls, *gone])


def test_lambdas_queue_poller_sends_only_what_it_declares(recorder: Recorder) -> None:
    queue, _ = extraction_queues()
    sqs = boto3.client("sqs", region_name=REGION)
    for n in range(3):
        sqs.send_message(QueueUrl=queue, MessageBody=f"request {n}")
    failed: list[str] = []

    def fail_once(event: dict[str, Any], context: Any) -> dict[str, Any]:
        first = event["Records"][0]["messageId"]
        failures = [] if first in failed else [{"itemIdentifier": first}]
        failed.append(first)
        return {"batchItemFailures": failures}

    with recorder.recording() as calls:
        report = drain_queue(queue, fail_once)
    assert report.delivered == 3 and report.retries == 1
    check(Component.QUEUE_POLLER, calls)
