"""The async API never blocks the event loop: every request of every async call runs on
the saver's own threads, never on the loop's."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from langgraph.checkpoint.dynamodb import DynamoDBSaver

from tests.checkpoint.graphs import chat_graph, say


def test_no_request_runs_on_the_event_loop_thread(saver: DynamoDBSaver) -> None:
    threads: list[int] = []
    saver.client.meta.events.register(
        "before-call.dynamodb", lambda **_: threads.append(threading.get_ident())
    )

    async def run() -> int:
        graph = chat_graph(saver)
        config: dict[str, Any] = {"configurable": {"thread_id": "t"}}
        await asyncio.gather(
            *(
                graph.ainvoke(say(f"hi {i}"), {"configurable": {"thread_id": f"t{i}"}})
                for i in range(3)
            )
        )
        await graph.ainvoke(say("hello"), config)
        assert await saver.aget_tuple(config) is not None
        assert len([t async for t in saver.alist(config, limit=3)]) == 3
        await saver.acopy_thread("t", "u")
        await saver.aprune(["u"])
        await saver.adelete_for_runs(["nothing"])
        await saver.adelete_thread("u")
        return threading.get_ident()

    loop_thread = asyncio.run(run())
    assert threads and loop_thread not in threads
