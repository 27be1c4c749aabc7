"""The extraction Lambda's logic: it reads the extraction queue (`handlers.extraction_queue`),
which the stream consumer fills with one request per thread that has new checkpoints, and
runs each thread's extraction (`Extractor.run`). `lambdas/extractor` holds only the handler.

Per batch, each thread runs once (its requests fold into that run), threads concurrently;
one read of the batch's settings and cursors (`Extractor.plan_batch`) serves every run, and
a thread already processed through its request's checkpoint (a duplicate or late
delivery) runs not at all.
A run whose trigger is not due yet (the idle trigger), whose cursor another run holds, or
whose tenant spent its daily budget asks to run again later (`RunReport.retry_after`): the
request goes back on the queue delayed that long, at most 900 s a hop (the debounce). A
malformed model answer fails nothing: the run records it on the strategy's cursor
(`extraction status` shows it) and goes on past that window.

A run that fails raises `ExtractionError`. A transient one (`ExtractionError.transient`:
throttling, a timeout, a server error of DynamoDB or Bedrock, after the clients' retries)
fails its record alone (`handlers.batch.BatchHandler`: Powertools' `BatchProcessor`), as
does any other error of the worker's own: SQS delivers the record again once its
visibility timeout passes (the backoff) and, after the queue's `maxReceiveCount`, its
redrive policy moves it to the dead-letter queue. A permanent one (a refused model or
request, a missing table) goes to the dead-letter queue at once, naming the thread, the
checkpoint and why.
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import boto3
from aws_lambda_powertools.utilities.batch import EventType
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.basestore.store import DynamoDBStore
from langgraph.store.dynamodb.embedders.build import bedrock_embeddings
from langgraph.store.dynamodb.extraction.engine.extractor import BatchPlan, Extractor, RunReport
from langgraph.store.dynamodb.extraction.strategies.errors import ExtractionError
from langgraph.store.dynamodb.handlers.batch import BatchHandler, Environment, flag
from langgraph.store.dynamodb.handlers.extraction_queue import (
    ExtractionRequest,
    message,
)
from langgraph.store.dynamodb.table.table_spec import DEFAULT_INDEX_NAME
from langgraph.store.dynamodb.table.usage import UsageLogSink

# Threads of one batch run at once (a batch holds at most 10 messages).
CONCURRENCY = 10


class Outcome(StrEnum):
    """What the worker did with a request that did not fail."""

    EXTRACTED = "extracted"  # the run is done: every due strategy caught up
    DEFERRED = "deferred"  # sent back to the queue, delayed until the run is due
    FOLDED = "folded"  # another request of the same thread in the batch ran for it
    CAUGHT_UP = "caught-up"  # the thread was processed through it already: nothing ran
    DEAD_LETTERED = "dead-lettered"  # failed for good: on the dead-letter queue


@dataclass(frozen=True)
class _Done:
    outcome: Outcome | Exception
    report: RunReport | None = None


class ExtractionWorker(BatchHandler, service="memory-extractor", event_type=EventType.SQS):
    """Runs the threads an SQS batch of extraction requests names, through `extractor`.
    `sqs` sends the deferred requests back to `queue_url` and the failed ones to
    `dead_letter_url`. With `tracing`, X-Ray traces each batch."""

    def __init__(
        self,
        extractor: Extractor,
        *,
        queue_url: str,
        dead_letter_url: str,
        sqs: Any = None,
        tracing: bool = False,
    ) -> None:
        super().__init__(tracing=tracing)
        self.extractor = extractor
        self.queue_url = queue_url
        self.dead_letter_url = dead_letter_url
        self._sqs = sqs or boto3.Session().client("sqs", region_name=extractor.region)

    # The Lambda's batch step (`handle`, from `BatchHandler`, runs it)

    def process_batch(self, records: list[Mapping[str, Any]]) -> dict[str, Outcome | Exception]:
        """Each SQS record's outcome, by message id, reported (metrics and logs)."""
        done = self.process(records)
        self._report(done)
        return {message_id: entry.outcome for message_id, entry in done.items()}

    def process(self, records: list[Mapping[str, Any]]) -> dict[str, _Done]:
        """Each record's outcome (and its thread's run), by message id."""
        done: dict[str, _Done] = {}
        threads: dict[tuple[str, str], list[tuple[str, ExtractionRequest]]] = {}
        for record in records:
            message_id = self.record_id(record)
            try:
                request = ExtractionRequest.parse(str(record["body"]))
            except ValueError as error:
                done[message_id] = _Done(self._dead_letter_body(str(record["body"]), str(error)))
                continue
            threads.setdefault((request.tenant, request.thread_id), []).append(
                (message_id, request)
            )
        groups = list(threads.values())
        requests = [group[-1][1] for group in groups]
        plan = self._plan(requests)
        workers = max(1, min(CONCURRENCY, len(groups)))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(lambda r: self._run(r, plan), requests))
        for group, result in zip(groups, results, strict=True):
            (first_id, _), *rest = group
            done[first_id] = result
            for message_id, _ in rest:
                folded = result.outcome if isinstance(result.outcome, Exception) else Outcome.FOLDED
                done[message_id] = _Done(folded)
        return done

    def _plan(self, requests: list[ExtractionRequest]) -> BatchPlan | None:
        """The batch's settings and caught-up threads, read once for all its runs (None
        when that read fails: each run then reads its own, and reports its own error)."""
        try:
            return self.extractor.plan_batch(
                [(r.tenant, r.thread_id, r.checkpoint_id) for r in requests]
            )
        except Exception:
            self.logger.warning("Planning the batch failed; each thread reads its own")
            return None

    def _run(self, request: ExtractionRequest, plan: BatchPlan | None) -> _Done:
        """Run one thread: done, deferred, dead-lettered, or the error SQS retries it on."""
        if plan is not None and (request.tenant, request.thread_id) in plan.caught_up:
            return _Done(Outcome.CAUGHT_UP)
        try:
            with self.span("extract"):
                report = self.extractor.run(request.tenant, request.thread_id, plan=plan)
        except ExtractionError as error:
            if error.transient:
                return _Done(error)
            self.logger.error(
                "Extraction failed for good",
                extra={"request": request.body()},
                exc_info=error,
            )
            return _Done(self._dead_letter(request.dead(error.reason)))
        except Exception as error:
            return _Done(error)
        if report.retry_after is None:
            return _Done(Outcome.EXTRACTED, report)
        try:
            self._sqs.send_message(
                QueueUrl=self.queue_url,
                **message(request, report.retry_after),
            )
        except Exception as error:
            return _Done(error, report)
        return _Done(Outcome.DEFERRED, report)

    def _dead_letter(self, request: ExtractionRequest) -> Outcome | Exception:
        try:
            self._sqs.send_message(QueueUrl=self.dead_letter_url, **message(request))
        except Exception as error:
            return error
        return Outcome.DEAD_LETTERED

    def _dead_letter_body(self, body: str, reason: str) -> Outcome | Exception:
        """A message that is no extraction request: to the dead-letter queue as it came."""
        try:
            self._sqs.send_message(
                QueueUrl=self.dead_letter_url,
                MessageBody=body,
                MessageAttributes={"reason": {"DataType": "String", "StringValue": reason}},
            )
        except Exception as error:
            return error
        return Outcome.DEAD_LETTERED

    def _report(self, done: dict[str, _Done]) -> None:
        reports = [d.report for d in done.values() if d.report is not None]
        runs = [run for report in reports for run in report.runs]
        counts = {outcome: 0 for outcome in Outcome}
        failed = [entry.outcome for entry in done.values() if isinstance(entry.outcome, Exception)]
        for entry in done.values():
            if not isinstance(entry.outcome, Exception):
                counts[entry.outcome] += 1
        figures = {
            "Requests": len(done),
            "ThreadsExtracted": counts[Outcome.EXTRACTED],
            "ThreadsDeferred": counts[Outcome.DEFERRED],
            "RequestsFolded": counts[Outcome.FOLDED],
            "RequestsCaughtUp": counts[Outcome.CAUGHT_UP],
            "DeadLettered": counts[Outcome.DEAD_LETTERED],
            "RequestsFailed": len(failed),
            "MemoriesWritten": sum(len(run.written) for run in runs),
            "ModelCalls": sum(run.model_calls for run in runs),
            "InputTokens": sum(run.input_tokens for run in runs),
            "OutputTokens": sum(run.output_tokens for run in runs),
        }
        self.report(figures, failed, "Extraction request failed; SQS retries it")
        self.logger.info("Extraction batch done", extra=figures)


