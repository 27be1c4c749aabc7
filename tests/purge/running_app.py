"""Processes of a still-running app, for `test_running_app.py`: `python -m
tests.purge.running_app serve <port> <scale>` runs the emulation's endpoint (its extraction
worker included); `python -m tests.purge.running_app write <url> <scale>`
writes one round through the store, the saver and the extractor for each line it reads,
printing one line per round it finished. Both run the library's clock `scale` times faster, so the
time they trust a listing row (`row_kinds.TRUST_SECONDS`) passes in seconds."""

from __future__ import annotations

import sys
import time

from langgraph.store.dynamodb.table import clock

TABLE = "memory"
REGION = "us-east-1"
TENANT = "acme"
NAMESPACE = ("memories", TENANT, "app")


def fast(scale: float) -> None:
    """The library's cache clock, `scale` times faster than real time."""
    clock.monotonic = lambda: time.monotonic() * scale


def serve(port: str) -> None:
    from langgraph.store.dynamodb.cli import main

    sys.argv = ["dynamodb-memory", "serve", "--json", "--port", port]
    main()


def write(url: str) -> None:
    from langgraph.checkpoint.dynamodb import DynamoDBSaver
    from langgraph.store.dynamodb import DynamoDBStore
    from langgraph.store.dynamodb.embedders.build import embedder
    from langgraph.store.dynamodb.extraction import Extractor

    from tests.checkpoint.graphs import chat_graph, say

    index = {"dims": 16, "embed": embedder("lexical", 16), "fields": ["text"]}
    store = DynamoDBStore(TABLE, region_name=REGION, endpoint_url=url, index=index)  # type: ignore[arg-type]
    saver = DynamoDBSaver(TABLE, region_name=REGION, endpoint_url=url, tenant_key="tenant")
    extractor = Extractor(store, saver, bedrock_endpoint_url=url)
    graph = chat_graph(saver)
    for i, _ in enumerate(sys.stdin):
        store.put(NAMESPACE, f"k{i}", {"text": f"note {i}"})
        config = {"configurable": {"thread_id": "t1", "tenant": TENANT, "user_id": "u1"}}
        graph.invoke(say(f"My lucky number is {i}."), config)
        extractor.run(TENANT, "t1")
        print(i, flush=True)


if __name__ == "__main__":
    fast(float(sys.argv[-1]))
    if sys.argv[1] == "serve":
        serve(sys.argv[2])
    else:
        write(sys.argv[2])
