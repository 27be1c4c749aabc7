"""embed_on="stream": put marks items pending, the consumer embeds them (end to end)."""

from __future__ import annotations

from tests.stream.conftest import NS, StreamSetup


def test_put_then_drain_makes_the_item_searchable(streamed: StreamSetup) -> None:
    store = streamed.store
    store.put(NS, "mem-1", {"text": "proxy closes idle sockets after 60 seconds"})
    assert streamed.embeddings.texts == []  # put embeds nothing
    assert store.search(NS, query="idle sockets") == []  # not embedded yet
    report = streamed.drain()
    assert report.ok and report.delivered == 1
    found = store.search(NS, query="idle sockets")
    assert [item.key for item in found] == ["mem-1"]
    assert streamed.embeddings.texts == ["proxy closes idle sockets after 60 seconds"]
    # The consumer's own write does not invoke it again.
    assert streamed.drain().invocations == 0
