"""The store's write paths against DynamoDB's expression limits (4 KB per expression, 300
operators and functions), with the widest inputs the API accepts: the most filter fields an
index takes (`MAX_INLINE_FILTERS`, with long names), several embedded fields, a TTL, stream
mode. Names and values travel as placeholders (`#a3`, `:a3`), so what a path's expressions
grow with is how many attributes it names, and the settings bound that: every path's
widest expression stays under a quarter of each limit. The emulation enforces the limits,
so a path past one fails here with the service's ValidationException before it would on
AWS."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.cli.transfer import export_lines, import_lines
from langgraph.store.dynamodb.items.index_config import MAX_INLINE_FILTERS
from langgraph.store.dynamodb.jobs.reindex import reindex
from langgraph.store.dynamodb.stream.consumer import FILTER_PATTERNS, StreamConsumer
from langgraph.store.dynamodb.table.values import MAX_EXPRESSION_BYTES, MAX_EXPRESSION_OPERATORS
from langgraph.store.dynamodb.testing import LexicalEmbeddings, drain_stream, mock_aws
from langgraph.store.dynamodb.testing._expressions import EXPRESSIONS, operator_count

from tests.stream.conftest import TABLE, CountingEmbeddings

NS = ("memories", "acme", "user-1")
# Filter field names as long as a reader would tolerate: they never enter an expression.
FILTERS = [f"field_{i:02d}_" + "n" * 48 for i in range(MAX_INLINE_FILTERS)]
FIELDS = ["text", "topic", "summary", "title"]
# What every path's widest expression must stay under: a quarter of each limit.
BYTES_BOUND = MAX_EXPRESSION_BYTES // 4
OPERATORS_BOUND = MAX_EXPRESSION_OPERATORS // 4


@dataclass
class Expressions:
    """Every expression one client sends, per operation and parameter: (bytes, operators)."""

    seen: dict[tuple[str, str], list[tuple[int, int]]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def watch(self, client: Any) -> None:
        client.meta.events.register("before-parameter-build.dynamodb", self._record)

    def _record(self, params: dict[str, Any], model: Any, **_: Any) -> None:
        parts = [params, *(params.get("RequestItems") or {}).values()]
        parts += [body for item in params.get("TransactItems") or [] for body in item.values()]
        for part in parts:
            for kind in EXPRESSIONS:
                text = part.get(kind) if isinstance(part, dict) else None
                if isinstance(text, str):
                    with self.lock:
                        self.seen.setdefault((model.name, kind), []).append(
                            (len(text.encode()), operator_count(text))
                        )

    def widest(self, operation: str) -> tuple[int, int]:
        """The largest size and operator count among `operation`'s expressions."""
        found = [one for (name, _), sent in self.seen.items() if name == operation for one in sent]
        assert found, f"no {operation} was sent: {sorted(self.seen)}"
        return max(size for size, _ in found), max(count for _, count in found)

    def reset(self) -> None:
        self.seen.clear()


def value(n: int) -> dict[str, Any]:
    """An item with every embedded and filter field."""
    return {
        **{name: f"{name} {n}" for name in FIELDS},
        **{name: f"filter {n}" for name in FILTERS},
    }


def index(**extra: Any) -> dict[str, Any]:
    return {"dims": 16, "fields": FIELDS, "filter_fields": FILTERS, **extra}


@pytest.fixture
def expressions() -> Iterator[Expressions]:
    with mock_aws():
        yield Expressions()


def assert_within(widest: tuple[int, int], what: str) -> None:
    size, operators = widest
    print(f"\n{what}: {size} bytes, {operators} operators")
    assert size <= BYTES_BOUND and operators <= OPERATORS_BOUND, (what, widest)


def widest_store(expressions: Expressions, **extra: Any) -> DynamoDBStore:
    store = DynamoDBStore(
        TABLE,
        region_name="us-east-1",
        index=index(embed=LexicalEmbeddings(dims=16), **extra),  # type: ignore[arg-type]
    )
    store.setup()
    expressions.watch(store.client)
    return store


def test_a_put_writing_and_removing_every_attribute(expressions: Expressions) -> None:
    """`rows.update_arguments`: one UpdateItem sets every attribute of the item (value,
    timestamps, TTL, vector bookkeeping, each filter copy) and removes those it lacks."""
    store = widest_store(expressions)
    store.put(NS, "k", value(1), ttl=60)
    store.put(NS, "k", {"text": "no filter field left"}, index=["text"])
    assert_within(expressions.widest("UpdateItem"), "a put")


def test_extra_vector_rows_following_their_item(expressions: Expressions) -> None:
    """`vector_rows.follow`: an item whose filter values and expiry change without new
    vectors gives every extra vector row its filter copies and expiry in one UpdateItem
    each (SET the copies it has, REMOVE those it lacks)."""
    store = widest_store(expressions)
    store.put(NS, "k", value(1), ttl=60)
    expressions.reset()
    store.put(NS, "k", {**value(1), **{name: "changed" for name in FILTERS[::2]}})
    assert_within(expressions.widest("UpdateItem"), "extra vector rows following")


def test_the_consumer_writing_vectors(expressions: Expressions) -> None:
    """`vector_writes`: in stream mode the consumer's conditional UpdateItem of the item's
    vector (a fixed set of attributes whatever the settings)."""
    embeddings = CountingEmbeddings(dims=16)
    store = DynamoDBStore(
        TABLE, region_name="us-east-1", index=index(embed=embeddings, embed_on="stream")
    )  # type: ignore[arg-type]
    store.setup()
    consumer = StreamConsumer(TABLE, client=store.client, embeddings=embeddings)
    store.put(NS, "k", value(1), ttl=60)
    expressions.watch(store.client)
    drain_stream(TABLE, consumer.handle, filter_patterns=FILTER_PATTERNS)
    assert embeddings.calls == 1
    assert_within(expressions.widest("UpdateItem"), "the consumer's vector write")


def test_reindex_reading_and_writing(expressions: Expressions) -> None:
    """`reindex`: its Query projects the item's attributes and each filter copy; its
    writes are the vector writes above."""
    store = widest_store(expressions)
    store.put(NS, "k", value(1), ttl=60)
    expressions.reset()
    summary = reindex(store, restart=True)
    assert summary.scanned >= 1
    assert_within(expressions.widest("Query"), "reindex's Query")


def test_an_import_restoring_timestamps_and_expiry(expressions: Expressions) -> None:
    """`transfer._restore`: an imported memory gets its exported timestamps, recency and
    expiry back in one conditional UpdateItem."""
    store = widest_store(expressions)
    store.put(NS, "k", value(1), ttl=60)
    out = io.StringIO()
    assert export_lines(store, NS, out) == 1
    expressions.reset()
    assert import_lines(store, io.StringIO(out.getvalue())).written == 1
    assert ("UpdateItem", "ConditionExpression") in expressions.seen  # the restore
    assert_within(expressions.widest("UpdateItem"), "an import's restore")
