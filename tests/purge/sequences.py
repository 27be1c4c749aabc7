"""The failure sequences of issue 30 that leave a tenant's rows where no registry lists
them, each building its table on the emulation as a user's agent would: a tenant with
memories and threads beside its neighbours, a thread whose registry row expired, a refused
first put whose pending writes still landed, thread ids at DynamoDB's key limits, and a
writer racing a purge. `tests/census.py` then says what a purge must find."""

from __future__ import annotations

import contextlib
from typing import Any

from botocore.exceptions import ClientError
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.dynamodb import CheckpointTTL, DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.table.thread_keys import KeyTooLongError
from langgraph.store.dynamodb.testing import expire_ttl_items

from tests.checkpoint.notes import config, notes_graph, turn
from tests.fault.layer import FaultLayer
from tests.support import FakeClock

from .tenants import NEIGHBOURS, TABLE, TENANT, fill

THREADS = "acme"  # the tenant key of TENANT's threads
SECRET = "the user's message"


def saver(tenant_key: str | None = "tenant", **kwargs: Any) -> DynamoDBSaver:
    return DynamoDBSaver(TABLE, region_name="us-east-1", tenant_key=tenant_key, **kwargs)


def tenant_with_threads(store: DynamoDBStore) -> None:
    """TENANT's memories and two threads (one with a run id), a neighbour's memories and
    thread, and a thread of a saver without a tenant key."""
    fill(store, TENANT, users=1, items=2)
    fill(store, NEIGHBOURS[0], users=1, items=1)
    graph = notes_graph(saver())
    turn(graph, config("t1", THREADS), "hello", "run-1")
    turn(graph, config("t2", THREADS), "hi", "run-2")
    turn(graph, config("t1", "acme-corp"), "hello", "run-3")
    turn(notes_graph(saver(None)), config("t1"), "hello", "run-4")


def expired_registry(clock: FakeClock) -> None:
    """A thread written every 4 minutes by a saver with a 10-minute TTL that does not
    slide on reads; at 12 minutes DynamoDB's sweep has run."""
    ttl: CheckpointTTL = {"default_ttl": 10, "refresh_on_read": False}
    graph = notes_graph(saver(ttl=ttl))
    for minute in range(4):
        turn(graph, config("active", THREADS), f"turn at minute {minute * 4}", f"run-{minute}")
        clock.advance(4 * 60)
    expire_ttl_items(TABLE, now=clock.now())


def refused_first_put(thread_id: str = "refused", run_id: str | None = None) -> None:
    """A thread's first checkpoint refused by DynamoDB (any non-retryable error), then the
    pending writes LangGraph stores for that checkpoint meanwhile."""
    writer = saver()
    layer = FaultLayer(writer._client, rate=1.0, kinds=("ValidationException",), when=_transactions)
    first_put(writer, thread_id, run_id)
    layer.remove()


def long_thread_ids() -> None:
    """Threads whose ids reach DynamoDB's key limits (1,024 bytes for a sort key, 2,048 for
    a partition key): the registry row, the run index row or the thread's own rows go
    past them. Whatever each write does, a purge must leave none of the tenant's rows."""
    for size, run_id in ((990, "run-1"), (1024, None), (1025, None), (2040, None), (2041, None)):
        first_put(saver(), "x" * size, run_id)


def first_put(writer: DynamoDBSaver, thread_id: str, run_id: str | None) -> None:
    """`put` of a thread's first checkpoint, then `put_writes` of a task on it (as
    LangGraph runs them), each allowed to be refused."""
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"messages": SECRET}
    checkpoint["channel_versions"] = {"messages": 1}
    cfg: dict[str, Any] = {
        "configurable": {"thread_id": thread_id, "tenant": THREADS, "checkpoint_ns": ""}
    }
    metadata: dict[str, Any] = {"source": "input", "step": -1, "parents": {}}
    if run_id is not None:
        metadata["run_id"] = run_id
    with contextlib.suppress(ClientError, KeyTooLongError):
        writer.put(cfg, checkpoint, metadata, {"messages": 1})  # type: ignore[arg-type]
    written = {"configurable": {**cfg["configurable"], "checkpoint_id": checkpoint["id"]}}
    with contextlib.suppress(ClientError, KeyTooLongError):
        writer.put_writes(written, [("messages", SECRET)], "task-1")  # type: ignore[arg-type]


def _transactions(operation: str, _: dict[str, Any]) -> bool:
    return operation == "TransactWriteItems"


class RacingWriter:
    """A task of a run that read thread t1 before the purge began, and finishes its step
    once the purge has deleted the thread registry: its checkpoint (with a parent) and
    pending writes land in the thread's partition. A writer that `knows` the thread wrote
    a turn of it just before the purge, so it trusts the registry row it wrote then
    (`known.TRUST_SECONDS`) and does not write it again."""

    def __init__(self, knows: bool = False) -> None:
        self.saver = saver()
        if knows:
            turn(notes_graph(self.saver), config("t1", THREADS), "just before", "run-5")
        running = self.saver.get_tuple(config("t1", THREADS))  # type: ignore[arg-type]
        assert running is not None
        self.running = running
        self.wrote = False

    def __call__(self, _: int) -> None:
        if self.wrote or self.saver.for_tenant(THREADS).threads():
            return
        self.wrote = True
        checkpoint = empty_checkpoint()
        checkpoint["channel_values"] = {"messages": SECRET}
        checkpoint["channel_versions"] = {"messages": 99}
        metadata: dict[str, Any] = {"source": "loop", "step": 5, "parents": {}}
        written = self.saver.put(self.running.config, checkpoint, metadata, {"messages": 99})  # type: ignore[arg-type]
        self.saver.put_writes(written, [("messages", SECRET)], "task-late")
