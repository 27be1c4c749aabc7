"""`DynamoDBSaver`: LangGraph's `BaseCheckpointSaver` on the store's DynamoDB table, over
its parts: `calls` and `scope` (the thread a call names), `reading`, `listing` and
`history` (the reads; rows into tuples by `loading`), `puts` and `writes` (their rows
planned by `rows` and `write_rows`), `upkeep`, `pruning` and `erasure` (whole threads),
`async_twins` (the async calls)."""

from __future__ import annotations

import builtins
import copy
import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Self

import boto3
from botocore.config import Config
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    DeltaChannelHistory,
    get_checkpoint_metadata,
)
from langgraph.checkpoint.dynamodb import history, pruning, reading, upkeep
from langgraph.checkpoint.dynamodb.access import SAVER
from langgraph.checkpoint.dynamodb.async_twins import AsyncTwins
from langgraph.checkpoint.dynamodb.calls import Calls, CheckpointTTL
from langgraph.checkpoint.dynamodb.depths import Depths
from langgraph.checkpoint.dynamodb.erasure import tenant_sources
from langgraph.checkpoint.dynamodb.known import Known, row_key
from langgraph.checkpoint.dynamodb.puts import Put
from langgraph.checkpoint.dynamodb.scope import Scope
from langgraph.checkpoint.dynamodb.writes import PendingWrites, owner_sk
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.store.dynamodb.table import clock, creation, dynamo
from langgraph.store.dynamodb.table.errors import access_must_be_granted
from langgraph.store.dynamodb.table.row_sources import RowSource
from langgraph.store.dynamodb.table.table_spec import table_spec
from langgraph.store.dynamodb.table.ttl import check_ttl, ttl_attributes
from langgraph.store.dynamodb.table.usage import UsageHook

DEFAULT_MAX_CONCURRENCY = 64


