"""A checkpointer's usage: `DynamoDBSaver(on_usage=...)` reports each request's capacity at
no extra request, attributed to its tenant's threads (`(".threads", tenant)`)."""

from __future__ import annotations

from collections import Counter

from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.table.thread_keys import Thread, registry_pk, run_pk, run_sk
from langgraph.store.dynamodb.table.usage import (
    THREADS,
    UsageRecord,
    group_of_partition,
    usage_records,
)
from langgraph.store.dynamodb.testing import mock_aws

from tests.checkpoint.graphs import chat_graph, say
from tests.support import RequestCounter


def run(saver: DynamoDBSaver) -> int:
    counter = RequestCounter(saver.client)
    graph = chat_graph(saver)
    for tenant in ("acme", "globex"):
        config = {"configurable": {"thread_id": "t", "tenant": tenant}}
        # "sync": a later step's put_writes never overtakes its put, which would register
        # the thread with one more request in one run and not the other.
        graph.invoke(say("hello " * 400), config, durability="sync")
        assert saver.get_tuple(config) is not None
    saver.for_tenant("acme").delete_thread("t")
    return counter.total


def test_a_savers_requests_are_billed_to_its_tenants_at_no_extra_request() -> None:
    records: list[UsageRecord] = []
    with mock_aws():
        with DynamoDBSaver.from_table(
            "threads", region_name="us-east-1", setup=True, tenant_key="tenant"
        ) as plain:
            without = run(plain)
        with DynamoDBSaver(
            "threads-2", region_name="us-east-1", tenant_key="tenant", on_usage=records.append
        ) as metered:
            metered.setup()
            records.clear()
            assert run(metered) == without
    groups = Counter(r.group for r in records)
    assert set(groups) == {(THREADS, "acme"), (THREADS, "globex")}
    writes = Counter()
    for r in records:
        writes[(r.tenant, r.operation)] += r.write_units
    # A turn's units split between its puts (TransactWriteItems) and put_writes
    # (UpdateItem) by which lands first on the row, a race LangGraph leaves open even
    # under "sync" (the input checkpoint's put is not awaited before the first step).
    acme, globex = (
        writes[(f"{THREADS}.{t}", "TransactWriteItems")] + writes[(f"{THREADS}.{t}", "UpdateItem")]
        for t in ("acme", "globex")
    )
    assert acme > 0 and abs(acme - globex) <= 0.2 * acme  # the same turns; keys differ in size
    assert writes[(".threads.acme", "BatchWriteItem")] > 0  # the deletion
    # a read is a Query: checkpoints hold their values (no BatchGetItem for them)
    assert sum(r.read_units for r in records if r.operation == "Query") > 0


TENANTS = ("acme", "glo/bex%")  # the second is escaped in its partition keys


def test_a_runs_index_is_billed_to_its_tenant() -> None:
    """The run index rows a put writes and `delete_for_runs` reads and deletes (`.r/`
    partitions) are the tenant's usage, like its threads'."""
    records: list[UsageRecord] = []
    with (
        mock_aws(),
        DynamoDBSaver.from_table(
            "runs",
            region_name="us-east-1",
            setup=True,
            tenant_key="tenant",
            on_usage=records.append,
        ) as saver,
    ):
        graph = chat_graph(saver)
        for tenant in TENANTS:
            config = {
                "configurable": {"thread_id": "t", "tenant": tenant},
                "metadata": {"run_id": f"run-{tenant}"},
            }
            graph.invoke(say("hello"), config)
        assert {r.group for r in records} == {(THREADS, t) for t in TENANTS}
        for tenant in TENANTS:
            records.clear()
            saver.for_tenant(tenant).delete_for_runs([f"run-{tenant}"])
            assert {r.group for r in records} == {(THREADS, tenant)}, tenant
            assert {r.operation for r in records} >= {"Query", "BatchWriteItem"}
            assert saver.get_tuple({"configurable": {"thread_id": "t", "tenant": tenant}}) is None


def test_every_partition_of_a_tenants_threads_counts_for_that_tenant() -> None:
    """`group_of_partition` and `usage_records` on the saver's keys: a thread, the thread
    registry, a run's index, by key, by key condition and inside a transaction."""
    for tenant in (*TENANTS, ""):
        group = (THREADS, tenant)
        thread = Thread(tenant, "t/1")
        run = run_pk(tenant, "run/1")
        assert group_of_partition(thread.pk, "c##1") == group
        assert group_of_partition(registry_pk(tenant), "t/1") == group
        assert group_of_partition(run, run_sk("t/1", "", "1")) == group
        asked = {
            "TableName": "threads",
            "KeyConditionExpression": "#pk = :pk",
            "ExpressionAttributeNames": {"#pk": "PK"},
            "ExpressionAttributeValues": {":pk": {"S": run}},
        }
        answer = {"ConsumedCapacity": {"TableName": "threads", "CapacityUnits": 1.0}}
        [query] = usage_records("Query", asked, answer, 0)
        assert (query.group, query.read_units) == (group, 1.0)
        put = {
            "TransactItems": [
                {
                    "Update": {
                        "TableName": "threads",
                        "Key": {"PK": {"S": thread.pk}, "SK": {"S": "c##1"}},
                    }
                },
                {"Put": {"TableName": "threads", "Item": {"PK": {"S": run}, "SK": {"S": "t#"}}}},
            ]
        }
        answer = {"ConsumedCapacity": [{"TableName": "threads", "CapacityUnits": 4.0}]}
        [transaction] = usage_records("TransactWriteItems", put, answer, 0)
        assert (transaction.group, transaction.write_units) == (group, 4.0)
