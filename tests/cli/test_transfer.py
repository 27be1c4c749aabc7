"""`export` reads one namespace at a time: a prefix may cover more namespaces than one
search may (`max_fanout`), and items of nested namespaces are written once."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from langgraph.store.base import PutOp
from langgraph.store.dynamodb import DynamoDBStore, NamespaceFullError
from langgraph.store.dynamodb.cli.errors import PartlyDone
from langgraph.store.dynamodb.cli.transfer import PAGE, Imported, export_lines, import_lines
from langgraph.store.dynamodb.items.rows import key_of
from langgraph.store.dynamodb.table import dynamo
from langgraph.store.dynamodb.testing import LexicalEmbeddings, mock_aws


def test_export_covers_more_namespaces_than_one_search_may() -> None:
    with mock_aws():
        store = DynamoDBStore("memory", region_name="us-east-1", max_fanout=3)
        store.setup()
        namespaces = [("t", f"u{n}") for n in range(5)] + [("t", "u1", "deep"), ("other",)]
        store.batch([PutOp(ns, f"k{i}", {"i": i}) for ns in namespaces for i in range(3)])
        out = io.StringIO()
        assert export_lines(store, ("t",), out) == 18
        lines = [json.loads(line) for line in out.getvalue().splitlines()]
        exported = sorted((tuple(line["namespace"]), line["key"]) for line in lines)
        assert exported == sorted((ns, f"k{i}") for ns in namespaces[:-1] for i in range(3))


def test_export_pages_through_a_large_namespace() -> None:
    with mock_aws():
        store = DynamoDBStore("memory", region_name="us-east-1")
        store.setup()
        ns = ("t", "big")
        store.batch([PutOp(ns, f"k{i:04}", {"i": i}) for i in range(1_100)])  # over 2 pages
        out = io.StringIO()
        assert export_lines(store, ("t",), out) == 1_100
        keys = sorted(json.loads(line)["key"] for line in out.getvalue().splitlines())
        assert keys == [f"k{i:04}" for i in range(1_100)]


# Issue 21: an export is a backup that restores exactly, read in an order writes cannot
# shuffle; an import writes nothing unless every line is valid.

DIMS = 16


def _indexed(table: str) -> DynamoDBStore:
    index = {"dims": DIMS, "embed": LexicalEmbeddings(dims=DIMS), "fields": ["text"]}
    return DynamoDBStore(table, region_name="us-east-1", index=index)  # type: ignore[arg-type]


def _row(store: DynamoDBStore, namespace: tuple[str, ...], key: str) -> dict[str, Any]:
    found = store.client.get_item(
        TableName=store.table_name, Key=dynamo.serialize(key_of(namespace, key))
    )
    return dynamo.deserialize(found["Item"])


def test_export_then_import_restores_items_timestamps_order_ttl_and_index_choice() -> None:
    u1, u2 = ("memories", "u1"), ("memories", "u2")
    with mock_aws():
        source, copy = _indexed("memory"), _indexed("copy")
        source.setup()
        copy.setup()
        source.put(u1, "b-old", {"text": "written first"})
        source.put(u1, "a-ttl", {"text": "expires in an hour"}, ttl=60)
        source.put(u1, "c-plain", {"text": "proxy closes idle sockets"}, index=False)
        source.put(u1, "d-note", {"text": "t", "note": "proxy closes sockets"}, index=["note"])
        source.put(u1, "b-old", {"text": "written first, updated last"})
        source.put(u2, "k", {"text": "another namespace", "n": 1.5})
        out = io.StringIO()
        assert export_lines(source, ("memories",), out) == 5
        assert import_lines(copy, io.StringIO(out.getvalue())) == Imported(written=5, expired=0)
        for ns in (u1, u2):
            assert copy.search(ns, refresh_ttl=False) == source.search(ns, refresh_ttl=False)
        assert copy.search(u1)[0].key == "b-old"  # newest first, as exported
        for ns, key in [(u1, "a-ttl"), (u1, "b-old"), (u1, "c-plain"), (u1, "d-note")]:
            assert copy.get(ns, key, refresh_ttl=False) == source.get(ns, key, refresh_ttl=False)
            kept = ("expires_at", "ttl_minutes", "index_paths", "created_at", "updated_at")
            original, restored = _row(source, ns, key), _row(copy, ns, key)
            assert {a: restored.get(a) for a in kept} == {a: original.get(a) for a in kept}
        hits = copy.search(u1, query="proxy closes sockets", refresh_ttl=False)
        assert "c-plain" not in [hit.key for hit in hits]  # index=False stayed unembedded
        assert hits[0].key == "d-note"  # embedded at its own path


class _UpdatingWhileWritten(io.StringIO):
    """An export's output that updates a memory not yet exported after each line: each
    update makes that memory the namespace's newest."""

    def __init__(self, store: DynamoDBStore, namespace: tuple[str, ...], keys: list[str]):
        super().__init__()
        self.store, self.namespace, self.pending = store, namespace, keys

    def write(self, text: str) -> int:
        written = super().write(text)
        if self.pending:
            self.store.put(self.namespace, self.pending.pop(), {"updated": True})
        return written


