"""The saver's errors speak of the saver: a missing table names `saver.setup()`, a table
with another key schema is one line naming `DynamoDBSaver` on every path, and plain moto
(without the emulation) is refused at once with the store's message."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.cli.app import app
from langgraph.store.dynamodb.table.errors import KeySchemaError, TableNotFoundError
from langgraph.store.dynamodb.testing import mock_aws
from typer.testing import CliRunner

ROOT = {"configurable": {"thread_id": "t1", "checkpoint_ns": ""}}
CALLS: dict[str, Callable[[DynamoDBSaver], Any]] = {
    "get_tuple": lambda saver: saver.get_tuple(ROOT),
    "put": lambda saver: saver.put(ROOT, empty_checkpoint(), {}, {}),
    "list": lambda saver: list(saver.list(ROOT)),
    "list(None)": lambda saver: list(saver.list(None)),
    "threads": lambda saver: saver.threads(),
    "delete_thread": lambda saver: saver.delete_thread("t1"),
}


@pytest.fixture
def emulation() -> Iterator[None]:
    with mock_aws():
        yield


@pytest.mark.parametrize("call", CALLS)
def test_a_missing_table_names_saver_setup(emulation: None, call: str) -> None:
    with (
        DynamoDBSaver("never-created", region_name="us-east-1") as saver,
        pytest.raises(TableNotFoundError, match=r"Call saver\.setup\(\) once") as caught,
    ):
        CALLS[call](saver)
    assert "store.setup()" not in str(caught.value)


@pytest.mark.parametrize("call", [*CALLS, "setup"])
def test_a_table_with_another_key_schema_is_one_line_naming_the_saver(
    emulation: None, call: str
) -> None:
    boto3.client("dynamodb", region_name="us-east-1").create_table(
        TableName="other",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    with (
        DynamoDBSaver("other", region_name="us-east-1") as saver,
        pytest.raises(KeySchemaError) as caught,
    ):
        (CALLS[call] if call != "setup" else DynamoDBSaver.setup)(saver)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("Table other has key schema {'id': 'HASH'}; DynamoDBSaver needs")
    result = CliRunner().invoke(
        app,
        ["threads", "ls", "--table", "other"],
        env={"AWS_DEFAULT_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "x"},
    )
    assert result.exit_code == 3 and result.stderr.count("\n") == 1, result.output
    assert "DynamoDBSaver needs PK (HASH, S)" in result.stderr


def test_the_store_still_names_itself(emulation: None) -> None:
    with pytest.raises(TableNotFoundError, match=r"Call store\.setup\(\) once"):
        DynamoDBStore("never-created", region_name="us-east-1").get(("a",), "k")


PLAIN_MOTO = textwrap.dedent(
    """
    import time
    from moto import mock_aws
    from langgraph.checkpoint.dynamodb import DynamoDBSaver
    from langgraph.store.dynamodb.table.errors import UnsupportedBackendError

    early = DynamoDBSaver("memory", region_name="us-east-1")  # before the mock starts
    with mock_aws():
        for saver in (DynamoDBSaver("memory", region_name="us-east-1"), early):
            started = time.monotonic()
            try:
                saver.setup()
            except UnsupportedBackendError as error:
                print(f"{time.monotonic() - started:.1f}")
                print(error)
            else:
                print("setup() returned")
    """
)


def test_plain_moto_is_refused_at_the_first_request_with_the_stores_fix() -> None:
    # A separate process: plain moto, without this package's emulation patches loaded.
    done = subprocess.run(
        [sys.executable, "-c", PLAIN_MOTO],
        capture_output=True,
        text=True,
        timeout=120,
        env={"AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x", "PATH": ""},
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 4, done.stdout
    for elapsed, message in (lines[:2], lines[2:]):
        assert float(elapsed) < 1
        assert message.startswith("DynamoDBSaver's requests are answered by plain moto")
        assert "langgraph.store.dynamodb.testing.mock_aws (in place of moto.mock_aws)" in message
        assert "local_endpoint()" in message
