"""`export` reads one namespace at a time: a prefix may cover more namespaces than one
search may (`max_fanout`), and items of nested namespaces are written once."""

from __future__ import annotations

import io
import json

from langgraph.store.base import PutOp
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.cli.transfer import export_lines
from langgraph.store.dynamodb.testing import mock_aws


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
