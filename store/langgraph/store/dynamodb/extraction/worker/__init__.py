"""The extraction Lambda's logic: the worker that takes a batch of the extraction queue's
messages and runs the extractor for each thread. `lambdas/extractor/` holds only the
handler that calls it.

May import: `table`, `embedders`, `basestore`, `handlers`, `langgraph.checkpoint.dynamodb`,
`extraction.strategies`, `extraction.engine`.
"""

from langgraph.store.dynamodb.extraction.worker.queue_worker import (
    ExtractionWorker,
    worker_env,
    worker_from_env,
)

__all__ = ["ExtractionWorker", "worker_env", "worker_from_env"]
