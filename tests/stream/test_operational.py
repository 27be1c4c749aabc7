"""Operational defects of the stream and reindex paths: a bad reindex prefix refused, a
value just under the item limit embedded (never stuck pending), and a store that read the
model pin before `adopt_model` never leaves an old-model vector in the re-pinned index."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.store.base import InvalidNamespaceError
from langgraph.store.dynamodb import reindex
from langgraph.store.dynamodb.cli.app import app
from langgraph.store.dynamodb.testing import mock_aws
from typer.testing import CliRunner

from tests.stream.conftest import NS, TABLE, StreamSetup


def table_rows(setup: StreamSetup) -> list[dict[str, Any]]:
    return setup.store.client.scan(TableName=TABLE, ConsistentRead=True)["Items"]


@pytest.mark.parametrize(
    ("prefix", "says"),
    [
        (("memories", ""), "cannot be empty"),
        (("memories.acme",), "cannot contain periods"),
        ("memories", "must be a tuple"),
        (("memories", 7), "must be strings"),
    ],
)
def test_reindex_refuses_an_invalid_prefix_before_writing(
    streamed: StreamSetup, prefix: Any, says: str
) -> None:
    streamed.store.put(NS, "k", {"text": "kept as it is"})
    before = table_rows(streamed)
    with pytest.raises(InvalidNamespaceError, match=says):
        reindex(streamed.store, prefix=prefix, adopt_model=True, restart=True)
    assert table_rows(streamed) == before


def test_the_cli_reports_an_invalid_reindex_prefix_in_one_line() -> None:
    env = {
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
    }
    with mock_aws():
        runner = CliRunner()
        assert runner.invoke(app, ["setup", "--embed", "lexical"], env=env).exit_code == 0
        result = runner.invoke(app, ["reindex", "memories..acme", "--json"], env=env)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "cannot be empty" in result.stderr
