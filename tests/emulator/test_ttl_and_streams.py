"""TTL sweep and stream draining through a Lambda-style handler (both modes)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from langgraph.store.dynamodb.testing import (
    TTL_USER_IDENTITY,
    drain_stream,
    expire_ttl_items,
    run_consumer,
)

from .conftest import TABLE, create_table, index_spec, keys, put, search


@pytest.fixture
def streamed(ddb: Any) -> Any:
    create_table(
        ddb,
        indexes=[index_spec()],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )
    ddb.update_time_to_live(
        TableName=TABLE,
        TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires_at"},
    )
    return ddb


def test_ttl_sweep_removes_expired_items_and_index_entries(streamed: Any) -> None:
    now = int(time.time())
    put(streamed, "a", "old", [1, 0, 0, 0], expires_at={"N": str(now - 10)})
    put(streamed, "a", "new", [1, 0, 0, 0], expires_at={"N": str(now + 3600)})
    put(streamed, "a", "ancient", [1, 0, 0, 0], expires_at={"N": str(now - 6 * 365 * 86400)})
    put(streamed, "a", "text", [1, 0, 0, 0], expires_at={"S": "yesterday"})
    assert sorted(keys(search(streamed, [1, 0, 0, 0]))) == ["ancient", "new", "old", "text"]
    assert expire_ttl_items(TABLE) == 1
    assert sorted(keys(search(streamed, [1, 0, 0, 0]))) == ["ancient", "new", "text"]
    seen: list[dict[str, Any]] = []
    drain_stream(TABLE, lambda event, ctx: seen.extend(event["Records"]))
    removes = [r for r in seen if r["eventName"] == "REMOVE"]
    assert len(removes) == 1
    assert removes[0]["userIdentity"] == TTL_USER_IDENTITY
    assert removes[0]["dynamodb"]["Keys"]["SK"] == {"S": "old"}


def test_ttl_sweep_ignores_tables_without_ttl(ddb: Any) -> None:
    create_table(ddb)
    put(ddb, "a", "1", expires_at={"N": "1"})
    assert expire_ttl_items() == 0


def test_drain_delivers_lambda_shaped_batches(streamed: Any) -> None:
    for i in range(5):
        put(streamed, "a", str(i), [1, 0, 0, 0])
    batches: list[list[dict[str, Any]]] = []
    report = drain_stream(TABLE, lambda e, c: batches.append(e["Records"]), batch_size=2)
    assert [len(b) for b in batches] == [2, 2, 1]
    assert report.invocations == 3 and report.delivered == 5 and report.ok
    record = batches[0][0]
    assert record["eventName"] == "INSERT"
    assert record["eventVersion"] == "1.1"
    assert record["eventSource"] == "aws:dynamodb"
    assert record["awsRegion"] == "us-east-1"
    assert record["eventSourceARN"].startswith(
        f"arn:aws:dynamodb:us-east-1:123456789012:table/{TABLE}/stream/"
    )
    assert record["dynamodb"]["NewImage"]["SK"] == {"S": "0"}
    assert isinstance(record["dynamodb"]["ApproximateCreationDateTime"], float)
    # a second drain only sees new records
    assert drain_stream(TABLE, lambda e, c: None).invocations == 0


def test_partial_batch_failure_retries_from_first_failed(streamed: Any) -> None:
    for i in range(4):
        put(streamed, "a", str(i), [1, 0, 0, 0])
    calls: list[list[str]] = []

    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        sks = [r["dynamodb"]["Keys"]["SK"]["S"] for r in event["Records"]]
        calls.append(sks)
        if len(calls) == 1:
            failed = event["Records"][2]["dynamodb"]["SequenceNumber"]
            return {"batchItemFailures": [{"itemIdentifier": failed}]}
        return {"batchItemFailures": []}

    report = drain_stream(TABLE, handler, batch_size=10)
    assert calls == [["0", "1", "2", "3"], ["2", "3"]]
    assert report.retries == 1 and report.delivered == 4 and report.ok


def test_bounded_retries_then_reported_failed(streamed: Any) -> None:
    for i in range(3):
        put(streamed, "a", str(i), [1, 0, 0, 0])
    calls = 0

    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        nonlocal calls
        calls += 1
        for r in event["Records"]:
            if r["dynamodb"]["Keys"]["SK"]["S"] == "1":
                return {"batchItemFailures": [{"itemIdentifier": r["dynamodb"]["SequenceNumber"]}]}
        return {}

    report = drain_stream(TABLE, handler, batch_size=2, max_retries=2)
    # batches: [0, 1] -> retry [1, 2] -> retry [1, 2] -> given up: the rest of that batch
    # is reported failed (what Lambda sends to the on-failure destination)
    assert [r["dynamodb"]["Keys"]["SK"]["S"] for r in report.failed] == ["1", "2"]
    assert report.retries == 2
    assert report.delivered == 1
    assert calls == 3
    assert drain_stream(TABLE, handler).invocations == 0


def test_handler_exception_fails_whole_batch(streamed: Any) -> None:
    put(streamed, "a", "0", [1, 0, 0, 0])

    def handler(event: dict[str, Any], context: Any) -> None:
        raise RuntimeError("boom")

    report = drain_stream(TABLE, handler, max_retries=1)
    assert len(report.errors) == 2 and len(report.failed) == 1


def test_filter_patterns(streamed: Any) -> None:
    put(streamed, "a", "keep", [1, 0, 0, 0], status="pending")
    put(streamed, "a", "skip", [1, 0, 0, 0], status="done")
    put(streamed, "a", "none", [1, 0, 0, 0])
    streamed.delete_item(TableName=TABLE, Key={"PK": {"S": "a"}, "SK": {"S": "none"}})
    seen: list[str] = []

    def handler(event: dict[str, Any], context: Any) -> None:
        seen.extend(r["dynamodb"]["Keys"]["SK"]["S"] for r in event["Records"])

    pattern = {
        "eventName": ["INSERT", "MODIFY"],
        "dynamodb": {"NewImage": {"status": {"S": [{"anything-but": ["done"]}]}}},
    }
    report = drain_stream(TABLE, handler, filter_patterns=[pattern])
    assert seen == ["keep"]
    assert report.filtered_out == 3
    seen.clear()
    put(streamed, "b", "x", [1, 0, 0, 0], status="pend-2")
    put(streamed, "b", "y", [1, 0, 0, 0])
    drain_stream(
        TABLE,
        handler,
        filter_patterns={
            "Filters": [
                {"Pattern": '{"dynamodb": {"NewImage": {"status": {"S": [{"prefix": "pend"}]}}}}'},
                {"Pattern": '{"dynamodb": {"NewImage": {"status": [{"exists": false}]}}}'},
            ]
        },
    )
    assert seen == ["x", "y"]


def test_handler_writes_are_drained_too(emu: Any, streamed: Any) -> None:
    put(streamed, "a", "0")
    client = emu.client("dynamodb")

    def handler(event: dict[str, Any], context: Any) -> None:
        for r in event["Records"]:
            if "embedding" not in r["dynamodb"]["NewImage"]:
                client.update_item(
                    TableName=TABLE,
                    Key=r["dynamodb"]["Keys"],
                    UpdateExpression="SET embedding = :v",
                    ExpressionAttributeValues={":v": {"L": [{"N": "1"}] * 4}},
                )

    report = drain_stream(TABLE, handler)
    assert report.invocations == 2  # the INSERT, then the handler's own MODIFY
    assert keys(search(streamed, [1, 0, 0, 0])) == ["0"]


def test_background_consumer(emu: Any, streamed: Any) -> None:
    seen: list[str] = []
    with run_consumer(TABLE, lambda e, c: seen.extend(r["eventName"] for r in e["Records"])) as c:
        put(streamed, "a", "0", [1, 0, 0, 0])
        put(streamed, "a", "0", [0, 1, 0, 0])
        assert c.wait_until_idle()
    assert seen == ["INSERT", "MODIFY"]
