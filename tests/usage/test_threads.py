"""A checkpointer's usage: `DynamoDBSaver(on_usage=...)` reports each request's capacity at
no extra request, attributed to its tenant's threads (`(".threads", tenant)`)."""

from __future__ import annotations

from collections import Counter

from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.table.usage import THREADS, UsageRecord
from langgraph.store.dynamodb.testing import mock_aws

from tests.checkpoint.graphs import chat_graph, say
from tests.support import RequestCounter


def run(saver: DynamoDBSaver) -> int:
    counter = RequestCounter(saver.client)
    graph = chat_graph(saver)
    for tenant in ("acme", "globex"):
        config = {"configurable": {"thread_id": "t", "tenant": tenant}}
        graph.invoke(say("hello " * 400), config)
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
    acme, globex = (writes[(f"{THREADS}.{t}", "TransactWriteItems")] for t in ("acme", "globex"))
    assert acme > 0 and abs(acme - globex) <= 0.2 * acme  # the same turns; keys differ in size
    assert writes[(".threads.acme", "BatchWriteItem")] > 0  # the deletion
    assert sum(r.read_units for r in records if r.operation == "BatchGetItem") > 0
