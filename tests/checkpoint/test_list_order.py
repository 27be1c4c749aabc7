"""`list(config)` without `checkpoint_ns` is newest first across the thread's namespaces
(by checkpoint id, as LangGraph's SQL savers order it), so `limit=1` is the newest
checkpoint, for the same two requests as a listing of one namespace."""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.dynamodb import DynamoDBSaver

from tests.support import RequestCounter


def _put(saver: DynamoDBSaver, ns: str, step: int) -> str:
    checkpoint = empty_checkpoint()
    config: Any = {"configurable": {"thread_id": "t", "checkpoint_ns": ns}}
    stored = saver.put(config, checkpoint, {"source": "loop", "step": step}, {})
    return str(stored["configurable"]["checkpoint_id"])


def test_a_listing_without_namespace_is_newest_first_across_namespaces(
    saver: DynamoDBSaver,
) -> None:
    written = [
        (ns, _put(saver, ns, step))
        for step, ns in enumerate(["", "child:1", "", "child:1", "zz:2", "", "a:3", ""])
    ]
    newest_first = sorted(written, key=lambda w: w[1], reverse=True)
    listed = [
        (t.config["configurable"]["checkpoint_ns"], t.config["configurable"]["checkpoint_id"])
        for t in saver.list({"configurable": {"thread_id": "t"}})
    ]
    assert listed == newest_first
    counter = RequestCounter(saver.client)
    (latest,) = saver.list({"configurable": {"thread_id": "t"}}, limit=1)
    assert latest.config["configurable"]["checkpoint_id"] == newest_first[0][1]
    assert counter.total <= 2, counter.calls
    before = {"configurable": {"checkpoint_id": newest_first[3][1]}}
    older = [
        t.config["configurable"]["checkpoint_id"]
        for t in saver.list({"configurable": {"thread_id": "t"}}, before=before, limit=2)
    ]
    assert older == [w[1] for w in newest_first[4:6]]
    only_child = [
        t.config["configurable"]["checkpoint_id"]
        for t in saver.list({"configurable": {"thread_id": "t", "checkpoint_ns": "child:1"}})
    ]
    assert only_child == [w[1] for w in newest_first if w[0] == "child:1"]