class DynamoDBSaver(AsyncTwins, Calls):
    """Threads on the store's table, in partitions no store row can have (`thread_keys`,
    docs/architecture.md's "Data model"). A checkpoint row holds the checkpoint, its
    metadata and its channel values up to 180 KB (a larger value, or a `DeltaChannel`
    snapshot, is a value row written once per version and shared by later checkpoints);
    its pending writes are a row of their own beside it (`<checkpoint row>#writes`), so
    one Query reads both and a `put_writes` is billed for the writes alone.

    Costs per call: `put` one UpdateItem, or one TransactWriteItems when it writes value
    rows or keeps alive a row its checkpoint needs (`known`; past 16 KB those rows first,
    then the checkpoint row alone): a reader never sees a checkpoint without its values.
    `put_writes` one UpdateItem (a few past about 110 writes). Chunk rows of values too
    large for a row go first. `get_tuple` a Query (a BatchGetItem given an id) and
    `list(limit=10)` a Query, each plus one BatchGetItem only for value rows and chunks;
    `get_delta_channel_history` two; `delete_thread`, `copy_thread` and `prune` read
    with Query and write with BatchWriteItem.

    `tenant_key` names a `configurable` key (e.g. "tenant_id") whose value leads every
    key of the thread, so an IAM `dynamodb:LeadingKeys` policy (`iam.tenant_policy(...,
    thread_tenant=...)`) can confine a tenant's role to its threads. Calls that take only
    thread ids (`delete_thread`, `copy_thread`, `prune`, `delete_for_runs`, `list(None)`)
    need the tenant: call them on `saver.for_tenant(tenant)`.

    `ttl={"default_ttl": minutes, "refresh_on_read": True}` expires the rows of the
    threads it starts through DynamoDB's TTL (a thread it has read keeps its own TTL);
    every row the latest checkpoint needs outlives it; `get_tuple` slides the expiry of
    everything the checkpoint it returns needs (and its run index row and run link, so
    `delete_for_runs` still finds it, and the thread's registry row), once a tenth of
    the TTL has elapsed; expired rows are invisible before DynamoDB sweeps them.

    `on_usage` receives the capacity each request consumed, as the store's does
    (`usage.UsageRecord`), attributed to the tenant: group `(".threads", tenant)`.
    """

    def __init__(
        self,
        table_name: str,
        *,
        region_name: str | None = None,
        endpoint_url: str | None = None,
        boto3_session: boto3.Session | None = None,
        boto_config: Config | None = None,
        serde: SerializerProtocol | None = None,
        ttl: CheckpointTTL | None = None,
        tenant_key: str | None = None,
        consistent_read: bool = True,
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
        on_usage: UsageHook | None = None,
    ) -> None:
        super().__init__(serde=serde)
        if not table_name or not isinstance(table_name, str):
            raise ValueError("table_name must be a non-empty string")
        self._scope = Scope(tenant_key)
        ttl = ttl or {}
        if ttl.get("default_ttl") is not None:
            check_ttl(ttl["default_ttl"], "ttl['default_ttl']")
        self.ttl_config = ttl
        self.consistent_read = consistent_read
        self._known = Known()
        self._depths = Depths()
        # Checkpoint rows this saver's puts are writing now (a `put_writes` may land first).
        self._writing: set[tuple[str, str]] = set()
        self._open(
            table_name,
            region_name=region_name,
            endpoint_url=endpoint_url,
            boto3_session=boto3_session,
            boto_config=boto_config,
            max_concurrency=max_concurrency,
            max_connections=None,
            on_usage=on_usage,
            threads="dynamodb-saver",
        )
        dynamo.refuse_plain_moto(self._client, SAVER)

    # Lifecycle (`lifecycle.Owner`: from_table, close, with-blocks)

    def setup(self) -> None:
        """Create the store's table if it is missing, or check it, exactly as
        `DynamoDBStore.setup()` does (threads need nothing more)."""
        with access_must_be_granted(self.table_name):
            creation.ensure_table(self._client, self.table_name, table_spec(None), owner=SAVER)

    def for_tenant(self, tenant: str) -> Self:
        """This saver, bound to `tenant`: thread-id calls act on that tenant's threads,
        and a config naming another tenant is refused. Shares the client and threads."""
        scope = self._scope.bind(tenant)
        bound = copy.copy(self)
        bound._scope = scope
        return bound

    # Reads

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """The checkpoint `config` names (its `checkpoint_id`, else the thread's latest in
        `checkpoint_ns`), with its channel values and pending writes; None if absent."""
        thread = self._thread(config)
        extra = self._scope.extra(thread)
        known, depths = self._known, self._depths
        return self._run(thread, reading.read_tuple, known, depths, thread, config, extra)

    def get_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Mapping[str, DeltaChannelHistory]:
        """For each of `channels`, the writes on the parent chain of the checkpoint
        `config` names (its namespace's latest without an id), oldest first, back to the
        nearest ancestor storing the channel's value, and that value as `seed` (absent
        when no ancestor stores one): a Query of the chain and one of the channel's values
        (three requests when this saver has not read or written the checkpoint)."""
        if not channels:
            return {}
        thread = self._thread(config)
        depths, wanted = self._depths, builtins.list(channels)
        return self._run(thread, history.history_of, depths, thread, config, wanted)

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        """Checkpoints newest first: of the config's thread (and `checkpoint_ns` when
        given; without it, by checkpoint id across the thread's namespaces), or of every
        thread of the tenant for `config=None` (read from the thread registry, never a
        Scan); `filter` matches metadata by equality."""
        pages = self._pages(config, filter, before, limit)
        while (page := self._pool.run(next, pages, None)) is not None:
            yield from page

    # Writes

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Store a checkpoint with its channel values (large ones, in value rows, only
        for the channels in `new_versions`: the others are stored with the versions it
        names). One UpdateItem when the rows it needs are known to outlive it."""
        thread = self._thread(config)
        minutes = self._known.thread_ttl(thread.pk, self.ttl_config.get("default_ttl"))
        metadata = get_checkpoint_metadata(config, metadata)
        put = Put(
            self.serde, self._known, thread, config, checkpoint, metadata, new_versions, minutes
        )
        rows = put.plan()
        key = row_key(rows.checkpoint)
        self._writing.add(key)
        try:
            self._run(thread, put.write, rows)
        finally:
            self._writing.discard(key)
        ns = config["configurable"].get("checkpoint_ns", "")
        stored = self._scope.config(thread, ns, checkpoint["id"])
        self._depths.remember(thread, stored, metadata)
        return stored

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Store a task's writes on the checkpoint `config` names, in one UpdateItem (more
        past about 110 writes, shown only once all landed: `write_rows.write_updates`): a write
        to a special channel (error, interrupt, ...) replaces the task's earlier one; an
        ordinary write keeps the first stored for its (task, index)."""
        thread = self._thread(config)
        sk = owner_sk(config)
        minutes = self._known.thread_ttl(thread.pk, self.ttl_config.get("default_ttl"))
        ttl = ttl_attributes(minutes, clock.now())
        pending = PendingWrites(
            self.serde, self._known, self._writing, thread, sk, writes, task_id, task_path, ttl
        )
        planned = pending.plan()
        if planned.entries:
            self._run(thread, pending.write, planned)

    # Whole threads

    def delete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint, value and write of the thread (all namespaces)."""
        thread = self._bound_thread(thread_id)
        self._known.forget(thread)
        self._run(thread, upkeep.delete_thread, thread)

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Copy every checkpoint, value and write of one thread to another."""
        source = self._bound_thread(source_thread_id)
        target = self._bound_thread(target_thread_id)
        self._run(target, upkeep.copy_thread, source, target)

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """`keep_latest`: keep each namespace's latest checkpoint with its writes and the
        values it needs, delete the rest; `delete`: delete the threads."""
        pruning.check_strategy(strategy)
        threads = [self._bound_thread(t) for t in thread_ids]
        step = pruning.prune_keep_latest if strategy == "keep_latest" else upkeep.delete_thread
        for thread in threads:
            self._known.forget(thread)
            self._run(thread, step, thread)

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delete the checkpoints the runs wrote, with their pending writes."""
        if not run_ids:
            return
        tenant = self._bound_tenant()
        self._run(None, pruning.delete_for_runs, tenant, list(run_ids))

    def threads(self, limit: int | None = None) -> builtins.list[str]:
        """The ids of the (bound) tenant's threads, sorted, from the thread registry (the
        first `limit`, reading no page of the registry past them)."""
        tenant = self._bound_tenant()
        return [t.thread_id for t in self._run(None, upkeep.threads, tenant, limit)]

    def count_checkpoints(self, thread_id: str, checkpoint_ns: str | None = None) -> int:
        """How many checkpoints the thread has (in `checkpoint_ns`, else in all), read
        from its checkpoint rows alone (no channel value is fetched)."""
        thread = self._bound_thread(thread_id)
        return self._run(thread, upkeep.count_checkpoints, thread, checkpoint_ns)

    def thread_rows(self, thread_id: str) -> builtins.list[dict[str, Any]]:
        """Every live row of the thread as stored (checkpoints, channel values, chunks;
        binary values as bytes), in key order: what `write_thread_rows` restores (run
        links are left out: it makes them from the checkpoints, like run index rows)."""
        thread = self._bound_thread(thread_id)
        return self._run(thread, upkeep.thread_rows, thread)

    def write_thread_rows(self, thread_id: str, rows: Sequence[dict[str, Any]]) -> int:
        """Write rows `thread_rows` returned (of any thread) as the thread `thread_id`,
        values before the checkpoints that need them, with its registry and run index
        rows; rows already there with the same keys are replaced. Returns rows written."""
        thread = self._bound_thread(thread_id)
        return self._run(thread, upkeep.write_thread, thread, rows)

    def erasure_sources(self) -> builtins.list[RowSource]:
        """What erases the bound tenant's threads, and what extraction kept for it, in a
        purge of its memories: `store.purge(prefix,
        sources=saver.for_tenant(t).erasure_sources())`; for a saver without a tenant key,
        every one of its threads (`store.purge(None, sources=...)`)."""
        tenant = "" if self.tenant_key is None else self._bound_tenant()
        return tenant_sources(self._client, self.table_name, tenant)

    def get_next_version(self, current: str | None, channel: None) -> str:
        """A version that sorts after `current`: a zero-padded counter, then a random
        fraction so two forks of one checkpoint never write the same value row."""
        if current is None:
            number = 0
        elif isinstance(current, int):
            number = current
        else:
            number = int(str(current).split(".")[0])
        return f"{number + 1:032}.{random.random():016}"
