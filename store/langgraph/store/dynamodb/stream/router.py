"""Routing a thread's new checkpoints from the table's stream to the extraction queue.

A stream shard serves at most two concurrent readers, and the embedding consumer is one:
so the extraction does not read the stream itself. The consumer's event source mapping
also lets through the inserts of root checkpoint rows (`CHECKPOINT_PATTERN`), and the
consumer hands them here: one message per thread and batch (its newest checkpoint), sent
to an SQS queue in batches of 10, grouped by tenant (`handlers.extraction_queue`). The
extraction Lambda reads that queue, off the hot path: no turn waits for it.

Only inserts of rows holding a checkpoint are routed: a checkpoint row is inserted once,
when the checkpoint is put, then modified by TTL slides, which bring no new message; its
pending writes are a row of their own (no checkpoint in it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langgraph.store.dynamodb.handlers.extraction_queue import (
    BATCH_ENTRIES,
    ExtractionRequest,
    send_entry,
)
from langgraph.store.dynamodb.stream.event_filter import matches_any
from langgraph.store.dynamodb.table.schema import CP, PK, SK, THREAD_KIND, TYPE
from langgraph.store.dynamodb.table.thread_keys import (
    checkpoints_prefix,
    parse_checkpoint_sk,
    thread_of_pk,
)

# Inserts of checkpoint rows of a thread's root namespace (subgraphs' checkpoints, writes
# rows, values, chunks, the registry and the run index never match).
CHECKPOINT_PATTERN: dict[str, Any] = {
    "eventName": ["INSERT"],
    "dynamodb": {
        "Keys": {
            PK: {"S": [{"prefix": THREAD_KIND}]},
            SK: {"S": [{"prefix": checkpoints_prefix("")}]},
        },
        "NewImage": {CP: {"M": {TYPE: {"S": [{"exists": True}]}}}},
    },
}


@dataclass(frozen=True)
class Routed:
    """A stream record routed to the extraction queue: its sequence number and request."""

    sequence: str
    request: ExtractionRequest


def routed(record: Mapping[str, Any]) -> Routed | None:
    """The extraction request a stream record makes (None: not a new root checkpoint)."""
    if not matches_any([CHECKPOINT_PATTERN], record):
        return None
    stream = record["dynamodb"]
    keys = stream["Keys"]
    thread = thread_of_pk(keys[PK]["S"])
    _, checkpoint_id = parse_checkpoint_sk(keys[SK]["S"])
    created = stream.get("ApproximateCreationDateTime")
    request = ExtractionRequest(
        thread.tenant,
        thread.thread_id,
        checkpoint_id,
        float(created) if isinstance(created, int | float) else None,
    )
    return Routed(str(stream["SequenceNumber"]), request)


class ExtractionRouter:
    """Sends the extraction requests of a batch's checkpoint records to `queue_url`,
    delayed `delay` seconds (the deployment's debounce)."""

    def __init__(self, sqs: Any, queue_url: str, *, delay: float = 0) -> None:
        self._sqs = sqs
        self.queue_url = queue_url
        self.delay = delay

    def send(self, records: Sequence[Routed]) -> dict[str, Exception | None]:
        """Send one request per thread (its newest checkpoint); each record's error, or
        None once its thread's request is on the queue."""
        newest: dict[tuple[str, str], Routed] = {}
        for record in records:
            key = (record.request.tenant, record.request.thread_id)
            older = newest.get(key)
            if older is None or int(older.sequence) < int(record.sequence):
                newest[key] = record
        sent: dict[tuple[str, str], Exception | None] = {}
        threads = list(newest)
        for start in range(0, len(threads), BATCH_ENTRIES):
            chunk = threads[start : start + BATCH_ENTRIES]
            entries = [
                send_entry(newest[key].request, str(i), self.delay) for i, key in enumerate(chunk)
            ]
            try:
                response = self._sqs.send_message_batch(QueueUrl=self.queue_url, Entries=entries)
            except Exception as error:
                sent.update(dict.fromkeys(chunk, error))
                continue
            sent.update(dict.fromkeys(chunk))
            for failure in response.get("Failed", []):
                sent[chunk[int(failure["Id"])]] = RuntimeError(
                    f"SQS refused the extraction request of {chunk[int(failure['Id'])]}: "
                    f"{failure.get('Code')}: {failure.get('Message')}"
                )
        return {
            record.sequence: sent[(record.request.tenant, record.request.thread_id)]
            for record in records
        }
