"""Defects found by the adversarial trial (issue 8): each test failed before its fix."""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from typing import Any

import pytest
from botocore.exceptions import ClientError
from langgraph.store.base import GetOp, ListNamespacesOp, PutOp, SearchOp
from langgraph.store.dynamodb import AccessDeniedError, DynamoDBStore
from langgraph.store.dynamodb.stream.consumer import StreamConsumer, filter_criteria
from langgraph.store.dynamodb.table.keys import MAX_SORT_KEY_BYTES
from langgraph.store.dynamodb.table.values import MAX_DEPTH, MAX_ITEM_BYTES
from langgraph.store.dynamodb.testing import LexicalEmbeddings, drain_stream, expire_ttl_items

from tests.fault.layer import fail_requests
from tests.hardening.conftest import DIMS, TABLE, make_store
from tests.hardening.invariants import check_vectors, rows_of

NS = ("memories", "acme", "u1")


def _written(store: DynamoDBStore) -> list[dict[str, Any]]:
    """Every row but `setup()`'s own (the model pin)."""
    return [row for row in rows_of(store.client, TABLE) if row["PK"] != "._meta"]


# 1. A key that fits the item row but not the extra vector rows


def test_a_multi_vector_key_too_long_for_its_vector_rows_writes_nothing(
    store: DynamoDBStore,
) -> None:
    key = "k" * (MAX_SORT_KEY_BYTES - 4)  # k#<key> fits in 1024 bytes
    with pytest.raises(ValueError, match=r"vector rows.*bytes.*shorter key"):
        store.put(NS, key, {"notes": ["one fish", "two fish"]})
    assert _written(store) == []
    store.put(NS, key, {"text": "a single vector needs no extra row"})
    assert store.get(NS, key) is not None


# 2. The filter-field copies count toward the item size


