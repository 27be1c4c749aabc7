"""Every key of a put or put_writes is checked before the first request, the thread
registry and run index rows included: the thread id is their sort key (1,024 bytes), the
run id and namespace the run link's, the tenant and thread id the thread's partition key
(2,048). A refused call names the id and
the limit and writes nothing; ids at the limits work."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.checkpoint.dynamodb import DynamoDBSaver, KeyTooLongError

from tests.checkpoint.conftest import TABLE
from tests.checkpoint.rows_of import all_rows
from tests.checkpoint.steps import config, step
from tests.support import RequestCounter

RUN = {"run_id": "run-1"}
# A run id whose run link (`r#<run id>#<namespace>`, in the thread's partition) is 1,024
# bytes long in the root namespace, and one a byte longer.
LONGEST_RUN = {"run_id": "r" * 1_021}
TOO_LONG_RUN = {"run_id": "r" * 1_022}


def writes_config(thread: str, **extra: Any) -> Any:
    return config(thread, checkpoint_id="1f1ee3a0-0000-6000-8000-000000000000", **extra)


@pytest.mark.parametrize(
    ("length", "metadata"),
    [(1_024, {}), (1_023, RUN), (10, LONGEST_RUN)],
    ids=["registry row at 1,024", "run index row at 1,024", "run link at 1,024"],
)
def test_ids_at_the_limits_are_stored(
    saver: DynamoDBSaver, length: int, metadata: dict[str, Any]
) -> None:
    thread = "t" * length
    first = step(saver, config(thread), {"a": 1}, metadata)
    step(saver, first, {"a": 2}, metadata, parent=saver.get_tuple(first))
    saver.put_writes(first, [("a", 3)], "task")
    latest = saver.get_tuple(config(thread))
    assert latest is not None and latest.checkpoint["channel_values"] == {"a": 2}
    assert saver.threads() == [thread]
    if metadata:
        saver.delete_for_runs([metadata["run_id"]])
        assert saver.get_tuple(config(thread)) is None


@pytest.mark.parametrize(
    ("length", "metadata", "row"),
    [
        (1_025, {}, "thread registry row"),
        (1_024, RUN, "run index row"),
        (10, TOO_LONG_RUN, "'r#rrr"),
        (2_100, RUN, ""),
    ],
    ids=[
        "registry row past 1,024",
        "run index row past 1,024",
        "run link past 1,024",
        "partition past 2,048",
    ],
)
def test_ids_past_the_limits_are_refused_before_any_request(
    saver: DynamoDBSaver, length: int, metadata: dict[str, Any], row: str
) -> None:
    thread = "t" * length
    counter = RequestCounter(saver.client)
    with pytest.raises(KeyTooLongError, match=r"DynamoDB allows (1024|2048)") as refused:
        step(saver, config(thread), {"a": 1}, metadata)
    assert thread[:50] in str(refused.value) and row in str(refused.value)
    if len(thread) > 1_024:  # the thread id itself is too long: its writes are refused too
        with pytest.raises(KeyTooLongError, match="DynamoDB allows"):
            saver.put_writes(writes_config(thread), [("messages", "the user's text")], "task")
    assert counter.total == 0
    assert all_rows(saver.client, TABLE) == []


def test_a_tenant_and_thread_past_the_partition_key_limit_are_refused(emulation: None) -> None:
    with DynamoDBSaver.from_table(
        TABLE, region_name="us-east-1", setup=True, tenant_key="tenant"
    ) as saver:
        counter = RequestCounter(saver.client)
        cfg = config("t" * 1_000, tenant="a" * 1_100)
        with pytest.raises(
            KeyTooLongError, match="partition key is 2104 bytes; DynamoDB allows 2048"
        ):
            step(saver, cfg, {"a": 1})
        with pytest.raises(KeyTooLongError, match="DynamoDB allows 2048"):
            saver.put_writes(writes_config("t" * 1_000, tenant="a" * 1_100), [("a", 1)], "task")
        assert counter.total == 0
        assert all_rows(saver.client, TABLE) == []


def test_a_checkpoint_whose_writes_row_key_would_pass_the_limit_is_refused_at_its_put(
    saver: DynamoDBSaver,
) -> None:
    # `c#<ns>#<36-character id>` is 1,024 bytes; its writes row adds `#writes`: refused
    # at the put, not at the first put_writes after the checkpoint was stored.
    cfg = config("t", checkpoint_ns="n" * 985)
    counter = RequestCounter(saver.client)
    with pytest.raises(KeyTooLongError, match="1031 bytes; DynamoDB allows 1024"):
        step(saver, cfg, {"a": 1})
    assert counter.total == 0
    assert all_rows(saver.client, TABLE) == []
