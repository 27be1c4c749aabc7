"""setup(): create or retrofit the vector index, wait until usable, refuse mismatches."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.testing import LexicalEmbeddings, mock_aws

from tests.support import RequestCounter

NS = ("memories", "t", "u")


def semantic(dims: int = 16, **extra: Any) -> DynamoDBStore:
    index: dict[str, Any] = {
        "dims": dims,
        "embed": LexicalEmbeddings(dims=dims),
        "fields": ["text"],
    }
    index.update(extra)
    return DynamoDBStore("memory", region_name="us-east-1", index=index)  # type: ignore[arg-type]


def _index(store: DynamoDBStore) -> dict[str, Any]:
    table = store.client.describe_table(TableName="memory")["Table"]
    (index,) = table["VectorIndexes"]
    return dict(index)


def test_new_table_gets_the_index_inline_and_setup_waits_until_searchable() -> None:
    with mock_aws(index_creation_delay=0.3, search_lag=0.3):
        store = semantic()
        store.setup()
        index = _index(store)
        assert index["IndexStatus"] == "ACTIVE" and not index.get("Backfilling")
        assert index["SearchSchema"] == [{"AttributeName": "PK", "SearchSchemaElementType": "HASH"}]
        assert index["Dimensions"] == 16 and index["DistanceFunction"] == "COSINE"
        assert index["Projection"] == {"ProjectionType": "ALL"}
        table = store.client.describe_table(TableName="memory")["Table"]
        assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
        assert table["StreamSpecification"]["StreamViewType"] == "NEW_IMAGE"
        store.put(NS, "k", {"text": "ready right away"})
        assert [r.key for r in store.search(NS, query="ready right away")] == ["k"]


def test_setup_is_idempotent_and_creates_nothing_twice() -> None:
    with mock_aws():
        store = semantic()
        store.setup()
        requests = RequestCounter(store.client)
        store.setup()
        assert "CreateTable" not in requests.calls and "UpdateTable" not in requests.calls
        assert "UpdateTimeToLive" not in requests.calls


def test_concurrent_setup_from_several_processes() -> None:
    with mock_aws(index_creation_delay=0.2):
        errors: list[BaseException] = []

        def run() -> None:
            try:
                semantic().setup()
            except BaseException as error:  # pragma: no cover - reported below
                errors.append(error)

        threads = [threading.Thread(target=run) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert _index(semantic())["IndexStatus"] == "ACTIVE"


def test_retrofit_onto_an_existing_table_waits_through_backfill() -> None:
    with mock_aws(backfill_delay=0.5, search_lag=0.2):
        plain = DynamoDBStore("memory", region_name="us-east-1")
        plain.setup()
        plain.put(NS, "old", {"text": "written before the index existed"})
        store = semantic()
        requests = RequestCounter(store.client)
        store.setup()
        assert requests.calls["UpdateTable"] == 1
        index = _index(store)
        assert index["IndexStatus"] == "ACTIVE" and not index.get("Backfilling")
        # Items written before the index have no vector: stored, listed, not semantic hits
        # until they are written again (or re-embedded by the backfill tool).
        assert [r.key for r in store.search(NS)] == ["old"]
        assert store.search(NS, query="written before the index existed") == []
        old = store.get(NS, "old")
        assert old is not None
        store.put(NS, "old", old.value)
        assert [r.key for r in store.search(NS, query="written before the index existed")] == [
            "old"
        ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"dims": 32}, r"Dimensions 16 but index\['dims'\] needs 32"),
        (
            {"distance_function": "EUCLIDEAN"},
            r"DistanceFunction 'COSINE' but index\['distance_function'\] needs 'EUCLIDEAN'",
        ),
    ],
)
def test_an_incompatible_existing_index_is_refused(change: dict[str, Any], message: str) -> None:
    with mock_aws():
        semantic().setup()
        dims = change.pop("dims", 16)
        with pytest.raises(ValueError, match=message) as raised:
            semantic(dims, **change).setup()
        assert "immutable" in str(raised.value) and "index_name" in str(raised.value)


def test_a_new_index_name_adds_a_second_index() -> None:
    with mock_aws():
        semantic().setup()
        store = semantic(32, index_name="vectors-v2")
        store.setup()
        table = store.client.describe_table(TableName="memory")["Table"]
        assert sorted(i["IndexName"] for i in table["VectorIndexes"]) == [
            "memory-vectors",
            "vectors-v2",
        ]


def test_setup_times_out_with_a_clear_message() -> None:
    with (
        mock_aws(index_creation_delay=30),
        pytest.raises(TimeoutError, match="call setup\\(\\) again"),
    ):
        semantic().setup(timeout=0.5)


@pytest.mark.parametrize(
    ("index", "message"),
    [
        ({"embed": LexicalEmbeddings(dims=4)}, r"index\['dims'\]"),
        ({"dims": 0, "embed": LexicalEmbeddings(dims=4)}, r"index\['dims'\]"),
        ({"dims": 5000, "embed": LexicalEmbeddings(dims=4)}, "4096"),
        ({"dims": 4}, r"index\['embed'\] is required"),
        ({"dims": 4, "embed": LexicalEmbeddings(dims=4), "distance_function": "L1"}, "COSINE"),
        ({"dims": 4, "embed": LexicalEmbeddings(dims=4), "fields": "text"}, "list of JSON paths"),
        ({"dims": 4, "embed": LexicalEmbeddings(dims=4), "embed_on": "later"}, "embed_on"),
        ({"dims": 4, "embed": LexicalEmbeddings(dims=4), "typo": 1}, "Unknown index setting"),
    ],
)
def test_invalid_index_config_fails_at_construction(index: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        DynamoDBStore("memory", region_name="us-east-1", index=index)  # type: ignore[arg-type]


def test_adding_filter_fields_to_an_existing_index_is_refused() -> None:
    with mock_aws():
        semantic().setup()
        with pytest.raises(ValueError, match=r"SearchSchema .* index\['filter_fields'\]"):
            semantic(filter_fields=["kind"]).setup()
