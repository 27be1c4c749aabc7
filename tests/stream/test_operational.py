"""Operational defects of the stream and reindex paths: a bad reindex prefix refused, a
value just under the item limit embedded (never stuck pending), and a store that read the
model pin before `adopt_model` never leaves an old-model vector in the re-pinned index."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.store.base import InvalidNamespaceError
from langgraph.store.dynamodb import reindex
from langgraph.store.dynamodb.cli.app import app
from langgraph.store.dynamodb.table.schema import PENDING, VECTOR
from langgraph.store.dynamodb.table.values import MAX_ITEM_BYTES
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


def _filler(size: int) -> dict[str, Any]:
    return {"text": ("lorem ipsum dolor " * (size // 18 + 1))[:size]}


def test_a_value_near_the_item_limit_is_embedded_or_refused_at_put(streamed: StreamSetup) -> None:
    """The largest value a stream-mode put accepts leaves room for the vector the consumer
    adds: the consumer embeds it (no pending marker stays); one byte more is refused at
    put, saying why, so no accepted item is ever stuck pending."""
    low, high = 100_000, MAX_ITEM_BYTES  # accepted, refused
    assert streamed.store.put(NS, "probe", _filler(low)) is None
    with pytest.raises(ValueError):
        streamed.store.put(NS, "probe", _filler(high))
    while high - low > 1:
        middle = (low + high) // 2
        try:
            streamed.store.put(NS, "probe", _filler(middle))
            low = middle
        except ValueError:
            high = middle
    streamed.store.put(NS, "large", _filler(low))  # a key as long as the probe's
    streamed.drain()
    row = streamed.store.client.get_item(
        TableName=TABLE, Key={"PK": {"S": ".".join(NS)}, "SK": {"S": "k#large"}}
    )["Item"]
    assert PENDING not in row and VECTOR in row
    with pytest.raises(ValueError, match=r"stream consumer adds its 64-number vector"):
        streamed.store.put(NS, "too-large", _filler(low + 1))
