"""What an extraction raises."""

from __future__ import annotations

from langgraph.store.dynamodb.table.transient import is_transient


class MalformedAnswerError(ValueError):
    """The model's answer does not fit the strategy's schema, or the model refused.
    Retried once; then recorded on the cursor with this reason and nothing is written."""


class ExtractionError(RuntimeError):
    """A failure of one thread's extraction that the clients' retries did not cure,
    naming the tenant, thread and checkpoint. `transient` when it may pass (throttling, a
    timeout, a server error: the worker lets SQS deliver the request again), else
    permanent (the worker sends the request to its dead-letter queue, with the reason)."""

    def __init__(self, tenant: str, thread_id: str, checkpoint_id: str | None, reason: str):
        self.tenant = tenant
        self.thread_id = thread_id
        self.checkpoint_id = checkpoint_id
        self.reason = reason
        where = f"thread {thread_id!r}" + (f" of tenant {tenant!r}" if tenant else "")
        at = f" at checkpoint {checkpoint_id}" if checkpoint_id else ""
        super().__init__(f"Extraction of {where}{at} failed: {reason}")

    @property
    def transient(self) -> bool:
        """Whether a later run may succeed: the error it was raised from is transient
        (`table.transient`)."""
        return self.__cause__ is not None and is_transient(self.__cause__)


class ThreadBusyError(RuntimeError):
    """Another run holds the thread's cursor; retry once it ends."""
