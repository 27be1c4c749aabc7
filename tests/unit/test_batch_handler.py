"""The Lambda handler skeleton (`handlers.batch`): a handler writes only its batch step;
the base answers with Lambda's partial batch response (a record whose outcome is an error
fails alone, an error out of the step fails the batch) and reads the stack's settings."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

import pytest
from aws_lambda_powertools.utilities.batch import EventType
from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError
from langgraph.store.dynamodb.extraction.worker.queue_worker import ExtractionWorker
from langgraph.store.dynamodb.handlers.batch import BatchHandler, Environment, Outcome
from langgraph.store.dynamodb.stream.consumer import StreamConsumer


class Done(StrEnum):
    OK = "ok"


class Echo(BatchHandler, service="test-echo", event_type=EventType.SQS):
    """Fails the records whose body is "fail"; raises on a body "crash"."""

    def process_batch(self, records: list[Mapping[str, Any]]) -> dict[str, Outcome]:
        if any(r["body"] == "crash" for r in records):
            raise RuntimeError("the whole batch fails")
        return {
            self.record_id(r): ValueError(r["body"]) if r["body"] == "fail" else Done.OK
            for r in records
        }


def sqs_event(*bodies: str) -> dict[str, Any]:
    return {
        "Records": [
            {"messageId": f"m{i}", "body": body, "eventSource": "aws:sqs"}
            for i, body in enumerate(bodies)
        ]
    }


def test_a_failed_record_fails_alone() -> None:
    response = Echo().handle(sqs_event("a", "fail", "b"))
    assert response == {"batchItemFailures": [{"itemIdentifier": "m1"}]}


def test_an_error_out_of_the_batch_step_fails_the_batch() -> None:
    with pytest.raises(RuntimeError):
        Echo().handle(sqs_event("a", "crash"))
    with pytest.raises(BatchProcessingError):  # every record failed: Powertools raises
        Echo().handle(sqs_event("fail", "fail"))


def test_records_are_named_as_the_partial_response_names_them() -> None:
    stream = {"dynamodb": {"SequenceNumber": "42"}}
    assert StreamConsumer.record_id(stream) == "42"
    assert ExtractionWorker.record_id({"messageId": "m7"}) == "m7"


def test_both_lambdas_are_the_skeleton_with_their_own_service() -> None:
    assert issubclass(StreamConsumer, BatchHandler) and issubclass(ExtractionWorker, BatchHandler)
    assert StreamConsumer.logger.service == "memory-embedder"
    assert ExtractionWorker.logger.service == "memory-extractor"


def test_settings() -> None:
    env = Environment({"A": "x", "EMPTY": "", "ON": "TRUE", "ODD": "yes"})
    assert env.require(["A"], ".") == ["x"]
    with pytest.raises(ValueError, match=r"^Set EMPTY, B: needed\.$"):
        env.require(["A", "EMPTY", "B"], ": needed.")
    assert env.get("EMPTY", "d") == "d" and env.get("B") is None
    assert env.flag("ON") and not env.flag("ODD") and not env.flag("B")
    with pytest.raises(ValueError, match="Set ODD to true or false, got 'yes'"):
        env.flag("ODD", strict=True)


# (environment, whether a metric line prints, whether an INFO log prints)
OUTPUT = [
    pytest.param({}, False, False, id="outside Lambda: quiet"),
    pytest.param(
        {"POWERTOOLS_METRICS_DISABLED": "false", "POWERTOOLS_LOG_LEVEL": "INFO"},
        True,
        True,
        id="outside Lambda, asked for",
    ),
    pytest.param({"POWERTOOLS_METRICS_DISABLED": "true"}, False, False, id="disabled"),
    pytest.param({"AWS_LAMBDA_FUNCTION_NAME": "fn"}, True, True, id="in Lambda: as ever"),
]


@pytest.mark.parametrize(("env", "metrics", "info"), OUTPUT)
def test_a_handler_run_locally_keeps_its_metrics_and_info_logs_off_stdout(
    env: dict[str, str],
    metrics: bool,
    info: bool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name in ("AWS_LAMBDA_FUNCTION_NAME", "POWERTOOLS_METRICS_DISABLED", "POWERTOOLS_LOG_LEVEL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)

    class Probe(BatchHandler, service=f"probe-{len(env)}-{sorted(env)}", event_type=EventType.SQS):
        def process_batch(self, records: list[Mapping[str, Any]]) -> dict[str, Outcome]:
            self.logger.info("working on %d records", len(records))
            return {self.record_id(r): Done.OK for r in records}

    probe = Probe()
    probe.handle(sqs_event("a"))
    probe.report({"ThingsDone": 1}, [ValueError("boom")], "a record failed")
    out = capsys.readouterr().out
    assert ("ThingsDone" in out) is metrics
    assert ("working on 1 records" in out) is info
    assert "a record failed" in out  # warnings always show
