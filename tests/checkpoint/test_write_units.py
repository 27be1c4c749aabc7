"""What DynamoDB bills a checkpoint's writes (the emulation's consumed capacity, as AWS
computes it): a `put_writes` is billed for its writes, not for the values of the
checkpoint it lands beside, and a put whose rows come to `SPLIT_BYTES` or more is no
transaction, which would bill each of its units twice."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.table.usage import UsageRecord

from tests.checkpoint.conftest import TABLE
from tests.checkpoint.notes import config
from tests.checkpoint.steps import step
from tests.support import RequestCounter

STATE = "x" * 60_000  # a long conversation's messages: 60 KB, inline in the checkpoint row


class Metered:
    """A saver whose requests' write units are recorded (`on_usage`)."""

    def __init__(self, saver: DynamoDBSaver, records: list[UsageRecord]) -> None:
        self.saver = saver
        self.records = records
        self.counter = RequestCounter(saver.client)

    def measure(self) -> tuple[float, Counter[str]]:
        """The write units and requests since the last call."""
        units = sum(r.write_units for r in self.records)
        calls = Counter(self.counter.calls)
        self.records.clear()
        self.counter.reset()
        return units, calls


@pytest.fixture
def metered(emulation: None) -> Iterator[Metered]:
    records: list[UsageRecord] = []
    with DynamoDBSaver(TABLE, region_name="us-east-1", on_usage=records.append) as saver:
        saver.setup()
        made = Metered(saver, records)
        made.measure()
        yield made


def test_a_put_writes_is_billed_for_its_writes_not_the_checkpoints_values(
    metered: Metered,
) -> None:
    first = step(metered.saver, config("t"), {"messages": STATE})
    metered.measure()
    metered.saver.put_writes(first, [("messages", "and one more thing")], "task")
    units, calls = metered.measure()
    assert calls == {"UpdateItem": 1}
    assert units == 1  # the update of the checkpoint row itself cost 60


def test_the_first_put_of_a_run_bills_a_large_checkpoint_row_once(metered: Metered) -> None:
    # A run's first put also writes its run index row and run link, and a thread's first
    # its registry row: in a transaction, each unit of the 60 KB row would cost two.
    step(metered.saver, config("t"), {"messages": STATE}, {"run_id": "run-1"})
    units, calls = metered.measure()
    assert calls == {"BatchWriteItem": 1, "UpdateItem": 1}
    assert 60 <= units <= 60 + 6

    # A small one stays one request: its transaction doubles a few units only.
    step(metered.saver, config("small"), {"messages": "hello"}, {"run_id": "run-1"})
    units, calls = metered.measure()
    assert calls == {"TransactWriteItems": 1}
    assert units <= 10


def test_a_large_value_the_puts_do_not_change_is_written_once_then_referenced(
    metered: Metered,
) -> None:
    saver = metered.saver
    first = step(saver, config("t"), {"document": "d" * 100_000, "a": 1})  # new: inline
    second = step(saver, first, {"a": 2}, parent=saver.get_tuple(first))  # kept: a value row
    metered.measure()
    step(saver, second, {"a": 3}, parent=saver.get_tuple(second))
    units, _ = metered.measure()
    assert units <= 2  # the checkpoint row names the value row; 100 if it held the value
    latest = saver.get_tuple(config("t"))
    assert latest is not None and latest.checkpoint["channel_values"]["document"] == "d" * 100_000
