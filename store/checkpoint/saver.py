"""`DynamoDBSaver`: LangGraph's `BaseCheckpointSaver` on the store's DynamoDB table."""

from __future__ import annotations

import builtins
import copy
import functools
import random
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from typing import Any, Self, TypedDict

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    DeltaChannelHistory,
    get_checkpoint_id,
    get_checkpoint_metadata,
)
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.store.dynamodb.table import clock, dynamo, table
from langgraph.store.dynamodb.table.errors import access_must_be_granted
from langgraph.store.dynamodb.table.lifecycle import Owner
from langgraph.store.dynamodb.table.row_sources import RowSource
from langgraph.store.dynamodb.table.schema import (
    CHUNKS_FIELD,
    CP,
    EXPIRES_AT,
    MD,
    PK,
    RUN,
    RUN_KIND,
    SK,
    TTL_MINUTES,
)
from langgraph.store.dynamodb.table.table_spec import table_spec
from langgraph.store.dynamodb.table.thread_keys import (
    Thread,
    checkpoint_sk,
    checkpoints_prefix,
    parse_checkpoint_sk,
)
from langgraph.store.dynamodb.table.ttl import check_ttl, needs_refresh
from langgraph.store.dynamodb.table.usage import UsageHook
from langgraph.store.dynamodb.table.values import item_size

from . import history, upkeep
from .access import TRANSACT_BYTES, TRANSACT_LIMIT, Access
from .erasure import thread_sources
from .loading import Loaded, load
from .payloads import chunk_keys, unpack
from .rows import RowSet, WriteSet, checkpoint_rows, registry_row, write_rows

DEFAULT_MAX_CONCURRENCY = 64
# Rows a listing asks for per Query when a metadata filter may drop some.
LIST_PAGE = 50
# Checkpoints whose distance to their delta channels' snapshots a saver remembers.
DEPTHS_KEPT = 4096


class CheckpointTTL(TypedDict, total=False):
    """Expiry of a thread's rows, in minutes (like the store's `TTLConfig`)."""

    default_ttl: float | None
    refresh_on_read: bool


