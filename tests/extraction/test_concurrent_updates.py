"""Two extractions of one tenant running at once never lose an update: two extractors
(each with its own store, saver and client, as two Lambda invocations have), on two
threads of one user, both revise the same memory. A hook on each client holds its first
write of that memory until both extractions have read and decided, so both write against
the same version: one write is refused, that extraction reads again and
redoes its update, and the memory keeps both."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from typing import Any

import pytest
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.embedders.build import embedder
from langgraph.store.dynamodb.extraction import Extractor, RunReport
from langgraph.store.dynamodb.recall.fields import CONTENT, REVISIONS, TEXT
from langgraph.store.dynamodb.table.keys import item_sort_key
from langgraph.store.dynamodb.table.schema import SK
from langgraph.store.dynamodb.testing import mock_aws

from .conftest import NAMESPACE, TABLE, TENANT, Tables, open_tables

# Both extractions wait here, each at its first conditional write of a memory.
WAIT_SECONDS = 30


class Rendezvous:
    """Holds each client's first write of the memory at `key` until every client has
    reached its own (so all have read the same version); counts the writes the table
    refused because the memory changed since it was read."""

    def __init__(self, parties: int, key: str) -> None:
        self.barrier = threading.Barrier(parties, timeout=WAIT_SECONDS)
        self.sort_key = item_sort_key(key)
        self.refused = 0
        self._lock = threading.Lock()

    def attach(self, client: Any) -> None:
        held = threading.Event()

        def before(params: dict[str, Any], **_: Any) -> None:
            written = json.loads(params["body"])["Key"][SK]["S"]
            if written == self.sort_key and not held.is_set():
                held.set()
                self.barrier.wait()

        client.meta.events.register("before-call.dynamodb.UpdateItem", before)
        client.meta.events.register("after-call.dynamodb.UpdateItem", self._after)

    def _after(self, parsed: dict[str, Any], **_: Any) -> None:
        if parsed.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
            with self._lock:
                self.refused += 1


@pytest.fixture
def tables() -> Iterator[Tables]:
    with mock_aws(), open_tables() as opened:
        yield opened


def extractors(stack: ExitStack, count: int) -> list[Extractor]:
    """`count` extractors on the table, each with its own store, saver and client."""
    index = {"dims": 16, "embed": embedder("lexical", 16), "fields": ["text"]}
    found = []
    for _ in range(count):
        store = stack.enter_context(DynamoDBStore(TABLE, region_name="us-east-1", index=index))  # type: ignore[arg-type]
        saver = stack.enter_context(
            DynamoDBSaver(TABLE, region_name="us-east-1", tenant_key="tenant")
        )
        found.append(Extractor(store, saver))
    return found


def test_two_concurrent_extractions_updating_one_memory_lose_neither_update(
    tables: Tables,
) -> None:
    tables.say("t1", "My dog is Rex.")
    tables.extractor.run(TENANT, "t1")
    (key,) = [item.key for item in tables.store.search(NAMESPACE, limit=10)]
    tables.say("t2", "My dog is Rex the beagle.")
    tables.say("t3", "My dog is Rex the brave.")
    rendezvous = Rendezvous(2, key)
    with ExitStack() as stack:
        both = extractors(stack, 2)
        for extractor in both:
            rendezvous.attach(extractor.store.client)
        with ThreadPoolExecutor(max_workers=2) as pool:
            runs = list(
                pool.map(
                    lambda job: job[0].run(TENANT, job[1]), zip(both, ("t2", "t3"), strict=True)
                )
            )
    assert [written(report) for report in runs] == [(key,), (key,)]
    item = tables.store.get(NAMESPACE, key)
    assert item is not None
    history = [r[CONTENT][TEXT] for r in item.value.get(REVISIONS, [])] + [item.value[TEXT]]
    assert history[0] == "User's dog is Rex"
    assert sorted(history[1:]) == ["User's dog is Rex the beagle", "User's dog is Rex the brave"]
    assert rendezvous.refused == 1  # the second writer lost the race once, then redid it


def written(report: RunReport) -> tuple[str, ...]:
    (run,) = report.runs
    return run.written
