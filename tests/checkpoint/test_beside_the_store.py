"""Threads beside memories on one table: a stream-mode store and its consumer, a saver on
the same table. The consumer's event filter drops every thread row, thread rows enter
neither the recency nor the vector index, and store listings never show them."""

from __future__ import annotations

from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.stream.consumer import FILTER_PATTERNS
from langgraph.store.dynamodb.table.schema import PK, RECENCY_INDEX

from tests.checkpoint.graphs import chat_graph, say
from tests.stream.conftest import (
    TABLE,
    CountingEmbeddings,
    StreamSetup,
    stream_setup,
    stream_store,
)


def test_thread_rows_never_reach_the_consumer_or_an_index(emulation: None) -> None:
    streamed: StreamSetup = stream_setup()
    store = streamed.store
    ns = ("memories", "acme", "u1")
    with DynamoDBSaver(TABLE, region_name="us-east-1") as saver:
        saver.setup()
        graph = chat_graph(saver)
        config = {"configurable": {"thread_id": "t"}}
        for turn in range(3):
            graph.invoke(say(f"turn {turn} " + "x" * 400_000 * (turn == 2)), config)
        saver.delete_thread("other")
        report = streamed.drain(filter_patterns=list(FILTER_PATTERNS))
        assert report.delivered == 0 and report.filtered_out > 0
        assert streamed.embeddings.calls == 0

        store.put(ns, "m1", {"text": "remember the proxy"})
        report = streamed.drain(filter_patterns=list(FILTER_PATTERNS))
        assert report.delivered == 1 and streamed.embeddings.calls == 1

        client = store.client
        recency = client.scan(TableName=TABLE, IndexName=RECENCY_INDEX)["Items"]
        assert {i[PK]["S"] for i in recency} == {"memories.acme.u1"}
        assert [i.key for i in store.search(ns, query="proxy", limit=5)] == ["m1"]
        assert store.list_namespaces() == [ns]
        assert [i.key for i in store.search(("memories",))] == ["m1"]
        assert saver.get_tuple(config) is not None


def test_either_setup_makes_the_table_the_other_needs(emulation: None) -> None:
    with DynamoDBSaver(TABLE, region_name="us-east-1") as saver:
        saver.setup()  # first: the store's table, without an index yet
        store = stream_store(CountingEmbeddings())
        store.setup()  # retrofits the vector index on the saver's table
        saver.setup()  # and the saver accepts the table as the store left it
        config = {"configurable": {"thread_id": "t"}}
        chat_graph(saver).invoke(say("hi"), config)
        store.put(("memories", "u"), "k", {"text": "x"})
        assert saver.get_tuple(config) is not None and store.get(("memories", "u"), "k")
