"""LangGraph's checkpointer conformance suite against the saver on the shipped emulation:
every base capability and every extended one (`delete_for_runs`, `copy_thread`, `prune`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.capabilities import (
    BASE_CAPABILITIES,
    EXTENDED_CAPABILITIES,
)
from langgraph.checkpoint.conformance.report import ProgressCallbacks
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.testing import mock_aws


async def _emulation() -> AsyncIterator[None]:
    with mock_aws():
        yield


@checkpointer_test(name="DynamoDBSaver", lifespan=_emulation)
async def dynamodb_saver() -> AsyncIterator[DynamoDBSaver]:
    async with DynamoDBSaver("conformance", region_name="us-east-1", tenant_key=None) as saver:
        await saver.asetup()
        yield saver


async def test_passes_every_base_and_extended_capability() -> None:
    report = await validate(dynamodb_saver, progress=ProgressCallbacks.verbose())
    report.print_report()
    base = {c.value for c in BASE_CAPABILITIES}
    extended = {c.value for c in EXTENDED_CAPABILITIES}
    assert {c for c in base if report.results[c].passed} == base
    assert {c for c in extended if report.results[c].passed} == extended
    failures = [f for r in report.results.values() for f in r.failures]
    assert failures == []
