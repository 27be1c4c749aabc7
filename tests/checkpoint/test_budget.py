"""Requests per call on a real graph's checkpoints: `put` and `put_writes` one each,
`get_tuple` at most two whatever the number of pending writes, `list(limit=10)` at most
three; empty `delete_for_runs`/`prune` none."""

from __future__ import annotations

import contextvars
from typing import Any

from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.table.schema import VALUES

from tests.checkpoint.conftest import TABLE
from tests.checkpoint.graphs import chat_graph, say
from tests.checkpoint.rows_of import full_rows
from tests.support import RequestCounter

_CALL: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar("call", default=None)


class CountingSaver(DynamoDBSaver):
    """Records the requests each `put`/`put_writes` sends. LangGraph runs them
    concurrently with each other, so each call counts its own requests through a context
    variable (the saver's pool runs a call in its caller's context)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.per_call: dict[str, list[int]] = {}
        self.client.meta.events.register("before-call.dynamodb", self._count)

    @staticmethod
    def _count(**_: Any) -> None:
        box = _CALL.get()
        if box is not None:
            box[0] += 1

    def _counted(self, name: str, call: Any, *args: Any, **kwargs: Any) -> Any:
        box = [0]
        token = _CALL.set(box)
        try:
            return call(*args, **kwargs)
        finally:
            _CALL.reset(token)
            self.per_call.setdefault(name, []).append(box[0])

    def put(self, *args: Any, **kwargs: Any) -> Any:
        return self._counted("put", super().put, *args, **kwargs)

    def put_writes(self, *args: Any, **kwargs: Any) -> None:
        self._counted("put_writes", super().put_writes, *args, **kwargs)


def test_a_graph_turn_costs_one_request_per_put_and_per_put_writes(emulation: None) -> None:
    with CountingSaver("budget", region_name="us-east-1") as saver:
        saver.setup()
        graph = chat_graph(saver)
        config = {"configurable": {"thread_id": "t-1"}}
        for turn in range(3):
            # "sync": each put lands before the next step's writes. Under LangGraph's
            # default ("async") a step's put_writes can reach the saver before the put of
            # its checkpoint has started; it then registers the thread (one more request,
            # tests/checkpoint/test_thread_life.py), which would make this count flaky.
            graph.invoke(say(f"hello {turn}"), config, durability="sync")
        assert saver.per_call["put"] and set(saver.per_call["put"]) == {1}
        assert saver.per_call["put_writes"] and set(saver.per_call["put_writes"]) == {1}
        assert [m.content for m in graph.get_state(config).values["messages"]][-1] == "echo hello 2"


def test_get_tuple_costs_at_most_two_requests_whatever_the_pending_writes(
    saver: DynamoDBSaver,
) -> None:
    graph = chat_graph(saver)
    config = {"configurable": {"thread_id": "t-2"}}
    graph.invoke(say("hi"), config)
    latest = saver.get_tuple(config)
    assert latest is not None
    for task in range(40):
        saver.put_writes(latest.config, [("messages", f"w{task}"), ("turns", task)], f"task-{task}")
    counter = RequestCounter(saver.client)
    found = saver.get_tuple(config)
    assert found is not None and len(found.pending_writes or []) == 80
    assert counter.total <= 2, counter.calls
    counter.reset()
    assert saver.get_tuple(found.config) is not None
    assert counter.total <= 2, counter.calls


def test_list_with_limit_ten_costs_at_most_three_requests(saver: DynamoDBSaver) -> None:
    graph = chat_graph(saver)
    config = {"configurable": {"thread_id": "t-3"}}
    for turn in range(6):
        graph.invoke(say(f"turn {turn}"), config)
    counter = RequestCounter(saver.client)
    listed = list(saver.list(config, limit=10))
    assert len(listed) == 10
    ids = [t.config["configurable"]["checkpoint_id"] for t in listed]
    assert ids == sorted(ids, reverse=True)
    assert counter.total <= 3, counter.calls


def test_empty_delete_for_runs_and_prune_send_nothing(saver: DynamoDBSaver) -> None:
    counter = RequestCounter(saver.client)
    saver.delete_for_runs([])
    saver.prune([])
    saver.prune([], strategy="delete")
    assert counter.total == 0


def test_listing_threads_reads_the_registry_only_up_to_the_page(saver: DynamoDBSaver) -> None:
    graph = chat_graph(saver)
    for name in ("c", "a", "b"):
        graph.invoke(say("hi"), {"configurable": {"thread_id": name}})
    assert saver.threads() == ["a", "b", "c"]
    counter = RequestCounter(saver.client)
    assert saver.threads(limit=2) == ["a", "b"]
    assert counter.calls == {"Query": 1}


def test_an_emptied_channel_costs_no_row(saver: DynamoDBSaver) -> None:
    # LangGraph bumps the version of channels it empties (`branch:to:*`, `__start__`): a
    # value for each would cost write units and say nothing.
    graph = chat_graph(saver)
    config = {"configurable": {"thread_id": "t"}}
    for turn in range(2):
        graph.invoke(say(f"turn {turn}"), config)
    rows = full_rows(saver.client, TABLE)
    assert not [r for r in rows if r["SK"].startswith("b#")]  # small values sit inline
    values = [v for r in rows if VALUES in r for v in r[VALUES].values()]
    assert values and not [v for v in values if v["t"] == "empty"]
    latest = saver.get_tuple(config)
    assert latest is not None
    emptied = set(latest.checkpoint["channel_versions"]) - set(latest.checkpoint["channel_values"])
    assert emptied  # versions without a row read back as no value
    assert [m.content for m in graph.get_state(config).values["messages"]][-1] == "echo turn 1"
