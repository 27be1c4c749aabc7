"""Erasure: forgetting a thread removes the memories formed from it, its ledger and its
cursors; a purge of a tenant (with the saver's erasure sources, which hold extraction's)
removes them all; and an
extraction racing a purge leaves nothing, wherever between two of its requests the purge
lands."""

from __future__ import annotations

import functools
from typing import Any

import boto3
import pytest
from langchain_aws import ChatBedrockConverse
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.table.schema import EXTRACTION_KIND, ITEM_PREFIX, PK, SK, THREAD_KIND
from langgraph.store.dynamodb.testing import mock_aws

from tests.support import scan_table

from .conftest import NAMESPACE, TABLE, TENANT, Tables, open_tables

OTHER = "globex"


def tenant_rows(tables: Tables, tenant: str = TENANT) -> list[str]:
    """Every row of the tenant's threads, extraction and memories, as `PK SK`."""
    kinds = (f"{THREAD_KIND}{tenant}", f"{EXTRACTION_KIND}{tenant}", f"memories.{tenant}.")
    return sorted(
        f"{row[PK]['S']} {row[SK]['S']}"
        for row in scan_table(tables.store.client, TABLE)
        if row[PK]["S"].startswith(kinds)
    )


def purge(store: DynamoDBStore, saver: DynamoDBSaver) -> int:
    sources = saver.for_tenant(TENANT).erasure_sources()
    return store.purge(("memories", TENANT), sources=sources).rows_left


def test_forgetting_a_thread_removes_only_its_memories(tables: Tables) -> None:
    tables.say("t1", "I prefer tea.")
    tables.say("t2", "My dog is Rex.")
    tables.extractor.run(TENANT, "t1")
    tables.extractor.run(TENANT, "t2")
    assert tables.extractor.forget_thread(TENANT, "t1") == 1
    assert tables.facts() == ["User's dog is Rex"]
    forgotten, kept = tables.extractor.status(TENANT)
    assert (forgotten.thread_id, forgotten.memories, forgotten.lag_messages) == ("t1", 0, 0)
    assert forgotten.checkpoint_id == forgotten.newest_checkpoint_id  # nothing to extract
    assert (kept.thread_id, kept.memories) == ("t2", 1)
    assert not [r for r in tenant_rows(tables) if r.startswith(f"{EXTRACTION_KIND}{TENANT}/t1")]


def test_a_tenant_purge_removes_memories_ledger_cursors_and_budget(tables: Tables) -> None:
    tables.say("t1", "I prefer tea.")
    tables.say("t1", "I own a boat.", tenant=OTHER)
    tables.extractor.run(TENANT, "t1")
    tables.extractor.run(OTHER, "t1")
    other_before = tenant_rows(tables, OTHER)
    assert any(r.startswith(EXTRACTION_KIND) for r in tenant_rows(tables))
    assert purge(tables.store, tables.saver) == 0
    assert tenant_rows(tables) == [] and tables.facts() == []
    assert tenant_rows(tables, OTHER) == other_before


class PurgeAt:
    """Runs a purge (through its own clients) just before the `at`-th request the
    extractor's clients send."""

    def __init__(self, clients: list[Any], at: int | None, purge: Any) -> None:
        self.sent = 0
        self.at = at
        self.purge = purge
        self.done = False
        for client in clients:
            client.meta.events.register("before-call", self._before)

    def _before(self, **_: Any) -> None:
        if self.sent == self.at and not self.done:
            self.done = True
            self.purge()
        self.sent += 1


def race(at: int | None) -> tuple[int, list[str], list[Any]]:
    """One extraction with the purge before request `at` (None: no purge): requests
    sent, the tenant's rows left, namespaces left under the tenant."""
    with mock_aws():
        bedrock = boto3.client("bedrock-runtime", region_name="us-east-1")

        def model(model_id: str) -> ChatBedrockConverse:
            return ChatBedrockConverse(model=model_id, client=bedrock, region_name="us-east-1")

        with open_tables(model=model) as tables:
            tables.say("t1", "I prefer tea. My dog is Rex.")
            with (
                DynamoDBStore(TABLE, region_name="us-east-1") as store,
                DynamoDBSaver(TABLE, region_name="us-east-1", tenant_key="tenant") as saver,
            ):
                clients = [tables.store.client, tables.saver.client, bedrock]
                hook = PurgeAt(clients, at, functools.partial(purge, store, saver))
                tables.extractor.run(TENANT, "t1")
                sent = hook.sent
                assert at is None or hook.done
                left = tenant_rows(tables)
                namespaces = tables.store.list_namespaces(prefix=("memories", TENANT))
                return sent, left, namespaces


def test_without_a_purge_the_run_forms_its_memories() -> None:
    sent, left, namespaces = race(None)
    assert sent > 5 and namespaces == [NAMESPACE]
    assert len([r for r in left if f" {ITEM_PREFIX}" in r]) == 2


REQUESTS = race(None)[0]


@pytest.mark.parametrize("at", range(REQUESTS))
def test_an_extraction_racing_a_purge_leaves_nothing(at: int) -> None:
    _, left, namespaces = race(at)
    assert left == [] and namespaces == []
