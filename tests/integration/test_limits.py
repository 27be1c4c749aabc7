"""DynamoDB's documented limits, enforced by the store before any request; key-value reads
that cost what they return.

The sizes are literals from DynamoDB's documentation, not the library's constants, so a
wrong constant fails here: a partition key holds at most 2048 bytes, a sort key 1024
bytes, an item 400 KB (409,600 bytes), all counted in UTF-8. A namespace is also the sort
key of its registry row, with one terminating byte, so it may encode to 1023 bytes; an
item key is stored behind the 2-byte prefix `k#`, so it may hold 1022 bytes. (The recency
index's copy of an item counts against the item's 400 KB too.)
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from langgraph.store.base import InvalidNamespaceError, PutOp
from langgraph.store.dynamodb import DynamoDBStore

from tests.support import RequestCounter

AT_THE_LIMIT = [
    ("x" * 1023,),
    ("a" * 511, "b" * 511),  # 511 + 1 separator + 511
    ("日" * 341,),  # 3 bytes each
]
ONE_BYTE_OVER = [
    ("x" * 1024,),
    ("a" * 512, "b" * 511),
    ("日" * 341 + "x",),
]


def test_namespaces_of_1023_bytes_are_stored(kv_store: DynamoDBStore) -> None:
    for ns in AT_THE_LIMIT:
        kv_store.put(ns, "k", {"v": 1})
        item = kv_store.get(ns, "k")
        assert item is not None and item.namespace == ns
        assert [r.key for r in kv_store.search(ns)] == ["k"]
    assert sorted(kv_store.list_namespaces()) == sorted(AT_THE_LIMIT)


def test_namespaces_one_byte_over_are_rejected_before_any_request(
    kv_store: DynamoDBStore, requests: RequestCounter
) -> None:
    for ns in ONE_BYTE_OVER:
        with pytest.raises(InvalidNamespaceError, match="encodes to 1024 bytes; the limit is 1023"):
            kv_store.put(ns, "k", {"v": 1})
        with pytest.raises(InvalidNamespaceError, match="encodes to 1024 bytes"):
            kv_store.batch([PutOp(("fine",), "k", {"v": 1}), PutOp(ns, "k", {"v": 1})])
    assert requests.total == 0


def test_item_keys_up_to_1022_bytes_are_stored(
    kv_store: DynamoDBStore, requests: RequestCounter
) -> None:
    kv_store.put(("a",), "日" * 340 + "xy", {"v": 1})  # 1022 bytes
    assert [r.key for r in kv_store.search(("a",))] == ["日" * 340 + "xy"]
    requests.reset()
    with pytest.raises(ValueError, match="Item key is 1023 bytes; the limit is 1022"):
        kv_store.put(("a",), "日" * 341, {"v": 1})
    assert requests.total == 0


def test_item_size_counts_utf8_bytes_not_characters(
    kv_store: DynamoDBStore, requests: RequestCounter
) -> None:
    value = {"text": "日" * 140_000}  # 140,000 characters, 420,000 bytes
    requests.reset()
    with pytest.raises(
        ValueError, match=r"is \d+ bytes; DynamoDB's item size limit is 409600 "
    ) as e:
        kv_store.put(("a",), "big", value)
    assert requests.total == 0
    counted = re.search(r"is (\d+) bytes", str(e.value))
    assert counted is not None and int(counted.group(1)) > 420_000
    assert kv_store.get(("a",), "big") is None


def _items_read(store: DynamoDBStore) -> list[int]:
    """`ScannedCount` of every Query on an item partition (not the registry's), as
    DynamoDB reports it to botocore."""
    counts: list[int] = []

    def before(params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        context["partition"] = params["ExpressionAttributeValues"][":pk"]["S"]

    def after(parsed: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        if not context["partition"].startswith("."):
            counts.append(parsed["ScannedCount"])

    store.client.meta.events.register("before-parameter-build.dynamodb.Query", before)
    store.client.meta.events.register("after-call.dynamodb.Query", after)
    return counts


def test_a_small_page_reads_a_few_items_not_the_namespace(kv_store: DynamoDBStore) -> None:
    kv_store.batch([PutOp(("big",), f"k{i:02d}", {"i": i}) for i in range(50)])
    read = _items_read(kv_store)
    assert len(kv_store.search(("big",), limit=2)) == 2
    assert 2 <= sum(read) <= 4
    read.clear()
    assert len(kv_store.search(("big",), limit=2, offset=3)) == 2
    assert 5 <= sum(read) <= 7


def test_a_small_page_under_a_prefix_reads_a_few_items_per_namespace(
    kv_store: DynamoDBStore,
) -> None:
    kv_store.batch(
        [PutOp(("t", f"u{n}"), f"k{i:02d}", {"i": i}) for n in range(5) for i in range(50)]
    )
    read = _items_read(kv_store)
    assert len(kv_store.search(("t",), limit=2)) == 2
    assert sum(read) <= 5 * 2  # at most one page of `limit` per namespace, of 250 items
