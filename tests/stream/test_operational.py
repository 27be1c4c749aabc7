"""Operational defects of the stream and reindex paths: a bad reindex prefix refused, a
value just under the item limit embedded (never stuck pending), and a store that read the
model pin before `adopt_model` never leaves an old-model vector in the re-pinned index."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.store.base import InvalidNamespaceError
from langgraph.store.dynamodb import DynamoDBStore, ModelMismatchError, reindex
from langgraph.store.dynamodb.cli.app import app
from langgraph.store.dynamodb.items.embedding import content_hash
from langgraph.store.dynamodb.table import clock as library_clock
from langgraph.store.dynamodb.table.schema import CONTENT_HASH, PENDING, VECTOR
from langgraph.store.dynamodb.table.values import MAX_ITEM_BYTES
from langgraph.store.dynamodb.testing import mock_aws
from typer.testing import CliRunner

from tests.stream.conftest import (
    DIMS,
    NS,
    TABLE,
    CountingEmbeddings,
    StreamSetup,
    make_stream_store,
)
from tests.support import FakeClock


def make_store_with(embeddings: CountingEmbeddings) -> DynamoDBStore:
    """A write-mode store on TABLE with `embeddings`, without setup (its model is not
    the pinned one)."""
    index: Any = {"dims": DIMS, "embed": embeddings, "fields": ["text"]}
    return DynamoDBStore(TABLE, region_name="us-east-1", index=index)


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


class NewModel(CountingEmbeddings):
    """Another model (another class: another pinned identity)."""


def _vector_hashes(store: DynamoDBStore) -> dict[str, str]:
    rows = store.client.scan(TableName=TABLE, ConsistentRead=True)["Items"]
    return {r["SK"]["S"]: r[CONTENT_HASH]["S"] for r in rows if VECTOR in r}


def test_old_model_vectors_written_after_the_repin_are_re_embedded(clock: FakeClock) -> None:
    """Store `old` read the pin just before `reindex(adopt_model=True)` moved it: until its
    check is due again it keeps writing old-model vectors, also after the reindex read
    their namespace. Such a vector is found and re-embedded with the new model before the
    reindex returns; after it, `old` is refused. No old-model vector stays in the index."""
    with mock_aws():
        old = make_stream_store(CountingEmbeddings(), embed_on="write")
        old.put(NS, "before", {"text": "written before the move"})
        newer = NewModel()
        moved = make_store_with(newer)
        written: list[str] = []

        def old_store_keeps_writing(seconds: float) -> None:
            # During the reindex's wait: the old store's pin check is not due yet.
            old.put(NS, "during", {"text": "written by the old store after the repin"})
            written.append("during")
            clock.advance(seconds)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(library_clock, "sleep", old_store_keeps_writing)
            reindex(moved, adopt_model=True)
        texts = {
            "k#before": "written before the move",
            "k#during": "written by the old store after the repin",
            "k#after": "written by the old store once the reindex returned",
        }
        refused = False
        try:
            old.put(NS, "after", {"text": texts["k#after"]})
        except ModelMismatchError:
            refused = True  # its pin check was due again: the reindex outwaited it
        model = moved.index_settings.model  # type: ignore[union-attr]
        stored = _vector_hashes(moved)
        assert stored == {key: content_hash([texts[key]], model) for key in stored}
        assert written == ["during"] and set(stored) == {"k#before", "k#during"} and refused
        hits = moved.search(NS, query="old store after the repin")
        assert hits[0].key == "during"
