"""What an extraction raises."""

from __future__ import annotations


class MalformedAnswerError(ValueError):
    """The model's answer does not fit the strategy's schema, or the model refused.
    Retried once; then recorded on the cursor with this reason and nothing is written."""


class ExtractionError(RuntimeError):
    """A permanent failure of one thread's extraction (a model or table error that retries
    did not cure). Names the tenant, thread and checkpoint so the stream's handler can send
    the record to its dead-letter queue."""

    def __init__(self, tenant: str, thread_id: str, checkpoint_id: str | None, reason: str):
        self.tenant = tenant
        self.thread_id = thread_id
        self.checkpoint_id = checkpoint_id
        self.reason = reason
        where = f"thread {thread_id!r}" + (f" of tenant {tenant!r}" if tenant else "")
        at = f" at checkpoint {checkpoint_id}" if checkpoint_id else ""
        super().__init__(f"Extraction of {where}{at} failed: {reason}")
