"""Every call of the saver, sync and async, with large values, TTL refresh and a tenant:
the workload the permission tests record and the deployed roles run."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.checkpoint.dynamodb import DynamoDBSaver

from tests.checkpoint.graphs import chat_graph, say
from tests.support import FakeClock

TENANT = "acme"


def use_threads(saver: DynamoDBSaver, clock: FakeClock) -> None:
    """`saver` has `tenant_key="tenant"` and a TTL whose tenth is under 20 minutes."""
    graph = chat_graph(saver)
    config = {"configurable": {"thread_id": "t1", "tenant": TENANT}}
    graph.invoke(say("hello"), config)
    graph.invoke(say("big " + "x" * 500_000), config)
    latest = saver.get_tuple(config)
    assert latest is not None
    saver.put_writes(latest.config, [("messages", "y" * 400_000)], "task-big")
    clock.advance(20 * 60)
    assert saver.get_tuple(config) is not None  # slides the TTL
    assert len(list(saver.list(config, limit=10, filter={"source": "loop"}))) > 0
    acme = saver.for_tenant(TENANT)
    assert acme.threads() == ["t1"]
    assert len(list(acme.list(None, limit=3))) == 3
    acme.copy_thread("t1", "t2")
    acme.prune(["t2"])
    acme.delete_for_runs(["no-such-run"])
    acme.delete_thread("t2")
    asyncio.run(_use_async(saver, config))


async def _use_async(saver: DynamoDBSaver, config: dict[str, Any]) -> None:
    assert await saver.aget_tuple(config) is not None
    assert [t async for t in saver.alist(config, limit=2)]
    acme = saver.for_tenant(TENANT)
    await acme.acopy_thread("t1", "t3")
    await acme.aprune(["t3"], strategy="delete")
    await acme.adelete_thread("t1")
