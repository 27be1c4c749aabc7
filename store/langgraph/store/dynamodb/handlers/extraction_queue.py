"""The extraction queue's messages: which thread has new checkpoints to extract.

The stream consumer (`stream.consumer`) sends one per thread with a new checkpoint; the
extraction worker (`extraction.worker`) runs that thread's extraction and sends it again,
delayed, when a trigger is not due yet (the idle trigger's debounce), or to the
dead-letter queue when the run fails for good. A message is a nudge, not a payload: the
run reads the thread from its cursor onwards, so duplicates, reordering and a lost nudge
superseded by a later one change nothing.

The queue is a standard queue whose `MessageGroupId` is the tenant (SQS fair queues: a
tenant with a backlog does not hold up the others' threads).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
from dataclasses import dataclass
from typing import Any

# SQS: DelaySeconds is 0 to 900.
MAX_DELAY_SECONDS = 900
# SQS: a MessageGroupId is 1 to 128 alphanumeric or punctuation characters.
GROUP_ID = re.compile(r"^[A-Za-z0-9!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]{1,128}$")
# SendMessageBatch takes at most 10 entries.
BATCH_ENTRIES = 10


@dataclass(frozen=True)
class ExtractionRequest:
    """Extract `thread_id` of `tenant` ("" for a saver without tenant key) through at
    least `checkpoint_id`, written at `written_at` (epoch seconds). `reason` is set on
    dead-lettered requests: why the run failed."""

    tenant: str
    thread_id: str
    checkpoint_id: str
    written_at: float | None = None
    reason: str | None = None

    def body(self) -> str:
        """The message body (JSON)."""
        return json.dumps(
            {k: v for k, v in dataclasses.asdict(self).items() if v is not None},
            sort_keys=True,
        )

    @classmethod
    def parse(cls, body: str) -> ExtractionRequest:
        """The request a message body holds; ValueError naming what is wrong."""
        try:
            fields: Any = json.loads(body)
            return cls(**fields)
        except (TypeError, ValueError) as error:
            raise ValueError(
                f"Not an extraction request: {body[:200]!r} ({error}). The extraction "
                "queue takes only what the stream consumer sends."
            ) from None

    @property
    def group(self) -> str:
        """The SQS fairness key: the tenant, or a digest of it when SQS would refuse it
        (empty, over 128 characters, or outside SQS's character set)."""
        if GROUP_ID.match(self.tenant):
            return self.tenant
        return "tenant-" + hashlib.sha256(self.tenant.encode()).hexdigest()[:32]

    def dead(self, reason: str) -> ExtractionRequest:
        """This request as sent to the dead-letter queue, with why it failed."""
        return dataclasses.replace(self, reason=reason)


def delay_seconds(seconds: float) -> int:
    """A wait as SQS's `DelaySeconds`: rounded up, at most 900 (a longer wait is waited
    out in several hops: the run sends the request again when it is still not due)."""
    return max(0, min(MAX_DELAY_SECONDS, math.ceil(seconds)))


def message(request: ExtractionRequest, delay: float = 0) -> dict[str, Any]:
    """SendMessage's arguments (QueueUrl aside) carrying `request`, grouped by tenant,
    delayed `delay` seconds."""
    return {
        "MessageBody": request.body(),
        "MessageGroupId": request.group,
        "DelaySeconds": delay_seconds(delay),
    }


def send_entry(request: ExtractionRequest, entry_id: str, delay: float = 0) -> dict[str, Any]:
    """A SendMessageBatch entry: `message` with its `Id`."""
    return {"Id": entry_id, **message(request, delay)}
