"""The Agent Server store and checkpointer factories, loaded the way `langgraph.json`
names them."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.agent_server import generate_store
from langgraph.store.dynamodb.testing import mock_aws

SERVER_DIR = Path(__file__).resolve().parents[2] / "examples" / "agent_server"


def _load(reference: str) -> Any:
    """`./file.py:name` relative to langgraph.json, as the server resolves it."""
    path, name = reference.split(":")
    spec = importlib.util.spec_from_file_location(Path(path).stem, SERVER_DIR / path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


async def test_langgraph_json_store_yields_a_working_store(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = json.loads((SERVER_DIR / "langgraph.json").read_text())
    for name, value in config["env"].items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("DYNAMODB_MEMORY_SETUP", "1")  # create the table in the emulation
    factory = _load(config["store"]["path"])
    with mock_aws():
        async with factory() as store:
            assert isinstance(store, DynamoDBStore) and store.table_name == "agent-memory"
            ns = ("memories", "user-8812")
            await store.aput(ns, "m1", {"text": "Account runs a proxy that closes idle sockets"})
            await store.aput(ns, "m2", {"text": "Prefers email"})
            hits = await store.asearch(ns, query="idle sockets closed by a proxy")
            assert next(hit.key for hit in hits) == "m1"
        with pytest.raises(RuntimeError, match="closed"):
            await store.aget(ns, "m1")


@pytest.fixture
def server_path(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The "." dependency of langgraph.json on the path; its modules forgotten after."""
    monkeypatch.syspath_prepend(str(SERVER_DIR))
    yield
    for module in ("memory_tools", "offline_model"):
        sys.modules.pop(module, None)


@pytest.mark.usefixtures("server_path")
def test_langgraph_json_graph_builds() -> None:
    config = json.loads((SERVER_DIR / "langgraph.json").read_text())
    graph = _load(config["graphs"]["support_agent"])
    assert {"model", "tools"} <= set(graph.get_graph().nodes)


@pytest.mark.usefixtures("server_path")
async def test_the_graph_runs_offline_with_agent_model_fake(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`AGENT_MODEL=fake`: no LLM and no Bedrock; memories still go through the store the
    server provides, across threads."""
    config = json.loads((SERVER_DIR / "langgraph.json").read_text())
    for name, value in {**config["env"], "DYNAMODB_MEMORY_SETUP": "1"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("AGENT_MODEL", "fake")
    graph = _load(config["graphs"]["support_agent"])
    factory = _load(config["store"]["path"])
    with mock_aws():
        async with factory() as store:
            served = graph.copy(update={"store": store})  # as the server attaches it
            context = {"user_id": "user-8812"}

            async def say(thread: str, text: str) -> str:
                state = await served.ainvoke(
                    {"messages": [{"role": "user", "content": text}]},
                    {"configurable": {"thread_id": thread}},
                    context=context,
                )
                return str(state["messages"][-1].content)

            assert await say("monday", "Remember: prefers email, never phone calls") == "saved m1"
            reply = await say("tuesday", "How should we contact this user, email or phone?")
            assert reply.endswith("prefers email, never phone calls")
            assert (await store.aget(("memories", "user-8812"), "m1")) is not None


@pytest.mark.usefixtures("server_path")
async def test_langgraph_json_checkpointer_keeps_threads_on_the_store_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The server builds the graph with both factories: a thread resumes from the table
    in a checkpointer opened afresh (another server process), its memories alongside."""
    config = json.loads((SERVER_DIR / "langgraph.json").read_text())
    for name, value in {**config["env"], "DYNAMODB_MEMORY_SETUP": "1"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("AGENT_MODEL", "fake")
    graph = _load(config["graphs"]["support_agent"])
    store_factory = _load(config["store"]["path"])
    saver_factory = _load(config["checkpointer"]["path"])
    thread: Any = {"configurable": {"thread_id": "monday"}}
    context = {"user_id": "user-8812"}
    with mock_aws():
        async with store_factory() as store, saver_factory() as saver:
            assert isinstance(saver, DynamoDBSaver) and saver.table_name == store.table_name
            served = graph.copy(update={"store": store, "checkpointer": saver})
            text = "Remember: prefers email, never phone calls"
            await served.ainvoke(
                {"messages": [{"role": "user", "content": text}]}, thread, context=context
            )
        async with store_factory() as store, saver_factory() as saver:  # a restart
            served = graph.copy(update={"store": store, "checkpointer": saver})
            before = (await served.aget_state(thread)).values["messages"]
            assert before[0].content == text  # the thread, from DynamoDB
            question = "How should we contact this user, email or phone?"
            state = await served.ainvoke(
                {"messages": [{"role": "user", "content": question}]}, thread, context=context
            )
            assert state["messages"][: len(before)] == before
            assert str(state["messages"][-1].content).endswith("prefers email, never phone calls")
            assert saver.threads() == ["monday"]
        with pytest.raises(RuntimeError):  # closed on exit (its pool is shut down)
            await saver.aget_tuple(thread)


async def test_factory_reads_a_config_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    config = tmp_path / "memory.toml"
    config.write_text(
        'table = "from-file"\nregion = "eu-west-1"\n'
        '[index]\nembed = "lexical"\ndims = 256\nfields = ["text"]\n'
        "[ttl]\ndefault_ttl = 60\n"
    )
    monkeypatch.setenv("DYNAMODB_MEMORY_CONFIG", str(config))
    monkeypatch.setenv("DYNAMODB_MEMORY_SETUP", "true")
    with mock_aws():
        async with generate_store() as store:
            assert store.table_name == "from-file"
            assert store.client.meta.region_name == "eu-west-1"
            assert store.ttl_config == {"default_ttl": 60, "refresh_on_read": True}
            await store.aput(("a",), "k", {"text": "hello world"})
            assert (await store.asearch(("a",), query="hello"))[0].key == "k"


async def test_factory_without_setup_reports_the_missing_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DYNAMODB_MEMORY_TABLE", "never-created")
    from langgraph.store.dynamodb import TableNotFoundError

    with mock_aws():
        async with generate_store() as store:
            with pytest.raises(TableNotFoundError, match="never-created"):
                await store.aget(("a",), "k")
