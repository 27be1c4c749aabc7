"""Semantic search on the emulated vector index: scope, scores, embedding rules, setup."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from langchain_aws import BedrockEmbeddings
from langgraph.store.base import PutOp
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.testing import (
    LexicalEmbeddings,
    expire_ttl_items,
    local_endpoint,
    mock_aws,
)

from tests.support import RequestCounter

DIMS = 64
NS = ("memories", "acme-corp", "user-8812")
MEMORIES = {
    "mem-1": {
        "text": "Account runs a proxy that closes idle sockets after 60 seconds",
        "source": "ticket-4471",
    },
    "mem-2": {
        "text": "Customer prefers email, asked not to be called by phone",
        "source": "ticket-4471",
    },
    "mem-3": {
        "text": "Uses a custom build of the SDK pinned to version 2.14",
        "source": "ticket-4502",
    },
}


def make_store(**index: Any) -> DynamoDBStore:
    config: dict[str, Any] = {
        "dims": DIMS,
        "embed": LexicalEmbeddings(dims=DIMS),
        "fields": ["text"],
    }
    config.update(index)
    store = DynamoDBStore("memory", region_name="us-east-1", index=config)  # type: ignore[arg-type]
    store.setup()
    return store


@pytest.fixture
def store() -> Iterator[DynamoDBStore]:
    with mock_aws():
        yield make_store()


def test_worked_example_ranks_the_right_memory_first_with_bedrock_embeddings() -> None:
    with mock_aws():
        embed = BedrockEmbeddings(model_id="amazon.titan-embed-text-v2:0", region_name="us-east-1")
        store = DynamoDBStore("memory", index={"dims": 1024, "embed": embed, "fields": ["text"]})
        store.setup()
        for key, value in MEMORIES.items():
            store.put(NS, key, value)
        results = store.search(NS, query="connection drops after a minute of inactivity", limit=3)
        assert results[0].key == "mem-1"
        scores = [r.score for r in results]
        assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]
        assert results[0].value == MEMORIES["mem-1"]


def test_semantic_results_never_cross_tenants(store: DynamoDBStore) -> None:
    store.put(("memories", "acme", "u1"), "a", {"text": "shared secret phrase"})
    store.put(("memories", "globex", "u1"), "b", {"text": "shared secret phrase"})
    store.put(("memories", "acmex", "u1"), "c", {"text": "shared secret phrase"})
    found = store.search(("memories", "acme"), query="shared secret phrase", limit=10)
    assert [(r.namespace, r.key) for r in found] == [(("memories", "acme", "u1"), "a")]
    one = store.search(("memories", "globex", "u1"), query="shared secret phrase")
    assert [r.key for r in one] == ["b"]


def test_prefix_fans_out_and_merges_by_score(store: DynamoDBStore) -> None:
    docs = {
        (("m", "t1", "u1"), "exact"): "blue whale migration",
        (("m", "t1", "u2"), "close"): "blue whale",
        (("m", "t2", "u1"), "far"): "red kangaroo",
        (("m",), "top"): "whale migration",
        (("mx",), "outside"): "blue whale migration",
    }
    for (ns, key), text in docs.items():
        store.put(ns, key, {"text": text})
    embed = LexicalEmbeddings(dims=DIMS)
    q = np.array(embed.embed_query("blue whale migration"))
    expected = sorted(
        (
            (
                float(q @ (v := np.array(embed.embed_query(text))))
                / np.linalg.norm(q)
                / np.linalg.norm(v),
                key,
            )
            for (ns, key), text in docs.items()
            if ns[0] == "m"
        ),
        reverse=True,
    )
    found = store.search(("m",), query="blue whale migration", limit=4)
    assert [r.key for r in found] == [key for _, key in expected]
    for r, (score, _) in zip(found, expected, strict=True):
        assert r.score == pytest.approx(score, abs=1e-5)
    page = store.search(("m",), query="blue whale migration", limit=2, offset=1)
    assert [r.key for r in page] == [r.key for r in found[1:3]]


def test_fanout_cap_is_a_clear_error() -> None:
    with mock_aws():
        store = make_store(max_fanout=3)
        store.batch([PutOp(("cap", f"u{i}"), "k", {"text": "x"}) for i in range(4)])
        with pytest.raises(
            ValueError, match="covers 4 namespaces, more than index\\['max_fanout'\\]=3"
        ):
            store.search(("cap",), query="x")
        assert len(store.search(("cap", "u1"), query="x")) == 1


def test_update_re_embeds_and_delete_drops(store: DynamoDBStore) -> None:
    store.put(NS, "k", {"text": "apples and pears"})
    assert store.search(NS, query="apples and pears")[0].score == pytest.approx(1.0, abs=1e-5)
    store.put(NS, "k", {"text": "submarine sandwiches"})
    hit = store.search(NS, query="submarine sandwiches")[0]
    assert hit.value == {"text": "submarine sandwiches"} and hit.score == pytest.approx(
        1.0, abs=1e-5
    )
    store.delete(NS, "k")
    assert store.search(NS, query="submarine sandwiches") == []


def test_each_path_is_its_own_vector_and_the_best_one_scores(store: DynamoDBStore) -> None:
    value = {"text": "quarterly revenue report", "notes": ["zebra crossing", "kiwi smoothie"]}
    store.put(NS, "multi", value, index=["text", "notes[*]"])
    store.put(NS, "other", {"text": "kiwi"})
    found = store.search(NS, query="kiwi smoothie", limit=5)
    assert found[0].key == "multi" and found[0].score == pytest.approx(1.0, abs=1e-5)
    assert [r.key for r in found].count("multi") == 1  # de-duplicated per item
    assert found[0].value == value
    # Fewer paths on overwrite: the old extra vectors are gone.
    store.put(
        NS, "multi", {"text": "quarterly revenue report", "notes": []}, index=["text", "notes[*]"]
    )
    found = store.search(NS, query="kiwi smoothie", limit=5)
    assert found[0].key == "other"
    assert store.search(NS, query="quarterly revenue report")[0].key == "multi"


def test_override_is_remembered_and_index_false_stores_without_vector(
    store: DynamoDBStore,
) -> None:
    store.put(NS, "a", {"text": "alpha", "title": "omega"}, index=["title"])
    raw = store.client.get_item(
        TableName="memory", Key={"PK": {"S": ".".join(NS)}, "SK": {"S": "k#a"}}
    )["Item"]
    assert raw["index_paths"] == {"L": [{"S": "title"}]}
    assert store.search(NS, query="omega")[0].key == "a"
    store.put(NS, "a", {"text": "alpha"}, index=False)
    assert store.search(NS, query="alpha") == []
    item = store.get(NS, "a")
    assert item is not None and item.value == {"text": "alpha"}
    assert [r.key for r in store.search(NS)] == ["a"]  # still found without a query


def test_value_without_text_is_stored_warned_and_absent(
    store: DynamoDBStore, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        store.put(NS, "empty", {"other": "no text field"})
    assert "no text at ['text']" in caplog.text
    assert store.get(NS, "empty") is not None
    assert store.search(NS, query="no text field") == []


def test_dims_mismatch_names_both_numbers() -> None:
    with mock_aws():
        store = DynamoDBStore(
            "memory",
            region_name="us-east-1",
            index={"dims": 32, "embed": LexicalEmbeddings(dims=48), "fields": ["text"]},
        )
        with pytest.raises(ValueError, match=r"returned 48 dimensions but index\['dims'\] is 32"):
            store.put(NS, "k", {"text": "hello"})


def test_non_finite_embeddings_are_rejected() -> None:
    with mock_aws():
        store = make_store(embed=lambda texts: [[float("nan")] * DIMS for _ in texts])
        with pytest.raises(ValueError, match="non-finite"):
            store.put(NS, "k", {"text": "hello"})
        assert store.get(NS, "k") is None


def test_page_cap(store: DynamoDBStore) -> None:
    with pytest.raises(ValueError, match="top 100 matches: limit \\+ offset is 101"):
        store.search(NS, query="x", limit=91, offset=10)
    store.batch([PutOp(NS, f"k{i:03d}", {"text": f"x {i}"}) for i in range(101)])
    page = store.search(NS, query="x", limit=90, offset=10)
    assert len(page) == 90  # the whole top 100 is reachable
    first = store.search(NS, query="x", limit=10)
    assert not {r.key for r in page} & {r.key for r in first}


def test_filters_apply_to_semantic_results(store: DynamoDBStore) -> None:
    for i in range(30):
        store.put(NS, f"k{i}", {"text": f"note number {i}", "i": i, "even": i % 2 == 0})
    found = store.search(NS, query="note number", filter={"even": True, "i": {"$gte": 10}}, limit=5)
    assert len(found) == 5
    assert all(r.value["even"] and r.value["i"] >= 10 for r in found)


@pytest.mark.parametrize("distance", ["COSINE", "EUCLIDEAN", "DOT_PRODUCT"])
def test_scores_follow_langgraph_for_every_distance_function(distance: str) -> None:
    vectors = {
        "a": [1.0, 0.0, 0.0, 0.0],
        "b": [0.6, 0.8, 0.0, 0.0],
        "c": [10.0, 0.0, 0.0, 0.0],
        "d": [-1.0, 0.5, 0.25, 0.0],
    }
    texts = {"a": "a", "b": "b", "c": "c", "d": "d"}
    query = [0.5, 0.5, 0.5, 0.5]

    def embed(batch: list[str]) -> list[list[float]]:
        return [query if text == "q" else vectors[text] for text in batch]

    with mock_aws():
        store = make_store(dims=4, embed=embed, distance_function=distance)
        for key, text in texts.items():
            store.put(NS, key, {"text": text})
        found = store.search(NS, query="q", limit=4)
    q = np.array(query, dtype=np.float32)
    expected = {}
    for key, vector in vectors.items():
        v = np.array(vector, dtype=np.float32)
        if distance == "COSINE":
            expected[key] = float(q @ v / (np.linalg.norm(q) * np.linalg.norm(v)))
        elif distance == "EUCLIDEAN":
            expected[key] = 1 / (1 + float(np.linalg.norm(q - v)))
        else:
            expected[key] = float(q @ v)
    assert [r.key for r in found] == sorted(expected, key=lambda k: -expected[k])
    for r in found:
        assert r.score == pytest.approx(expected[r.key], abs=1e-5)


def test_request_counts(store: DynamoDBStore) -> None:
    requests = RequestCounter(store.client)
    store.put(NS, "k", {"text": "hello world"})
    # A namespace new to the table: the registry row's refresh fails (it is not there
    # yet), then its group and its row are written, then the item.
    assert dict(requests.calls) == {"UpdateItem": 4}
    other = make_store()
    later = RequestCounter(other.client)
    other.put(NS, "k3", {"text": "hello again"})
    assert dict(later.calls) == {"UpdateItem": 2}  # registry refresh once per process, then item
    requests.reset()
    store.put(NS, "k2", {"text": "hello there"})
    assert dict(requests.calls) == {"UpdateItem": 1}
    requests.reset()
    store.search(NS, query="hello")
    assert dict(requests.calls) == {"Query": 1, "SearchVectors": 1}
    store.batch([PutOp(("m", f"u{i}"), "k", {"text": "hello"}) for i in range(5)])
    requests.reset()
    assert len(store.search(("m",), query="hello", limit=10)) == 5
    # ("m",) is shorter than a registry group: its groups, then each group's namespaces
    assert dict(requests.calls) == {"Query": 1 + 5, "SearchVectors": 5}


async def test_async_semantic_search(store: DynamoDBStore) -> None:
    await store.aput(NS, "k", {"text": "async memory"})
    found = await store.asearch(NS, query="async memory")
    assert [r.key for r in found] == ["k"]
    assert found == store.search(NS, query="async memory")


async def test_async_only_embedder_works_through_the_async_api() -> None:
    lexical = LexicalEmbeddings(dims=DIMS)
    calls: list[int] = []

    async def embed(texts: list[str]) -> list[list[float]]:
        calls.append(len(texts))
        return lexical.embed_documents(texts)

    with mock_aws():
        store = make_store(embed=embed)
        await store.abatch([PutOp(NS, f"k{i}", {"text": f"async note {i}"}) for i in range(3)])
        assert calls == [3]  # one embedding call for the whole batch
        found = await store.asearch(NS, query="async note 2", limit=1)
        assert [r.key for r in found] == ["k2"]
        with pytest.raises(ValueError, match="async function"):
            store.put(NS, "sync", {"text": "needs a sync embedder"})


@pytest.mark.parametrize("pushed", [True, False])
def test_filter_fields_run_inside_the_index_before_its_top_100(pushed: bool) -> None:
    with mock_aws():
        store = make_store(filter_fields=["category"] if pushed else [])
        ops = [
            PutOp(NS, f"noise{i}", {"text": f"red apple pie {i}", "category": "noise"})
            for i in range(140)
        ]
        ops += [
            PutOp(NS, f"signal{i}", {"text": f"apple {i}", "category": "signal"}) for i in range(10)
        ]
        store.batch(ops)
        found = store.search(NS, query="red apple pie", filter={"category": "signal"}, limit=10)
        assert all(r.value["category"] == "signal" for r in found)
        if pushed:
            assert sorted(r.key for r in found) == sorted(f"signal{i}" for i in range(10))
        else:
            # Documented limit: value filters apply to the index's top 100 per namespace, and
            # all 100 nearest here are noise.
            assert found == []


def test_filter_fields_reach_every_vector_of_an_item() -> None:
    with mock_aws():
        store = make_store(filter_fields=["kind"])
        store.put(
            NS,
            "a",
            {"text": "zzz", "notes": ["kiwi smoothie"], "kind": "x"},
            index=["text", "notes[*]"],
        )
        store.put(NS, "b", {"text": "kiwi smoothie", "kind": "y"})
        found = store.search(NS, query="kiwi smoothie", filter={"kind": {"$eq": "x"}})
        assert [r.key for r in found] == ["a"]
        assert found[0].score == pytest.approx(1.0, abs=1e-5)


def test_the_store_works_against_the_local_endpoint() -> None:
    with local_endpoint() as url:
        embed = BedrockEmbeddings(
            model_id="amazon.titan-embed-text-v2:0", region_name="us-east-1", endpoint_url=url
        )
        store = DynamoDBStore(
            "memory",
            region_name="us-east-1",
            endpoint_url=url,
            index={"dims": 1024, "embed": embed, "fields": ["text"]},
        )
        store.setup()
        for key, value in MEMORIES.items():
            store.put(NS, key, value)
        found = store.search(NS, query="connection drops after a minute of inactivity", limit=3)
        assert [r.key for r in found][:1] == ["mem-1"]
        assert store.list_namespaces() == [NS]


def _vector_rows(store: DynamoDBStore) -> list[str]:
    response = store.client.query(
        TableName="memory",
        KeyConditionExpression="PK = :pk AND begins_with(SK, :v)",
        ExpressionAttributeValues={":pk": {"S": ".".join(NS)}, ":v": {"S": "v#"}},
    )
    return [item["SK"]["S"] for item in response["Items"]]


def test_delete_removes_an_items_extra_vector_rows(store: DynamoDBStore) -> None:
    store.put(NS, "multi", {"notes": ["one fish", "two fish", "red fish"]}, index=["notes[*]"])
    rows = sorted(_vector_rows(store))
    assert [row.rsplit("#", 1)[1] for row in rows] == ["1", "2"]
    assert all(row.startswith("v#multi#") for row in rows)
    store.delete(NS, "multi")
    assert _vector_rows(store) == []
    store.batch(
        [
            PutOp(NS, "a", {"notes": ["x", "y"]}, index=["notes[*]"]),
            PutOp(NS, "b", {"notes": ["z", "w"]}, index=["notes[*]"]),
        ]
    )
    store.batch([PutOp(NS, "a", None), PutOp(NS, "b", None)])
    assert _vector_rows(store) == []


def test_extra_vector_rows_expire_with_their_item() -> None:
    with mock_aws():
        store = make_store()
        store.put(NS, "multi", {"notes": ["blue fish", "green fish"]}, index=["notes[*]"], ttl=1)
        assert len(_vector_rows(store)) == 1
        expire_ttl_items("memory", now=time.time() + 120)  # DynamoDB's sweep
        assert _vector_rows(store) == []
        assert store.search(NS, query="green fish") == []


def test_orphaned_vector_rows_are_collected_on_search_once_old() -> None:
    with mock_aws():
        store = make_store()
        store.put(NS, "multi", {"notes": ["blue fish", "green fish"]}, index=["notes[*]"])
        (row,) = _vector_rows(store)
        # The item row is lost without its cleanup (e.g. a failed write left the row).
        store.client.delete_item(
            TableName="memory", Key={"PK": {"S": ".".join(NS)}, "SK": {"S": "k#multi"}}
        )
        assert store.search(NS, query="green fish") == []
        assert _vector_rows(store) == [row]  # young: may belong to a write in flight
        store.client.update_item(
            TableName="memory",
            Key={"PK": {"S": ".".join(NS)}, "SK": {"S": row}},
            UpdateExpression="SET written_at = :old",
            ExpressionAttributeValues={":old": {"N": str(int(time.time()) - 1000)}},
        )
        assert store.search(NS, query="green fish") == []
        assert _vector_rows(store) == []


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_namespaces_are_looked_up_while_the_query_is_embedded(mode: str) -> None:
    registry_queried = threading.Event()
    lexical = LexicalEmbeddings(dims=DIMS)

    class SlowEmbeddings(LexicalEmbeddings):
        def embed_query(self, text: str) -> list[float]:
            # Only returns at once if the registry Query runs concurrently with embedding.
            overlapped = registry_queried.wait(timeout=5)
            assert overlapped, "the registry lookup waited for the embedding"
            return lexical.embed_query(text)

        async def aembed_query(self, text: str) -> list[float]:
            return await asyncio.to_thread(self.embed_query, text)

    with mock_aws():
        store = make_store(embed=SlowEmbeddings(dims=DIMS))
        store.put(NS, "k", {"text": "overlap"})
        store.client.meta.events.register(
            "before-call.dynamodb.Query", lambda **_: registry_queried.set()
        )
        if mode == "sync":
            found = store.search(NS, query="overlap")
        else:
            found = await store.asearch(NS, query="overlap")
        assert [r.key for r in found] == ["k"]