class DynamoDBSaver(Owner, BaseCheckpointSaver[str]):
    """Threads' checkpoints and pending writes on the store's table (see
    `thread_keys` for the layout and why it never meets a store row).

    Costs per call: `put` and `put_writes` one request (values over 350 KB add their
    chunk rows first), `get_tuple` two, `list(limit=10)` two; `delete_thread`,
    `copy_thread` and `prune` read the thread with Query and write with BatchWriteItem.
    A checkpoint becomes visible in one TransactWriteItems with the values it introduces,
    so a reader never sees it without them.

    `tenant_key` names a `configurable` key (e.g. "tenant_id") whose value leads every
    key of the thread, so an IAM `dynamodb:LeadingKeys` policy (`iam.tenant_policy(...,
    thread_tenant=...)`) can confine a tenant's role to its threads. Calls that take only
    thread ids (`delete_thread`, `copy_thread`, `prune`, `delete_for_runs`, `list(None)`)
    need the tenant: call them on `saver.for_tenant(tenant)`.

    `ttl={"default_ttl": minutes, "refresh_on_read": True}` expires a thread's rows
    through DynamoDB's TTL; `get_tuple` slides the expiry of everything the checkpoint it
    returns needs (and its run index row, so `delete_for_runs` still finds it), once a
    tenth of the TTL has elapsed; expired rows are invisible before DynamoDB sweeps them.

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
        if tenant_key is not None and (not isinstance(tenant_key, str) or not tenant_key):
            raise ValueError(f"tenant_key must be a non-empty string or None, got {tenant_key!r}")
        ttl = ttl or {}
        if ttl.get("default_ttl") is not None:
            check_ttl(ttl["default_ttl"], "ttl['default_ttl']")
        self.tenant_key = tenant_key
        self.ttl_config = ttl
        self.consistent_read = consistent_read
        self._tenant: str | None = None
        self._depths: dict[tuple[str, str], int] = {}
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

    # Lifecycle (`lifecycle.Owner`: from_table, close, with-blocks)

    def setup(self) -> None:
        """Create the store's table if it is missing, or check it, exactly as
        `DynamoDBStore.setup()` does (threads need nothing more)."""
        with access_must_be_granted(self.table_name):
            table.ensure_table(self._client, self.table_name, table_spec(None))

    def for_tenant(self, tenant: str) -> Self:
        """This saver, bound to `tenant`: thread-id calls act on that tenant's threads,
        and a config naming another tenant is refused. Shares the client and threads."""
        if self.tenant_key is None:
            raise ValueError("for_tenant() needs a saver created with tenant_key=...")
        _check_tenant(tenant, "tenant")
        bound = copy.copy(self)
        bound._tenant = tenant
        return bound

    # Keys from configs

    @property
    def _access(self) -> Access:
        self._check_open()
        return Access(
            client=self._client,
            table=self.table_name,
            serde=self.serde,
            consistent=self.consistent_read,
            ttl_minutes=self.ttl_config.get("default_ttl"),
            refresh_on_read=bool(self.ttl_config.get("refresh_on_read", True)),
        )

    def _thread(self, config: RunnableConfig | None) -> Thread:
        self._check_open()
        configurable = (config or {}).get("configurable") or {}
        thread_id = configurable.get("thread_id")
        if thread_id is None or thread_id == "":
            raise ValueError(
                "The config has no thread_id: pass config={'configurable': {'thread_id': "
                "...}} (one id per conversation)."
            )
        return Thread(self._tenant_of(configurable), str(thread_id))

    def _tenant_of(self, configurable: dict[str, Any]) -> str:
        if self.tenant_key is None:
            return ""
        value = configurable.get(self.tenant_key)
        if self._tenant is not None:
            if value is not None and value != self._tenant:
                raise ValueError(
                    f"The config names tenant {value!r} but this saver is bound to "
                    f"{self._tenant!r} (for_tenant); nothing was read or written."
                )
            return self._tenant
        _check_tenant(value, f"config['configurable'][{self.tenant_key!r}]")
        return str(value)

    def _bound_thread(self, thread_id: str) -> Thread:
        if thread_id is None or thread_id == "":
            raise ValueError("thread_id must be a non-empty string")
        return Thread(self._bound_tenant(), str(thread_id))

    def _bound_tenant(self) -> str:
        self._check_open()
        if self.tenant_key is None:
            return ""
        if self._tenant is None:
            raise ValueError(
                f"This saver keys threads by tenant (tenant_key={self.tenant_key!r}), and "
                "this call names no config: call it on saver.for_tenant(tenant)."
            )
        return self._tenant

    def _extra(self, thread: Thread) -> dict[str, Any]:
        return {self.tenant_key: thread.tenant} if self.tenant_key else {}

    def _config(self, thread: Thread, ns: str, checkpoint_id: str) -> RunnableConfig:
        return {
            "configurable": {
                "thread_id": thread.thread_id,
                "checkpoint_ns": ns,
                "checkpoint_id": checkpoint_id,
                **self._extra(thread),
            }
        }

    # Reads

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """The checkpoint `config` names (its `checkpoint_id`, else the thread's latest in
        `checkpoint_ns`), with its channel values and pending writes; None if absent."""
        thread = self._thread(config)
        found: CheckpointTuple | None = self._pool.run(self._get_tuple, thread, config)
        return found

    def _get_tuple(self, thread: Thread, config: RunnableConfig) -> CheckpointTuple | None:
        access = self._access
        configurable = config["configurable"]
        ns = configurable.get("checkpoint_ns", "")
        checkpoint_id = get_checkpoint_id(config)
        with access.guard(thread):
            if checkpoint_id:
                key = {PK: thread.pk, SK: checkpoint_sk(ns, checkpoint_id)}
                row = access.get_many([key]).get((key[PK], key[SK]))
            else:
                rows = access.query(
                    thread.pk,
                    checkpoints_prefix(ns),
                    checkpoints_only=True,
                    ScanIndexForward=False,
                    Limit=1,
                )
                row = next(rows, None)
            if row is None or CP not in row:
                return None
            loaded = load(access, [row], self._extra(thread))
            if not loaded:
                return None
            self._refresh(access, thread, loaded[0])
            self._remember(thread, loaded[0].tuple.config, loaded[0].tuple.metadata)
            return loaded[0].tuple

    def _remember(
        self, thread: Thread, config: RunnableConfig, metadata: CheckpointMetadata
    ) -> None:
        """Keep the checkpoint's distance to its snapshots (immutable, like its metadata),
        so its history is read in one Query: LangGraph reads or writes a checkpoint
        before it asks for its history."""
        found = history.depth(metadata)
        if found is None:
            return
        if len(self._depths) >= DEPTHS_KEPT:
            self._depths.pop(next(iter(self._depths)))
        configurable = config["configurable"]
        sk = checkpoint_sk(configurable.get("checkpoint_ns", ""), configurable["checkpoint_id"])
        self._depths[(thread.pk, sk)] = found

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
        found: Mapping[str, DeltaChannelHistory] = self._pool.run(
            self._history, thread, config, builtins.list(channels)
        )
        return found

    async def aget_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Mapping[str, DeltaChannelHistory]:
        """`get_delta_channel_history` on the saver's threads."""
        self._check_open()
        if not channels:
            return {}
        thread = self._thread(config)
        found: Mapping[str, DeltaChannelHistory] = await self._pool.arun(
            self._history, thread, config, builtins.list(channels)
        )
        return found

    def _history(
        self, thread: Thread, config: RunnableConfig, channels: builtins.list[str]
    ) -> dict[str, DeltaChannelHistory]:
        access = self._access
        ns = config["configurable"].get("checkpoint_ns", "")
        checkpoint_id = get_checkpoint_id(config)
        known = None
        if checkpoint_id:
            known = self._depths.get((thread.pk, checkpoint_sk(ns, checkpoint_id)))
        with access.guard(thread):
            return history.history(access, thread, ns, checkpoint_id, channels, known)

    def _refresh(self, access: Access, thread: Thread, loaded: Loaded) -> None:
        """Slide the expiry of every row the checkpoint needs, its run index row (which
        `delete_for_runs` finds it by) and the thread's registry row, once a tenth of the
        TTL elapsed; never revive a row deleted meanwhile."""
        if access.ttl_minutes is None or not access.refresh_on_read:
            return
        now = clock.now()
        if not any(needs_refresh(row, now) for row in loaded.rows):
            return
        ttl = access.ttl()
        checkpoint = loaded.rows[0]
        keys = [{PK: r[PK], SK: r[SK]} for r in loaded.rows]
        if RUN in checkpoint:
            keys.append(upkeep.run_key(thread, checkpoint))
        actions: builtins.list[dict[str, Any]] = [_slide(key, ttl) for key in keys]
        actions.append({"Put": {"Item": registry_row(thread, ttl)}})
        for chunk in dynamo.chunks(actions, TRANSACT_LIMIT):
            if not _slide_all(access, chunk):
                return  # a row is gone: the thread is being deleted or pruned

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        """Checkpoints newest first: of the config's thread (and `checkpoint_ns` when
        given), or of every thread of the tenant for `config=None` (read from the
        thread registry, never a Scan); `filter` matches metadata by equality."""
        self._check_open()
        pages = self._pages(config, filter, before, limit)
        while (page := self._pool.run(next, pages, None)) is not None:
            yield from page

    def _pages(
        self,
        config: RunnableConfig | None,
        filter: dict[str, Any] | None,
        before: RunnableConfig | None,
        limit: int | None,
    ) -> Iterator[builtins.list[CheckpointTuple]]:
        if limit is not None and limit <= 0:
            return
        threads = (
            [self._thread(config)]
            if config is not None
            else upkeep.threads(self._access, self._bound_tenant())
        )
        configurable = (config or {}).get("configurable") or {}
        ns = configurable.get("checkpoint_ns")
        checkpoint_id = get_checkpoint_id(config) if config else None
        before_id = get_checkpoint_id(before) if before else None
        left = limit
        for thread in threads:
            for page in self._thread_pages(thread, ns, checkpoint_id, before_id, filter, left):
                if left is not None:
                    page = page[:left]
                    left -= len(page)
                if page:
                    yield page
                if left == 0:
                    return

    def _thread_pages(
        self,
        thread: Thread,
        ns: str | None,
        checkpoint_id: str | None,
        before_id: str | None,
        filter: dict[str, Any] | None,
        limit: int | None,
    ) -> Iterator[builtins.list[CheckpointTuple]]:
        access = self._access
        page_size = LIST_PAGE if filter or limit is None else min(limit + 1, LIST_PAGE)
        below = checkpoint_sk(ns, before_id) if before_id and ns is not None else None
        with access.guard(thread):
            rows = access.query(
                thread.pk,
                checkpoints_prefix(ns),
                below=below,
                checkpoints_only=True,
                ScanIndexForward=False,
                Limit=page_size,
            )
            page: builtins.list[dict[str, Any]] = []
            for row in rows:
                if self._wanted(row, checkpoint_id, before_id, filter):
                    page.append(row)
                if len(page) == page_size:
                    yield self._matching(access, page, thread, filter)
                    page = []
            if page:
                yield self._matching(access, page, thread, filter)

    def _wanted(
        self,
        row: dict[str, Any],
        checkpoint_id: str | None,
        before_id: str | None,
        filter: dict[str, Any] | None,
    ) -> bool:
        _, row_id = parse_checkpoint_sk(row[SK])
        if checkpoint_id and row_id != checkpoint_id:
            return False
        if before_id and row_id >= before_id:
            return False
        # Metadata stored inline is checked here, before any value is fetched; chunked
        # metadata is checked once loaded (`_matching`).
        typed = unpack(row[PK], row[SK], MD, row[MD], {}) if filter else None
        if filter and typed is not None:
            found = self.serde.loads_typed(typed)
            return all(found.get(k) == v for k, v in filter.items())
        return True

    def _matching(
        self,
        access: Access,
        rows: builtins.list[dict[str, Any]],
        thread: Thread,
        filter: dict[str, Any] | None,
    ) -> builtins.list[CheckpointTuple]:
        tuples = [loaded.tuple for loaded in load(access, rows, self._extra(thread))]
        if not filter:
            return tuples
        return [t for t in tuples if all(t.metadata.get(k) == v for k, v in filter.items())]

    # Writes

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Store a checkpoint and the values of the channels in `new_versions` (the
        others are already stored with the versions it names)."""
        thread = self._thread(config)
        rows = checkpoint_rows(
            self.serde,
            thread,
            config,
            checkpoint,
            get_checkpoint_metadata(config, metadata),
            new_versions,
            self._access.ttl(),
        )
        self._pool.run(self._write_checkpoint, thread, rows)
        ns = config["configurable"].get("checkpoint_ns", "")
        stored = self._config(thread, ns, checkpoint["id"])
        self._remember(thread, stored, metadata)
        return stored

    def _write_checkpoint(self, thread: Thread, rows: RowSet) -> None:
        access = self._access
        actions = [{"Put": {"Item": head}} for head in rows.heads] + rows.commit
        together = len(actions) <= TRANSACT_LIMIT and _size(actions) <= TRANSACT_BYTES
        orphans = rows.chunks + ([] if together else rows.heads)
        with access.guard(thread):
            try:
                access.write(rows.chunks, [])
                if together:
                    access.transact(actions)
                else:
                    access.write(rows.heads, [])
                    access.transact(rows.commit)
            except (ClientError, RuntimeError):
                # DynamoDB answered (or gave up on) a request before the commit, or
                # refused the commit: the checkpoint was not committed, so the rows
                # written for it are unreachable; remove them. A crash leaves them
                # unreachable too, for `prune` (or their TTL) to collect.
                access.write([], [{PK: r[PK], SK: r[SK]} for r in orphans])
                raise

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Store a task's writes on the checkpoint `config` names, in one UpdateItem: a
        write to a special channel (error, interrupt, ...) replaces the task's earlier
        one; an ordinary write keeps the first stored for its (task, index)."""
        thread = self._thread(config)
        configurable = config["configurable"]
        checkpoint_id = configurable.get("checkpoint_id")
        if not checkpoint_id:
            raise ValueError(
                "put_writes needs the checkpoint the writes belong to: "
                "config['configurable']['checkpoint_id'] is missing."
            )
        sk = checkpoint_sk(configurable.get("checkpoint_ns", ""), checkpoint_id)
        plan = functools.partial(
            write_rows, self.serde, thread, sk, writes, task_id, task_path, self._access.ttl()
        )
        planned = plan()
        if planned.entries:
            self._pool.run(self._write_pending, thread, sk, planned, plan)

    def _write_pending(
        self, thread: Thread, sk: str, planned: WriteSet, plan: Callable[..., WriteSet]
    ) -> None:
        access = self._access
        with access.guard(thread):
            try:
                self._update_writes(access, thread, sk, planned)
            except ClientError as error:
                if "size" not in error.response["Error"].get("Message", ""):
                    raise
                # The checkpoint row would pass 400 KB: move these values to chunk rows.
                self._update_writes(access, thread, sk, plan(inline_limit=0))

    def _update_writes(self, access: Access, thread: Thread, sk: str, planned: WriteSet) -> None:
        access.write(planned.chunks, [])
        names = {f"#w{i}": name for i, name in enumerate(planned.entries)}
        values = {f":w{i}": entry for i, entry in enumerate(planned.entries.values())}
        sets = [
            f"#w{i} = :w{i}"
            if name in planned.overwrite
            else f"#w{i} = if_not_exists(#w{i}, :w{i})"
            for i, name in enumerate(planned.entries)
        ]
        try:
            response = access.client.update_item(
                TableName=access.table,
                Key=dynamo.serialize({PK: thread.pk, SK: sk}),
                UpdateExpression="SET " + ", ".join(sets),
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=dynamo.serialize(values),
                ReturnValues="UPDATED_OLD",
            )
        except ClientError:
            access.write([], [{PK: r[PK], SK: r[SK]} for r in planned.chunks])
            raise
        old = dynamo.deserialize(response.get("Attributes", {}))
        access.write([], _superseded(thread, sk, planned, old))

    # Whole threads

    def delete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint, value and write of the thread (all namespaces)."""
        thread = self._bound_thread(thread_id)
        self._pool.run(self._guarded, thread, upkeep.delete_thread, thread)

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Copy every checkpoint, value and write of one thread to another."""
        source = self._bound_thread(source_thread_id)
        target = self._bound_thread(target_thread_id)
        self._pool.run(self._guarded, target, upkeep.copy_thread, source, target)

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """`keep_latest`: keep each namespace's latest checkpoint with its writes and the
        values it needs, delete the rest; `delete`: delete the threads."""
        upkeep.check_strategy(strategy)
        threads = [self._bound_thread(t) for t in thread_ids]
        step = upkeep.prune_keep_latest if strategy == "keep_latest" else upkeep.delete_thread
        for thread in threads:
            self._pool.run(self._guarded, thread, step, thread)

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delete the checkpoints the runs wrote, with their pending writes."""
        if not run_ids:
            return
        tenant = self._bound_tenant()
        self._pool.run(self._guarded, None, upkeep.delete_for_runs, tenant, list(run_ids))

    def threads(self, limit: int | None = None) -> builtins.list[str]:
        """The ids of the (bound) tenant's threads, sorted, from the thread registry (the
        first `limit`, reading no page of the registry past them)."""
        tenant = self._bound_tenant()
        found = self._pool.run(self._guarded, None, upkeep.threads, tenant, limit)
        return [t.thread_id for t in found]

    def count_checkpoints(self, thread_id: str, checkpoint_ns: str | None = None) -> int:
        """How many checkpoints the thread has (in `checkpoint_ns`, else in all), read
        from its checkpoint rows alone (no channel value is fetched)."""
        thread = self._bound_thread(thread_id)
        count: int = self._pool.run(
            self._guarded, thread, upkeep.count_checkpoints, thread, checkpoint_ns
        )
        return count

    def thread_rows(self, thread_id: str) -> builtins.list[dict[str, Any]]:
        """Every live row of the thread as stored (checkpoints, channel values, chunks;
        binary values as bytes), in key order: what `write_thread_rows` restores."""
        thread = self._bound_thread(thread_id)
        rows: builtins.list[dict[str, Any]] = self._pool.run(
            self._guarded, thread, lambda access: builtins.list(access.query(thread.pk))
        )
        return rows

    def write_thread_rows(self, thread_id: str, rows: Sequence[dict[str, Any]]) -> int:
        """Write rows `thread_rows` returned (of any thread) as the thread `thread_id`,
        values before the checkpoints that need them, with its registry and run index
        rows; rows already there with the same keys are replaced. Returns rows written."""
        thread = self._bound_thread(thread_id)
        written: int = self._pool.run(self._guarded, thread, upkeep.write_thread, thread, rows)
        return written

    def erasure_sources(self) -> builtins.list[RowSource]:
        """What erases the bound tenant's threads in a purge of its memories:
        `store.purge(prefix, sources=saver.for_tenant(t).erasure_sources())`."""
        return thread_sources(self._client, self.table_name, self._bound_tenant())

    def _guarded(self, thread: Thread | None, step: Any, *args: Any) -> Any:
        access = self._access
        with access.guard(thread):
            return step(access, *args)

    # Async

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        self._check_open()
        thread = self._thread(config)
        found: CheckpointTuple | None = await self._pool.arun(self._get_tuple, thread, config)
        return found

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        self._check_open()
        pages = self._pages(config, filter, before, limit)
        while (page := await self._pool.arun(next, pages, None)) is not None:
            for item in page:
                yield item

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        self._check_open()
        stored: RunnableConfig = await self._pool.arun(
            self.put, config, checkpoint, metadata, new_versions
        )
        return stored

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        self._check_open()
        await self._pool.arun(self.put_writes, config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        self._check_open()
        await self._pool.arun(self.delete_thread, thread_id)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        self._check_open()
        await self._pool.arun(self.copy_thread, source_thread_id, target_thread_id)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        self._check_open()
        upkeep.check_strategy(strategy)
        await self._pool.arun(lambda: self.prune(thread_ids, strategy=strategy))

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        self._check_open()
        if run_ids:
            await self._pool.arun(self.delete_for_runs, run_ids)

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


def _check_tenant(value: Any, name: str) -> None:
    if not isinstance(value, str) or not value:
        raise ValueError(
            f"{name} must be a non-empty string naming the tenant whose thread this is, "
            f"got {value!r}. Nothing was read or written."
        )


def _slide(key: dict[str, str], ttl: dict[str, Any]) -> dict[str, Any]:
    """An Update action moving a row's expiry to `ttl`, only while the row exists."""
    return {
        "Update": {
            "Key": key,
            "UpdateExpression": "SET #e = :e, #m = :m",
            "ConditionExpression": "attribute_exists(#pk)",
            "ExpressionAttributeNames": {"#e": EXPIRES_AT, "#m": TTL_MINUTES, "#pk": PK},
            "ExpressionAttributeValues": {":e": ttl[EXPIRES_AT], ":m": ttl[TTL_MINUTES]},
        }
    }


