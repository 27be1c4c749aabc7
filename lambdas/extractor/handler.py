"""Lambda entry point of the extraction worker: all logic lives in the library.

Configured by the CDK stack through environment variables (see
`langgraph.store.dynamodb.extraction.worker.queue_worker.worker_from_env`); its event source is the
extraction queue the stream consumer fills.
"""

from __future__ import annotations

from functools import cache
from typing import Any

# First: Powertools' batch module loads every one of its parser models (about 0.06 s of the
# cold start) when pydantic is already imported, and the extraction layer imports pydantic.
import aws_lambda_powertools.utilities.batch  # noqa: F401
from langgraph.store.dynamodb.extraction.worker.queue_worker import (
    ExtractionWorker,
    worker_from_env,
)


@cache
def _worker() -> ExtractionWorker:
    return worker_from_env()


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Run the threads a batch of extraction requests names; answers with Lambda's
    partial batch failures."""
    response: dict[str, Any] = _worker().handle(event, context)
    return response