@pytest.mark.parametrize("index", [False, None])
def test_filter_field_copies_are_size_checked_before_any_write(emulated: None, index: Any) -> None:
    store = make_store(filter_fields=["tag"])
    store.setup()
    big = {"tag": "t" * (MAX_ITEM_BYTES // 2 + 10)}  # no text at `text`/`notes`: no vector
    with pytest.raises(ValueError, match="item size limit"):
        store.batch([PutOp(NS, "small", {"text": "hello"}), PutOp(NS, "big", big, index=index)])
    assert _written(store) == []


# 3. TTL magnitudes and types


@pytest.mark.parametrize("ttl", [float("inf"), float("nan"), True, 1e300, 10**40, -1, 0, "5"])
def test_bad_ttl_is_rejected_before_any_write(kv: DynamoDBStore, ttl: Any) -> None:
    ops = [PutOp(("a",), f"k{i}", {"v": i}) for i in range(29)]
    ops.append(PutOp(("a",), "last", {"v": 1}, ttl=ttl))
    with pytest.raises(ValueError, match="ttl"):
        kv.batch(ops)
    assert _written(kv) == []


def test_bad_default_ttl_is_rejected_at_construction() -> None:
    with pytest.raises(ValueError, match="default_ttl"):
        DynamoDBStore(TABLE, region_name="us-east-1", ttl={"default_ttl": float("inf")})


# 4. A failed batch keeps the registry exact


def test_a_batch_whose_put_chunk_fails_still_forgets_the_namespaces_it_emptied(
    kv: DynamoDBStore,
) -> None:
    kv.put(("gone",), "only", {"v": 1})
    failing = DynamoDBStore(TABLE, region_name="us-east-1")

    def puts_fail_late(op: str, body: dict[str, Any]) -> bool:
        if op == "BatchWriteItem" and any("PutRequest" in r for r in body["RequestItems"][TABLE]):
            time.sleep(0.5)  # the concurrent delete chunk is applied first
            return True
        return False

    fail_requests(failing.client, "AccessDeniedException", when=puts_fail_late)
    ops: list[PutOp] = [PutOp(("kept",), f"k{i}", {"v": i}) for i in range(25)]
    ops.append(PutOp(("gone",), "only", None))
    with pytest.raises(AccessDeniedError, match="AWS denied BatchWriteItem"):
        failing.batch(ops)
    assert kv.get(("gone",), "only") is None  # the delete chunk went through
    assert kv.list_namespaces() == []


def test_a_failed_vector_cleanup_still_forgets_the_namespaces_emptied(
    store: DynamoDBStore,
) -> None:
    store.put(("gone",), "multi", {"notes": ["one fish", "two fish"]})
    failing = make_store()
    answered = fail_requests(
        failing.client,
        "AccessDeniedException",
        when=lambda op, body: (
            op == "BatchWriteItem"
            and all(
                r["DeleteRequest"]["Key"]["SK"]["S"].startswith("v#")
                for r in body["RequestItems"][TABLE]
            )
        ),
    )
    failing.batch([PutOp(("gone",), "multi", None), PutOp(("other",), "x", None)])
    assert answered == ["BatchWriteItem"]
    assert store.get(("gone",), "multi") is None
    assert store.list_namespaces() == []


# 5. Two writers of one multi-vector item


FIELDS = ["text", "notes[*]"]


def _v1(at: int) -> dict[str, Any]:
    return {"notes": [f"alpha{at} apple", f"alpha{at} apricot", f"alpha{at} avocado"]}


def _v2(at: int) -> dict[str, Any]:
    return {"notes": [f"beta{at} banana", f"beta{at} blueberry"]}


def _vector_report(store: DynamoDBStore) -> Any:
    return check_vectors(store.client, TABLE, LexicalEmbeddings(dims=DIMS), FIELDS)


def _run_interleaved(first: DynamoDBStore, second: DynamoDBStore, key: str, at: int) -> bool:
    """`first` puts `_v1`; just before its request number `at`, `second` puts `_v2` in full.
    Returns whether the pause point was reached."""
    calls = {"n": 0, "reached": False}

    def before_call(**_: Any) -> None:
        if calls["n"] == at and not calls["reached"]:
            calls["reached"] = True
            second.put(NS, key, _v2(at))
        calls["n"] += 1

    first.client.meta.events.register("before-call.dynamodb", before_call)
    try:
        first.put(NS, key, _v1(at))
    finally:
        first.client.meta.events.unregister("before-call.dynamodb", before_call)
    return calls["reached"]


@pytest.mark.parametrize("existing", [None, {"notes": ["gamma grape", "gamma guava", "gamma g"]}])
def test_two_writers_of_a_multi_vector_item_end_consistent_in_every_interleaving(
    emulated: None, existing: Any
) -> None:
    first, second = make_store(), make_store()
    first.setup()
    at = 0
    while True:
        key = f"item-{at}"
        if existing is not None:
            second.put(NS, key, existing)
        if not _run_interleaved(first, second, key, at):
            break
        report = _vector_report(first)
        assert (report.missing, report.stale) == ([], []), f"paused before request {at}"
        final = first.get(NS, key)
        assert final is not None and final.value in (_v1(at), _v2(at))
        for text in final.value["notes"]:
            hits = first.search(NS, query=text, limit=1)
            assert [h.key for h in hits] == [key], (at, text)
        at += 1
    assert at >= 2 + (existing is not None)  # each request of the put was a pause point


def test_concurrent_writers_of_one_multi_vector_item_end_consistent(emulated: None) -> None:
    stores = [make_store() for _ in range(4)]
    stores[0].setup()
    values = [
        {"notes": [f"writer{w} round{r} note{n}" for n in range(1 + (w + r) % 3)]}
        for w in range(4)
        for r in range(12)
    ]

    def hammer(w: int) -> None:
        for r in range(12):
            stores[w].put(NS, "shared", values[w * 12 + r])
            if r % 5 == 4:
                stores[w].delete(NS, "shared")

    threads = [threading.Thread(target=hammer, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    report = _vector_report(stores[0])
    assert report.checked <= 1
    assert (report.missing, report.stale) == ([], [])


# 6. Namespaces emptied by the TTL sweep


def test_namespaces_emptied_by_the_ttl_sweep_do_not_count_against_max_fanout(
    emulated: None,
) -> None:
    store = make_store(max_fanout=5)
    store.setup()
    for tenant in range(30):
        store.put(("memories", f"swept-{tenant}"), "m", {"text": "short lived"}, ttl=1)
    store.put(("memories", "live"), "m", {"text": "long lived memory"})
    expire_ttl_items(TABLE, now=time.time() + 120)
    hits = store.search(("memories",), query="long lived memory")
    assert [h.namespace for h in hits] == [("memories", "live")]
    assert store.list_namespaces() == [("memories", "live")]
    registry = [r for r in _written(store) if r["PK"].startswith("._ns.")]
    swept = [r for r in registry if "swept" in r["SK"]]
    assert len(swept) == 30 and all("emptied_at" in r for r in swept)


def test_the_stream_consumer_forgets_namespaces_emptied_by_the_ttl_sweep(
    store: DynamoDBStore,
) -> None:
    swept, kept = NS, (*NS[:2], "u2")
    store.put(swept, "a", {"text": "short lived"}, ttl=1)
    store.put(swept, "b", {"notes": ["short", "lived"]}, ttl=1)
    store.put(kept, "a", {"text": "short lived"}, ttl=1)
    store.put(kept, "stays", {"text": "long lived"})
    store.put(NS, "gone", {"text": "deleted by a user"})
    store.delete(NS, "gone")  # a user's REMOVE: the store marks it itself, no invocation
    expire_ttl_items(TABLE, now=time.time() + 120)

    def registry() -> dict[str, dict[str, Any]]:
        return {r["SK"]: r for r in _written(store) if r["PK"].startswith("._ns.")}

    assert not any("emptied_at" in row for row in registry().values())
    consumer = StreamConsumer(TABLE, client=store.client, embeddings=LexicalEmbeddings(DIMS))
    delivered: list[dict[str, Any]] = []

    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        delivered.extend(event["Records"])
        return consumer.handle(event, context)

    report = drain_stream(TABLE, handler, filter_patterns=filter_criteria())
    assert report.ok and report.errors == []
    # Only the sweep's deletions of item rows reach the consumer (three of them).
    keys = sorted(
        (r["dynamodb"]["Keys"]["PK"]["S"], r["dynamodb"]["Keys"]["SK"]["S"]) for r in delivered
    )
    assert keys == sorted(
        [(".".join(swept), "k#a"), (".".join(swept), "k#b"), (".".join(kept), "k#a")]
    )
    rows = registry()
    assert "emptied_at" in rows[".".join(swept) + "."]
    assert "emptied_at" not in rows[".".join(kept) + "."]
    assert store.list_namespaces() == [kept]


def test_a_failed_check_of_a_swept_namespace_fails_its_record_for_lambda_to_retry(
    store: DynamoDBStore,
) -> None:
    store.put(NS, "a", {"text": "short lived"}, ttl=1)
    expire_ttl_items(TABLE, now=time.time() + 120)
    failing = make_store()
    fail_requests(failing.client, "AccessDeniedException", when=lambda op, body: op == "Query")
    consumer = StreamConsumer(TABLE, client=failing.client, embeddings=LexicalEmbeddings(DIMS))
    report = drain_stream(TABLE, consumer.handle, filter_patterns=filter_criteria(), max_retries=1)
    assert [r["dynamodb"]["Keys"]["SK"]["S"] for r in report.failed] == ["k#a"]
    registry = [r for r in _written(store) if r["PK"].startswith("._ns.")]
    assert len(registry) == 1 and "emptied_at" not in registry[0]


def test_extra_vector_rows_expire_with_their_item(store: DynamoDBStore) -> None:
    store.put(NS, "multi", {"notes": ["blue fish", "green fish"]}, ttl=1)
    rows = {r["SK"]: r for r in _written(store) if r["PK"] == ".".join(NS)}
    item = rows.pop("k#multi")
    assert [r["expires_at"] for r in rows.values()] == [item["expires_at"]]


# 7. Nesting depth


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(depth - 1):
        value = {"n": value}
    return value


def test_values_nested_past_the_depth_limit_are_rejected(kv: DynamoDBStore) -> None:
    kv.put(("a",), "ok", _nested(MAX_DEPTH))
    with pytest.raises(ValueError, match=f"nested deeper than {MAX_DEPTH}"):
        kv.put(("a",), "deep", _nested(MAX_DEPTH + 1))
    with pytest.raises(ValueError, match=f"nested deeper than {MAX_DEPTH}"):
        kv.put(("a",), "deeper", _nested(980))
    assert kv.get(("a",), "deep") is None
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(200)  # a deep caller: reading a stored value must still work
        found = kv.get(("a",), "ok")
    finally:
        sys.setrecursionlimit(limit)
    assert found is not None and json.dumps(found.value) == json.dumps(_nested(MAX_DEPTH))


# 8. The item-size limit of store and emulation agree


def test_the_largest_item_the_store_accepts_is_stored_by_the_emulation(
    kv: DynamoDBStore,
) -> None:
    low, high = 0, MAX_ITEM_BYTES  # the store accepts `low` characters, refuses `high`
    while high - low > 1:
        middle = (low + high) // 2
        try:
            kv.put(("a",), "probe", {"t": "x" * middle})  # the emulation must not refuse
            low = middle
        except ValueError:
            high = middle
    stored = kv.get(("a",), "probe")
    assert stored is not None and len(stored.value["t"]) == low
    with pytest.raises(ValueError, match=f"limit is {MAX_ITEM_BYTES}"):
        kv.put(("a",), "probe", {"t": "x" * (low + 1)})


def test_the_emulation_enforces_dynamodbs_size_rule(kv: DynamoDBStore) -> None:
    def put(size: int) -> None:
        # name "PK"=2 + "a"=1, "SK"=2 + "k"=1, "v"=1 + string
        kv.client.put_item(
            TableName=TABLE,
            Item={"PK": {"S": "a"}, "SK": {"S": "k"}, "v": {"S": "x" * (size - 7)}},
        )

    put(MAX_ITEM_BYTES)
    with pytest.raises(ClientError, match="Item size has exceeded the maximum allowed size"):
        put(MAX_ITEM_BYTES + 1)


# 9. The emulation is atomic


def test_a_reader_never_sees_a_half_applied_write(kv: DynamoDBStore) -> None:
    errors: list[BaseException] = []
    stop = threading.Event()

    def write() -> None:
        i = 0
        while not stop.is_set():
            kv.put(("a",), f"k{i % 20}", {"v": i})
            kv.delete(("a",), f"k{(i + 7) % 20}")
            i += 1

    def read() -> None:
        while not stop.is_set():
            try:
                kv.get(("a",), "k3")
                kv.search(("a",))
            except BaseException as error:
                errors.append(error)
                return

    threads = [threading.Thread(target=write) for _ in range(2)]
    threads += [threading.Thread(target=read) for _ in range(2)]
    for thread in threads:
        thread.start()
    time.sleep(2.0)
    stop.set()
    for thread in threads:
        thread.join()
    assert errors == []


def test_a_rejected_update_leaves_no_row_behind(kv: DynamoDBStore) -> None:
    with pytest.raises(ClientError, match="size"):
        kv.client.update_item(
            TableName=TABLE,
            Key={"PK": {"S": "a"}, "SK": {"S": "new"}},
            UpdateExpression="SET v = :v",
            ExpressionAttributeValues={":v": {"S": "x" * (MAX_ITEM_BYTES + 1)}},
        )
    assert _written(kv) == []


# 10. Smaller points


@pytest.mark.parametrize(
    ("op", "message"),
    [
        (SearchOp(("a",), limit=True), "limit"),
        (SearchOp(("a",), offset=True), "offset"),
        (ListNamespacesOp(limit=True), "limit"),
        (ListNamespacesOp(max_depth=True), "max_depth"),
        (ListNamespacesOp(max_depth="2"), "max_depth"),  # type: ignore[arg-type]
        (ListNamespacesOp(max_depth=1.5), "max_depth"),  # type: ignore[arg-type]
    ],
)
def test_paging_values_must_be_ints(kv: DynamoDBStore, op: Any, message: str) -> None:
    with pytest.raises(ValueError, match=f"{message} must be"):
        kv.batch([op])


def test_a_failing_ttl_refresh_never_fails_a_read(
    emulated: None, caplog: pytest.LogCaptureFixture
) -> None:
    store = DynamoDBStore(
        TABLE, region_name="us-east-1", ttl={"default_ttl": 0.1, "refresh_on_read": True}
    )
    store.setup()
    store.put(("a",), "k", {"v": 1})
    time.sleep(1.7)  # past a tenth of the 6 s TTL (expiry rounds up): the next read refreshes
    fail_requests(
        store.client,
        "AccessDeniedException",
        when=lambda op, body: op == "UpdateItem" and "ConditionExpression" in body,
    )
    with caplog.at_level(logging.WARNING):
        found = store.get(("a",), "k")
        results = store.batch([GetOp(("a",), "k"), PutOp(("a",), "other", {"v": 2})])
    assert found is not None and found.value == {"v": 1}
    assert results[0] is not None
    assert store.get(("a",), "other") is not None
    assert "refresh" in caplog.text


def test_a_failing_cleanup_of_old_vector_rows_never_fails_a_search(store: DynamoDBStore) -> None:
    store.put(NS, "multi", {"notes": ["blue fish", "green fish"]})
    (row,) = [r for r in _written(store) if r["SK"].startswith("v#")]
    store.client.delete_item(
        TableName=TABLE, Key={"PK": {"S": ".".join(NS)}, "SK": {"S": "k#multi"}}
    )
    store.client.update_item(  # an orphan old enough to be collected
        TableName=TABLE,
        Key={"PK": {"S": row["PK"]}, "SK": {"S": row["SK"]}},
        UpdateExpression="SET written_at = :old",
        ExpressionAttributeValues={":old": {"N": str(int(time.time()) - 10_000)}},
    )
    answered = fail_requests(
        store.client, "AccessDeniedException", when=lambda op, _: op == "DeleteItem"
    )
    assert store.search(NS, query="green fish") == []
    assert answered == ["DeleteItem"]