def _slide_all(access: Access, actions: Sequence[dict[str, Any]]) -> bool:
    """Apply one transaction of slides; False when a row of the checkpoint is gone. A
    missing run index row (an earlier version let them expire under checkpoints reads
    kept alive) is not a reason to stop: the others are sent again without it."""
    try:
        access.transact(actions)
        return True
    except ClientError as error:
        if error.response["Error"]["Code"] != "TransactionCanceledException":
            raise
        reasons = error.response.get("CancellationReasons") or []
        failed = {i for i, r in enumerate(reasons) if r.get("Code") not in ("None", None)}
        runs = {i for i, a in enumerate(actions) if _is_run_slide(a)}
        if not failed or not failed <= runs:
            return False
    rest = [action for i, action in enumerate(actions) if i not in failed]
    return _slide_all(access, rest)


def _is_run_slide(action: dict[str, Any]) -> bool:
    return "Update" in action and str(action["Update"]["Key"][PK]).startswith(RUN_KIND)


def _size(actions: Sequence[dict[str, Any]]) -> int:
    """A transaction's size as DynamoDB counts it: each Put's item, each Update's values."""
    return sum(
        item_size(body.get("Item") or body.get("ExpressionAttributeValues") or {})
        for action in actions
        for body in action.values()
    )


def _superseded(
    thread: Thread, sk: str, planned: WriteSet, old: dict[str, Any]
) -> builtins.list[dict[str, str]]:
    """Chunk rows no write refers to after an update: an overwritten special write's
    old chunks, and the chunks of an ordinary write that lost to the first one."""
    dropped = []
    for name, entry in planned.entries.items():
        previous = old.get(name)
        if previous is None:
            continue
        loser = previous if name in planned.overwrite else entry
        if previous.get(CHUNKS_FIELD) == entry.get(CHUNKS_FIELD):
            continue
        if CHUNKS_FIELD in loser:
            dropped += chunk_keys(thread.pk, sk, str(loser[CHUNKS_FIELD]), loser)
    return dropped