def test_memories_updated_during_an_export_appear_exactly_once() -> None:
    ns = ("t", "busy")
    with mock_aws():
        store = DynamoDBStore("memory", region_name="us-east-1")
        store.setup()
        keys = [f"k{i:04}" for i in range(1_100)]  # over two export pages
        store.batch([PutOp(ns, key, {"i": i}) for i, key in enumerate(keys)])
        out = _UpdatingWhileWritten(store, ns, keys[:700:7])  # oldest first
        assert export_lines(store, ("t",), out) == 1_100
        exported = [json.loads(line)["key"] for line in out.getvalue().splitlines()]
        assert len(exported) == len(set(exported)) == 1_100


def _lines(*records: Any) -> io.StringIO:
    return io.StringIO("".join(json.dumps(r) + "\n" for r in records))


def _good(i: int) -> dict[str, Any]:
    return {"namespace": ["t", "u"], "key": f"k{i}", "value": {"i": i}}


@pytest.mark.parametrize(
    ("bad", "says"),
    [
        ({"namespace": ["t", "u"], "key": None, "value": {}}, "key"),
        ({"namespace": ["t", "u"], "key": 7, "value": {}}, "key"),
        ({"namespace": ["t", "u"], "key": "k", "value": [["a", 1]]}, "value"),
        ({"namespace": "tu", "key": "k", "value": {}}, "namespace"),
        ({"namespace": ["t", 5], "key": "k", "value": {}}, "namespace"),
        ({"namespace": ["t", "u.v"], "key": "k", "value": {}}, "namespace"),
        ({"namespace": ["t", "u"], "key": "k", "value": {}, "ttl_minutes": "60"}, "ttl"),
        (
            {"namespace": ["t", "u"], "key": "k", "value": {}, "created_at": "yesterday"},
            "created_at",
        ),
        ({"namespace": ["t", "u"], "key": "k", "value": {}, "index": "text"}, "index"),
        ({"namespace": ["t", "u"], "key": "k", "value": {}, "expires_at": 10**10}, "ttl_minutes"),
        ({"namespace": ["t", "u"], "key": "k", "value": {}, "colour": "red"}, "colour"),
    ],
)
def test_an_import_with_a_bad_line_writes_nothing_and_names_the_line(
    bad: dict[str, Any], says: str
) -> None:
    with mock_aws():
        store = DynamoDBStore("memory", region_name="us-east-1")
        store.setup()
        with pytest.raises(ValueError, match=rf"Line 601\b.*{says}"):
            import_lines(store, _lines(*[_good(i) for i in range(600)], bad, _good(601)))
        assert store.list_namespaces() == []
        assert store.search(("t",)) == []


@pytest.mark.parametrize("line", ["[" * 100_000, "{oops", '"just a string"'])
def test_an_import_line_that_is_not_a_json_object_is_refused(line: str) -> None:
    with mock_aws():
        store = DynamoDBStore("memory", region_name="us-east-1")
        store.setup()
        with pytest.raises(ValueError, match=r"Line 2\b"):
            import_lines(store, io.StringIO(json.dumps(_good(1)) + "\n" + line + "\n"))
        assert store.list_namespaces() == []


class _Pipe(io.StringIO):
    """Standard input from a pipe: read once, no seeking back."""

    def seekable(self) -> bool:
        return False


def test_an_import_from_a_pipe_skips_and_counts_what_has_expired_since_the_export() -> None:
    expired = {**_good(0), "ttl_minutes": 1, "expires_at": 1_000_000_000}  # 2001
    with mock_aws():
        store = DynamoDBStore("memory", region_name="us-east-1")
        store.setup()
        assert import_lines(store, _Pipe(_lines(expired, _good(1)).getvalue())) == Imported(1, 1)
        assert [item.key for item in store.search(("t",))] == ["k1"]


def test_a_failure_part_way_says_how_many_memories_were_written() -> None:
    small = [{**_good(i), "namespace": ["t", f"n{i}"]} for i in range(PAGE)]
    big = [{**_good(i), "value": {"text": "x" * 4_000}} for i in range(100)]
    with mock_aws(item_collection_size_limit=128 * 1024):
        store = DynamoDBStore("memory", region_name="us-east-1")
        store.setup()
        says = f"{PAGE} of {PAGE + 100} memories, every one up to line {PAGE}, were written"
        with pytest.raises(PartlyDone, match=says) as failed:
            import_lines(store, _lines(*small, *big))
        assert isinstance(failed.value.cause, NamespaceFullError)
        written = store.list_namespaces(prefix=("t",), limit=1_000)
        assert {("t", f"n{i}") for i in range(PAGE)} <= set(written)
