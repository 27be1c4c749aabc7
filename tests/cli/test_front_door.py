"""The command line as a new user meets it, in-process on the emulation: a declined
confirmation, thread storage in `usage`, a missing checkpoint namespace, whole help
texts, and one-line errors for bad endpoints and prefixes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.cli.app import app
from langgraph.store.dynamodb.testing import mock_aws
from typer.testing import CliRunner, Result

from tests.cli.test_threads import write_thread

TABLE = "front-door"
DECLINED = 4  # README: "4 a confirmation declined"
ENV = {
    "DYNAMODB_MEMORY_TABLE": TABLE,
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
}


def run(*args: str, answer: str | None = None) -> Result:
    return CliRunner().invoke(app, list(args), env=ENV, input=answer)


@pytest.fixture
def saver() -> Iterator[DynamoDBSaver]:
    with mock_aws(), DynamoDBSaver(TABLE, region_name="us-east-1") as saver:
        saver.setup()
        yield saver


@pytest.mark.parametrize("answer", ["n\n", "", "maybe\nno\n"])
def test_declining_threads_rm_exits_with_the_documented_code(
    saver: DynamoDBSaver, answer: str
) -> None:
    write_thread(saver, "kept")
    declined = run("threads", "rm", "kept", answer=answer)
    assert declined.exit_code == DECLINED, declined.output
    assert "Not confirmed: nothing was deleted." in declined.stderr
    assert saver.count_checkpoints("kept") == 2


@pytest.mark.parametrize(
    ("args", "answer"),
    [(("purge", "memories.acme"), "n\n"), (("purge", "--all-tenants"), "wrong-name\n")],
)
def test_declining_purge_exits_with_the_same_code(
    saver: DynamoDBSaver, args: tuple[str, ...], answer: str
) -> None:
    store = DynamoDBStore(TABLE, region_name="us-east-1")
    store.put(("memories", "acme", "u1"), "k", {"text": "kept"})
    declined = run(*args, answer=answer)
    assert declined.exit_code == DECLINED, declined.output
    assert "Not confirmed: nothing was deleted." in declined.stderr
    assert store.get(("memories", "acme", "u1"), "k") is not None
