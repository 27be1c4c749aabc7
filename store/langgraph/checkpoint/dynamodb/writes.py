"""`put_writes`'s write: a task's writes in its checkpoint's writes row, one UpdateItem (a
few past about 110 writes: `write_rows.write_updates`), chunk rows first for large values;
the chunks no write refers to afterwards are deleted, and the thread is registered unless
this saver trusts its registry row (`known`) or its own put is on the way."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.dynamodb.access import Access
from langgraph.checkpoint.dynamodb.known import TRUST_SECONDS, Known, expiry_of, margin_ttl, row_key
from langgraph.checkpoint.dynamodb.payloads import chunk_keys
from langgraph.checkpoint.dynamodb.rows import registry_row
from langgraph.checkpoint.dynamodb.write_rows import (
    WRITE_INLINE,
    WriteSet,
    write_rows,
    write_updates,
)
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.store.dynamodb.table import clock, dynamo
from langgraph.store.dynamodb.table.schema import CHUNKS_FIELD, PK, SK
from langgraph.store.dynamodb.table.thread_keys import Thread, checkpoint_sk


def owner_sk(config: RunnableConfig) -> str:
    """The checkpoint row the writes of `config` belong to (its `checkpoint_id`)."""
    configurable = config["configurable"]
    checkpoint_id = configurable.get("checkpoint_id")
    if not checkpoint_id:
        raise ValueError(
            "put_writes needs the checkpoint the writes belong to: "
            "config['configurable']['checkpoint_id'] is missing."
        )
    return checkpoint_sk(configurable.get("checkpoint_ns", ""), checkpoint_id)


@dataclass(frozen=True)
class PendingWrites:
    """One `put_writes`: a task's writes on the checkpoint row `sk`, the TTL attributes
    of its writes row (`ttl`), what the saver knows of the thread's registry row
    (`known`) and the checkpoint rows its puts are writing now (`writing`)."""

    serde: SerializerProtocol
    known: Known
    writing: set[tuple[str, str]]
    thread: Thread
    sk: str
    writes: Sequence[tuple[str, Any]]
    task_id: str
    task_path: str
    ttl: dict[str, Any]

    def plan(self, inline_limit: int = WRITE_INLINE, batch: str | None = None) -> WriteSet:
        """The writes row's attributes and chunk rows (`write_rows.write_rows`)."""
        return write_rows(
            self.serde,
            self.thread,
            self.sk,
            self.writes,
            self.task_id,
            self.task_path,
            self.ttl,
            inline_limit,
            batch,
        )

    def write(self, access: Access, planned: WriteSet) -> None:
        """Store the writes `planned`; planned again with every value in chunk rows when
        the writes row would pass 400 KB."""
        try:
            self._update(access, planned)
        except ClientError as error:
            if "Item size" not in error.response["Error"].get("Message", ""):
                raise
            # The checkpoint row would pass 400 KB: move these values to chunk rows.
            self._update(access, self.plan(inline_limit=0, batch=planned.batch))

    def _update(self, access: Access, planned: WriteSet) -> None:
        thread = self.thread
        access.write(planned.chunks, [])
        updates = write_updates(planned)
        for n, update in enumerate(updates):
            try:
                response = access.client.update_item(
                    TableName=access.table,
                    Key=dynamo.serialize({PK: thread.pk, SK: planned.sk}),
                    UpdateExpression=update.expression,
                    ExpressionAttributeNames=update.attribute_names,
                    ExpressionAttributeValues=dynamo.serialize(update.values),
                    ReturnValues="UPDATED_OLD",
                )
            except ClientError:
                unsent = [name for later in updates[n:] for name in later.names]
                access.write([], _chunks_of(thread, planned, unsent))
                raise
            old = dynamo.deserialize(response.get("Attributes", {}))
            access.write([], _superseded(access, thread, planned, update.names, old))
        self._register(access)

    def _register(self, access: Access) -> None:
        """Writes landed beside the checkpoint row `sk`: after its put, before it (this
        saver's put still on its way registers the thread), after a refused put, after
        the thread was deleted, or beside a put made elsewhere. Unless this saver trusts
        the thread's registry row to live a margin past the writes' TTL, register the
        thread, so a purge finds the writes."""
        thread, known = self.thread, self.known
        if (thread.pk, self.sk) in self.writing:
            return
        minutes = known.thread_ttl(thread.pk, access.ttl_minutes)
        registry = registry_row(thread, margin_ttl(minutes, clock.now()))
        if known.outlives(row_key(registry), expiry_of(registry), TRUST_SECONDS):
            return
        access.write([registry], [])
        known.learn(registry)


def _chunks_of(thread: Thread, planned: WriteSet, names: Sequence[str]) -> list[dict[str, str]]:
    """The chunk rows of the writes `names`."""
    keys = []
    for name in names:
        entry = planned.entries[name]
        if CHUNKS_FIELD in entry:
            keys += chunk_keys(thread.pk, planned.sk, str(entry[CHUNKS_FIELD]), entry)
    return keys


def _superseded(
    access: Access,
    thread: Thread,
    planned: WriteSet,
    names: Sequence[str],
    old: dict[str, Any],
) -> list[dict[str, str]]:
    """Chunk rows no write refers to after an update of `names`: an overwritten special
    write's old chunks, and the chunks of an ordinary write that lost to the first one.
    Whether an ordinary chunked write lost is read back from the row when `UPDATED_OLD`
    does not say (DynamoDB may leave out an attribute `if_not_exists` kept as it was)."""
    sk = planned.sk
    dropped = []
    unsure = []
    for name in names:
        entry, previous = planned.entries[name], old.get(name)
        if name in planned.overwrite:
            if previous is not None and previous.get(CHUNKS_FIELD) != entry.get(CHUNKS_FIELD):
                earlier = WriteSet(sk, {}, [], {name: previous}, set(), "")
                dropped += _chunks_of(thread, earlier, [name])
        elif CHUNKS_FIELD in entry:
            if previous is None:
                unsure.append(name)
            elif previous.get(CHUNKS_FIELD) != entry[CHUNKS_FIELD]:
                dropped += _chunks_of(thread, planned, [name])
    if unsure:
        row = access.get_many([{PK: thread.pk, SK: sk}]).get((thread.pk, sk), {})
        lost = [
            n
            for n in unsure
            if row.get(n, {}).get(CHUNKS_FIELD) != planned.entries[n][CHUNKS_FIELD]
        ]
        dropped += _chunks_of(thread, planned, lost)
    return dropped
