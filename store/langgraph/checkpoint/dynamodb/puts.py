"""`put`'s write: a checkpoint row holding its small values, in one UpdateItem when every
other row it needs is known to outlive it (`known`); else one TransactWriteItems with the
value rows it writes and the rows it keeps alive (registry, run index and run link, value
rows of earlier puts), or, past `SPLIT_BYTES`, those rows first and the checkpoint row
alone after them. A reader never sees the checkpoint before its values."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import ChannelVersions, Checkpoint, CheckpointMetadata
from langgraph.checkpoint.dynamodb.access import TRANSACT_LIMIT, Access
from langgraph.checkpoint.dynamodb.known import (
    TRUST_SECONDS,
    Known,
    expiry_of,
    margin_ttl,
    row_key,
)
from langgraph.checkpoint.dynamodb.payloads import chunk_keys
from langgraph.checkpoint.dynamodb.rows import RowSet, checkpoint_rows, keep_alive, set_attributes
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.store.dynamodb.table import clock, dynamo
from langgraph.store.dynamodb.table.schema import COUNT, DATA, EXPIRES_AT, PK, SK, TTL_MINUTES
from langgraph.store.dynamodb.table.thread_keys import Thread
from langgraph.store.dynamodb.table.ttl import ttl_attributes
from langgraph.store.dynamodb.table.values import item_size

Key = dict[str, str]

# A put that writes rows besides its checkpoint row (the first put of a run writes the
# run's index row, a large value its value row) is one transaction while they come to
# less than this; more, and the others go first and the checkpoint row alone after them,
# two requests or more where a transaction would bill every unit twice (16 KB: at most
# 16 units for saving a request).
SPLIT_BYTES = 16 * 1024


@dataclass(frozen=True)
class Put:
    """One `put`: what it stores, the thread's TTL it writes with (`minutes`), and what
    the saver knows of the rows its checkpoint needs (`known`)."""

    serde: SerializerProtocol
    known: Known
    thread: Thread
    config: RunnableConfig
    checkpoint: Checkpoint
    metadata: CheckpointMetadata
    new_versions: ChannelVersions
    minutes: float | None

    def plan(self) -> RowSet:
        """The rows of the put, expiring `minutes` from now, referring to the value rows
        of earlier puts this saver knows to be stored."""
        now = clock.now()
        return checkpoint_rows(
            self.serde,
            self.thread,
            self.config,
            self.checkpoint,
            self.metadata,
            self.new_versions,
            ttl_attributes(self.minutes, now),
            margin_ttl(self.minutes, now),
            lambda sk: self.known.chunks((self.thread.pk, sk)),
        )

    def write(self, access: Access, rows: RowSet) -> None:
        """Write the put's `rows` with the rows it must write or keep alive, then learn
        them; planned again when a value row it refers to is gone."""
        known = self.known
        until = expiry_of(rows.checkpoint)
        extras = []
        if rows.run and rows.link and not known.outlives(row_key(rows.run), until):
            extras += [rows.run, rows.link]
        kept = _kept_alive(known, rows.referenced, until)
        keep = {k: v for k, v in rows.registry.items() if k in (EXPIRES_AT, TTL_MINUTES)}
        slides = [keep_alive(key, keep) for key in kept]
        # The registry lists the thread: it outlives every row this put writes or extends.
        lives = [until] + [expiry_of(r) for r in extras]
        if slides:
            lives.append(expiry_of(keep))
        if not known.outlives(row_key(rows.registry), max(lives), TRUST_SECONDS):
            extras.insert(0, rows.registry)
        if not (rows.chunks or rows.heads or extras or slides):
            access.update(set_attributes(rows.checkpoint)["Update"])
        elif not _commit(access, rows, extras, slides):
            # A value row it refers to is gone (pruned meanwhile): forget what this
            # saver knew of the thread and write the values again.
            known.forget(self.thread)
            self.write(access, self.plan())
            return
        known.learn_ttl(self.thread.pk, self.minutes)
        for row in [rows.checkpoint, *rows.heads, *rows.chunks, *extras]:
            known.learn(row)
        for key in kept:
            known.learn({**key, **keep})


def _kept_alive(known: Known, heads: list[dict[str, str]], until: float) -> list[Key]:
    """The value rows (heads and chunks) of earlier puts that this saver knows and
    does not know to live until `until`: a put keeps them alive."""
    keys: list[Key] = []
    for head in heads:
        count = known.chunks((head[PK], head[SK]))
        if count is None:
            continue  # never read here: it lives as long as its writer set
        keys += [
            {PK: head[PK], SK: head[SK]},
            *chunk_keys(head[PK], head[SK], DATA, {COUNT: count}),
        ]
    return [k for k in keys if not known.outlives((k[PK], k[SK]), until)]


def _commit(
    access: Access,
    rows: RowSet,
    extras: list[dict[str, Any]],
    slides: list[dict[str, Any]],
) -> bool:
    """Write the checkpoint with the rows it needs: in one transaction when they come
    to less than `SPLIT_BYTES`; else the other rows first (value rows, registry, run
    index: a reader reaches them only through the checkpoint row), then the
    checkpoint row alone. False when a row to keep alive is gone."""
    update = set_attributes(rows.checkpoint)
    puts = [{"Put": {"Item": row}} for row in rows.heads + extras]
    actions = [update, *puts, *slides]
    together = len(actions) <= TRANSACT_LIMIT and _size(actions) < SPLIT_BYTES
    orphans = rows.chunks + ([] if together else rows.heads)
    try:
        access.write(rows.chunks, [])
        if together:
            access.transact(actions)
        else:
            access.write(rows.heads + extras, [])
            for part in dynamo.chunks(slides, TRANSACT_LIMIT):
                access.transact(part)  # extending an expiry early is harmless
            access.update(update["Update"])
        return True
    except (ClientError, RuntimeError) as error:
        # DynamoDB answered (or gave up on) a request before the commit, or refused
        # the commit: the checkpoint was not committed, so the rows written for it
        # are unreachable; remove them. A crash leaves them unreachable too, for
        # `prune` (or their TTL) to collect.
        access.write([], [{PK: r[PK], SK: r[SK]} for r in orphans])
        if slides and _condition_failed(error):
            return False
        raise


def _condition_failed(error: Exception) -> bool:
    """Whether a transaction was cancelled because a condition failed."""
    if not isinstance(error, ClientError):
        return False
    reasons = error.response.get("CancellationReasons") or []
    return any(r.get("Code") == "ConditionalCheckFailed" for r in reasons)


def _size(actions: Sequence[dict[str, Any]]) -> int:
    """A transaction's size as DynamoDB counts it: each Put's item, each Update's values."""
    return sum(
        item_size(body.get("Item") or body.get("ExpressionAttributeValues") or {})
        for action in actions
        for body in action.values()
    )
