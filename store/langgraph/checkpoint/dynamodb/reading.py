"""`get_tuple`'s read: one checkpoint with its values and pending writes, by a Query of
its namespace's latest or a BatchGetItem of its id (rows and writes row), plus one
BatchGetItem only for value rows and chunks (`loading`); what the saver learns from it
(`known`); and the slide of the expiry of everything it read (`refresh_on_read`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from botocore.exceptions import ClientError
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import CheckpointTuple, get_checkpoint_id
from langgraph.checkpoint.dynamodb import upkeep
from langgraph.checkpoint.dynamodb.access import TRANSACT_LIMIT, Access
from langgraph.checkpoint.dynamodb.depths import Depths
from langgraph.checkpoint.dynamodb.known import Known, expiry_of, margin_ttl
from langgraph.checkpoint.dynamodb.loading import Loaded, load, split, writes_key
from langgraph.checkpoint.dynamodb.rows import keep_alive, registry_row
from langgraph.store.dynamodb.table import clock, dynamo
from langgraph.store.dynamodb.table.schema import (
    CP,
    EXPIRES_AT,
    PK,
    RUN,
    RUN_KIND,
    RUN_LINK,
    SK,
    TTL_MINUTES,
)
from langgraph.store.dynamodb.table.thread_keys import Thread, checkpoint_sk, checkpoints_prefix
from langgraph.store.dynamodb.table.ttl import needs_refresh, ttl_attributes


def read_tuple(
    access: Access,
    known: Known,
    depths: Depths,
    thread: Thread,
    config: RunnableConfig,
    config_extra: dict[str, Any],
) -> CheckpointTuple | None:
    """The checkpoint `config` names (its `checkpoint_id`, else the thread's latest in
    `checkpoint_ns`), its expiry slid; None if absent. `config_extra` goes into its
    configs (`loading.load`)."""
    configurable = config["configurable"]
    ns = configurable.get("checkpoint_ns", "")
    checkpoint_id = get_checkpoint_id(config)
    if checkpoint_id:
        key = {PK: thread.pk, SK: checkpoint_sk(ns, checkpoint_id)}
        found: Iterable[dict[str, Any]] = access.get_many([key, writes_key(key)]).values()
    else:
        # Newest first, a checkpoint's writes row comes before it: the first
        # checkpoint row ends the read (one page of two rows, mostly).
        found = _through_first_checkpoint(
            access.query(thread.pk, checkpoints_prefix(ns), ScanIndexForward=False, Limit=2)
        )
    rows, writes = split(found)
    if not rows:
        return None
    loaded = load(access, rows[:1], writes, config_extra)
    if not loaded:
        return None
    _learn(known, thread, loaded[0])
    _refresh(access, known, thread, loaded[0])
    read = loaded[0].tuple
    depths.remember(thread, read.config, read.metadata)
    return read


def _through_first_checkpoint(rows: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """`rows` (newest first) up to the first checkpoint row, which ends them."""
    for row in rows:
        yield row
        if CP in row:  # a writes row holds no checkpoint
            return


def _learn(known: Known, thread: Thread, loaded: Loaded) -> None:
    """Remember the thread's TTL and the expiry of the rows a checkpoint read needs,
    so the next put keeps them alive only when they may expire before it (and the
    checkpoint's depth, so its history is one Query: `depths`)."""
    minutes = loaded.rows[0].get(TTL_MINUTES)
    known.learn_ttl(thread.pk, None if minutes is None else float(minutes))
    for row in loaded.rows[1:]:
        known.learn(row)


def _refresh(access: Access, known: Known, thread: Thread, loaded: Loaded) -> None:
    """Slide the expiry of every row the checkpoint needs by the thread's TTL (the
    checkpoint row's), its run index row (which `delete_for_runs` finds it by) and
    the thread's registry row, once a tenth of the TTL elapsed; never revive a row
    deleted meanwhile."""
    checkpoint = loaded.rows[0]
    minutes = checkpoint.get(TTL_MINUTES)
    if minutes is None or not access.refresh_on_read:
        return
    now = clock.now()
    if not any(needs_refresh(row, now) for row in loaded.rows):
        return
    ttl = ttl_attributes(float(minutes), now)
    keep = margin_ttl(float(minutes), now)
    # Never shorten a row's life: a put may have kept it alive for longer.
    keys = [{PK: r[PK], SK: r[SK]} for r in loaded.rows if expiry_of(r) < ttl[EXPIRES_AT]]
    actions: list[dict[str, Any]] = [keep_alive(key, ttl) for key in keys]
    if RUN in checkpoint:
        actions.append(keep_alive(upkeep.run_key(thread, checkpoint), keep))
        link = upkeep.run_link_key(thread, checkpoint)
        if link is not None:
            actions.append(keep_alive(link, keep))
    registry = registry_row(thread, keep)
    actions.append({"Put": {"Item": registry}})
    for chunk in dynamo.chunks(actions, TRANSACT_LIMIT):
        if not _slide_all(access, chunk):
            return  # a row is gone: the thread is being deleted or pruned
    for row in loaded.rows:
        if expiry_of(row) < ttl[EXPIRES_AT]:
            known.learn({**row, **ttl})
    known.learn(registry)


def _slide_all(access: Access, actions: Sequence[dict[str, Any]]) -> bool:
    """Apply one transaction of slides; False when a row of the checkpoint is gone. A
    missing run index row (an earlier version let them expire under checkpoints reads
    kept alive) or run link (earlier versions wrote none) is not a reason to stop: the
    others are sent again without it."""
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
    key = action["Update"]["Key"] if "Update" in action else {PK: "", SK: ""}
    return str(key[PK]).startswith(RUN_KIND) or str(key[SK]).startswith(RUN_LINK)