def worker_env(
    table_name: str,
    *,
    queue_url: str,
    dead_letter_url: str,
    index_name: str,
    embedding_model_id: str,
    dims: int,
    normalize: bool,
    fields: tuple[str, ...],
    tenant_key: str,
    tracing: bool = False,
) -> dict[str, str]:
    """The environment `worker_from_env` reads, as the CDK stack sets it on the Lambda."""
    return {
        "TABLE_NAME": table_name,
        "EXTRACTION_QUEUE_URL": queue_url,
        "EXTRACTION_DLQ_URL": dead_letter_url,
        "INDEX_NAME": index_name,
        "EMBEDDING_MODEL_ID": embedding_model_id,
        "EMBEDDING_DIMS": str(dims),
        "EMBEDDING_NORMALIZE": flag(normalize),
        "EMBEDDING_FIELDS": ",".join(fields),
        "THREAD_TENANT_KEY": tenant_key,
        "TRACING": flag(tracing),
    }


def worker_from_env(env: Mapping[str, str] | None = None) -> ExtractionWorker:
    """A worker configured the way the CDK stack configures the Lambda (`worker_env`): the
    store embeds each memory as it writes it (`embed_on="write"`: the run already waits on
    Bedrock, and the memory is written once, with its vector, instead of again by the
    stream consumer) and embeds the queries consolidation searches with; the saver reads
    threads keyed by `THREAD_TENANT_KEY`; the chat models are Bedrock's (`ChatBedrockConverse`).
    Usage per tenant goes to the log as JSON (`usage.UsageLogSink`)."""
    settings = Environment(env)
    table, queue_url, dead_letter_url = settings.require(
        ["TABLE_NAME", "EXTRACTION_QUEUE_URL", "EXTRACTION_DLQ_URL"],
        ": the extraction worker needs them.",
    )
    dims = int(settings.get("EMBEDDING_DIMS", "1024"))
    model = settings.get("EMBEDDING_MODEL_ID", "amazon.titan-embed-text-v2:0")
    normalize = settings.flag("EMBEDDING_NORMALIZE")
    index = {
        "dims": dims,
        "embed": bedrock_embeddings(model, dims, normalize),
        "fields": settings.get("EMBEDDING_FIELDS", "$").split(","),
        "index_name": settings.get("INDEX_NAME", DEFAULT_INDEX_NAME),
        "embed_on": "write",
    }
    store = DynamoDBStore(table, index=index, on_usage=UsageLogSink())  # type: ignore[arg-type]
    saver = DynamoDBSaver(table, tenant_key=settings.get("THREAD_TENANT_KEY"))
    return ExtractionWorker(
        Extractor(store, saver),
        queue_url=queue_url,
        dead_letter_url=dead_letter_url,
        tracing=settings.flag("TRACING"),
    )
