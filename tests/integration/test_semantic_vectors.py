"""Items with several vectors: one result per item with its best score, stale vectors never
returned, and a page filled with distinct items however many vectors one item owns.

Texts name an angle (`"a20"` is 20 degrees); each embeds to the unit vector at that angle
and the query `"q"` to 0 degrees, so a text's COSINE score is exactly `cos(angle)`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.table.schema import VECTOR_VERSION
from langgraph.store.dynamodb.testing import mock_aws

NS = ("memories", "t", "u")


def embed(texts: list[str]) -> list[list[float]]:
    angles = [0.0 if text == "q" else math.radians(float(text[1:])) for text in texts]
    return [[math.cos(a), math.sin(a), 0.0, 0.0] for a in angles]


def cos(degrees: float) -> float:
    return math.cos(math.radians(degrees))


@pytest.fixture
def store(request: pytest.FixtureRequest) -> Iterator[DynamoDBStore]:
    """A store with `omit_expired` on (the default), or as parametrized by `BOTH`."""
    with mock_aws():
        store = DynamoDBStore(
            "memory",
            region_name="us-east-1",
            ttl={"omit_expired": getattr(request, "param", True)},
            index={"dims": 4, "embed": embed, "fields": ["notes[*]"]},
        )
        store.setup()
        yield store


# With `omit_expired` off a search first asks the index for only `offset + limit` vectors,
# so the paths that fetch deeper differ: run both.
BOTH = pytest.mark.parametrize(
    "store", [True, False], indirect=True, ids=["omit-expired", "keep-expired"]
)


def hits(store: DynamoDBStore, limit: int = 10) -> list[tuple[str, float]]:
    return [(r.key, r.score) for r in store.search(NS, query="q", limit=limit)]  # type: ignore[misc]


def approx(expected: list[tuple[str, float]]) -> list[tuple[str, Any]]:
    return [(key, pytest.approx(score, abs=1e-6)) for key, score in expected]


@pytest.mark.parametrize(
    "notes",
    [["a5", "a20", "a40"], ["a40", "a20", "a5"]],
    ids=["best-vector-on-the-item-row", "best-vector-on-an-extra-row"],
)
def test_an_item_appears_once_with_its_best_score(store: DynamoDBStore, notes: list[str]) -> None:
    store.put(NS, "multi", {"notes": notes})
    store.put(NS, "near", {"notes": ["a10"]})
    store.put(NS, "far", {"notes": ["a80"]})
    # Vectors by rank: multi (5), near (10), multi (20), multi (40), far (80).
    assert hits(store) == approx([("multi", cos(5)), ("near", cos(10)), ("far", cos(80))])
    assert hits(store, limit=2) == approx([("multi", cos(5)), ("near", cos(10))])


def _vector_rows(store: DynamoDBStore) -> dict[str, dict[str, Any]]:
    response = store.client.query(
        TableName="memory",
        KeyConditionExpression="PK = :pk",
        ExpressionAttributeValues={":pk": {"S": ".".join(NS)}},
        ConsistentRead=True,
    )
    return {item["SK"]["S"]: item for item in response["Items"]}


@BOTH
def test_a_stale_extra_vector_of_a_live_item_is_never_returned(store: DynamoDBStore) -> None:
    store.put(NS, "k", {"notes": ["a30", "a5"]})  # vector 1 (5 degrees) on an extra row
    store.put(NS, "other", {"notes": ["a10"]})

    def lose_the_cleanup(params: dict[str, Any], **_: Any) -> None:
        # The new vector rows land before the item row; the delete of the old ones is lost.
        if any("DeleteRequest" in r for rows in params["RequestItems"].values() for r in rows):
            raise ConnectionError("injected: the connection dropped before the cleanup")

    store.client.meta.events.register(
        "before-parameter-build.dynamodb.BatchWriteItem", lose_the_cleanup
    )
    store.put(NS, "k", {"notes": ["a60", "a70"]})  # the cleanup is best effort
    store.client.meta.events.unregister(
        "before-parameter-build.dynamodb.BatchWriteItem", lose_the_cleanup
    )
    rows = _vector_rows(store)
    # The item was rewritten; its old extra vector (5 degrees, old write) remains.
    extra = [row for sk, row in rows.items() if sk.startswith("v#k#")]
    assert len(extra) == 2
    assert {row[VECTOR_VERSION]["S"] for row in extra} != {rows["k#k"][VECTOR_VERSION]["S"]}
    item = store.get(NS, "k")
    assert item is not None and item.value == {"notes": ["a60", "a70"]}
    # k ranks by its live vector (60 degrees), never by the stale one (5 degrees).
    assert hits(store) == approx([("other", cos(10)), ("k", cos(60))])
    assert hits(store, limit=1) == approx([("other", cos(10))])


@BOTH
def test_one_item_owning_the_nearest_vectors_does_not_starve_the_page(
    store: DynamoDBStore,
) -> None:
    store.put(NS, "hog", {"notes": ["a1", "a2", "a3", "a4", "a5", "a6"]})
    store.put(NS, "x", {"notes": ["a10"]})
    store.put(NS, "y", {"notes": ["a20"]})
    store.put(NS, "z", {"notes": ["a30"]})
    assert hits(store, limit=3) == approx([("hog", cos(1)), ("x", cos(10)), ("y", cos(20))])
    page = store.search(NS, query="q", limit=2, offset=1)
    assert [r.key for r in page] == ["x", "y"]
