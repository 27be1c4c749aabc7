"""The Agent Server, live: `langgraph dev` (langgraph-cli with the in-memory runtime,
installed by `make install`) serves `examples/agent_server/langgraph.json`, whose store
and checkpointer are this project's, against the emulated endpoint. A client drives it
through langgraph-sdk across a restart of the server, as a user's front end would."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3
import langgraph_cli  # noqa: F401  (`langgraph dev` below runs it)
import langgraph_runtime_inmem  # noqa: F401  (the in-memory runtime `langgraph dev` serves with)
import langgraph_sdk as sdk
import pytest
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.testing import local_endpoint

from tests.cli.conftest import free_port
from tests.support import scan_table

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "agent_server"
TABLE = "agent-memory"  # the example's langgraph.json names it
USER = "user-8812"
MEMORIES = ("memories", USER)
FACT = "prefers email, never phone calls"
# A loaded 2-core machine imports langgraph-api, builds the graph and sets the table up
# in well under this; polled, so a fast start costs nothing.
STARTUP_SECONDS = 180.0
STOP_SECONDS = 60.0
# `langgraph dev` of this venv, as a user runs it, minus what a test cannot have: a
# browser, and a reloader (it restarts the server, in a child process, on file changes).
DEV = (sys.executable, "-m", "langgraph_cli", "dev", "--no-browser", "--no-reload")


@dataclass
class AgentServer:
    """`langgraph dev` on the example's langgraph.json, on a fixed port, in `workdir`."""

    workdir: Path
    endpoint_url: str
    port: int = field(default_factory=free_port)
    log: Path = field(init=False)
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0

    def __post_init__(self) -> None:
        self.log = self.workdir.parent / "langgraph-dev.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start the server and return once it answers `/ok`."""
        assert self.process is None, "stop the server first"
        self.starts += 1
        # No LangSmith key: no tracing and no usage reports leave the machine.
        env = {k: v for k, v in os.environ.items() if not k.startswith(("LANGSMITH", "LANGCHAIN"))}
        env.update(
            DYNAMODB_MEMORY_ENDPOINT_URL=self.endpoint_url,
            DYNAMODB_MEMORY_SETUP="1",  # the first start creates the table and its index
            AGENT_MODEL="fake",
            LANGSMITH_TRACING="false",
            LANGGRAPH_NO_VERSION_CHECK="true",
        )
        with self.log.open("ab") as log:
            log.write(f"\n--- start {self.starts} ---\n".encode())
            log.flush()
            self.process = subprocess.Popen(
                [*DEV, "--port", str(self.port), "--config", "langgraph.json"],
                cwd=self.workdir,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, stopped as one
            )
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(
                    f"langgraph dev exited with {self.process.returncode}:\n{self.tail()}"
                )
            try:
                with urllib.request.urlopen(f"{self.url}/ok", timeout=5) as answer:
                    if answer.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.25)
        raise AssertionError(f"langgraph dev did not answer in {STARTUP_SECONDS}s:\n{self.tail()}")

    def stop(self) -> int:
        """Stop the server as Ctrl-C would (its shutdown closes the store and the
        saver); returns its exit code."""
        assert self.process is not None
        process, self.process = self.process, None
        process.send_signal(signal.SIGINT)
        try:
            return process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            raise AssertionError(f"langgraph dev ignored Ctrl-C:\n{self.tail()}") from None

    def kill(self) -> None:
        """Stop whatever of it still runs (the finalizer: a failed test leaves nothing)."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.process = None

    def tail(self, lines: int = 60) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


@pytest.fixture
def endpoint() -> Iterator[str]:
    with local_endpoint() as url:
        yield url


@pytest.fixture
def agent_server(endpoint: str, tmp_path: Path) -> Iterator[AgentServer]:
    """The example served from a directory of links to its files: the runtime keeps its
    own thread list under `.langgraph_api/` of the working directory, here tmp_path."""
    workdir = tmp_path / "agent_server"
    workdir.mkdir()
    for source in EXAMPLE.glob("*.py"):
        (workdir / source.name).symlink_to(source)
    (workdir / "langgraph.json").symlink_to(EXAMPLE / "langgraph.json")
    server = AgentServer(workdir, endpoint)
    try:
        yield server
    finally:
        server.kill()


def _rows_naming(thread_id: str, endpoint: str) -> list[dict[str, Any]]:
    """The census: every row of the table, whatever its kind, that names the thread."""
    client = boto3.client("dynamodb", endpoint_url=endpoint)
    return [row for row in scan_table(client, TABLE) if thread_id in repr(row)]


def _ids(history: list[Any]) -> list[str]:
    return [state["checkpoint"]["checkpoint_id"] for state in history]


def readme_client() -> Any:
    """`ask`, as README's Agent Server section defines it."""
    readme = (EXAMPLE.parents[1] / "README.md").read_text()
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if "get_client(" in b]
    namespace: dict[str, Any] = {}
    exec(compile(block, "README.md", "exec"), namespace)
    return namespace["ask"]


async def _say(client: Any, thread_id: str, text: str) -> list[dict[str, Any]]:
    """One run of the example's agent on the thread; the messages it ends with."""
    state = await client.runs.wait(
        thread_id,
        "support_agent",
        input={"messages": [{"role": "user", "content": text}]},
        context={"user_id": USER},
    )
    assert isinstance(state, dict), state
    return list(state["messages"])


async def test_a_thread_and_its_memories_outlive_a_server_restart(
    agent_server: AgentServer, endpoint: str
) -> None:
    agent_server.start()
    async with sdk.get_client(url=agent_server.url) as client:
        thread_id = (await client.threads.create())["thread_id"]
        assert (await _say(client, thread_id, f"Remember: {FACT}"))[-1]["content"] == "saved m1"
        replies = await _say(client, thread_id, "How should we contact this user, email or phone?")
        assert replies[-1]["content"].endswith(FACT)  # recalled from the store
        before = await client.threads.get_state(thread_id)
        history = await client.threads.get_history(thread_id, limit=100)
    assert len(before["values"]["messages"]) == 8 and len(history) == 10

    assert agent_server.stop() == 0
    # With the server down, the thread is the table's: every checkpoint the server
    # showed, and the memory the first run saved.
    with DynamoDBSaver(TABLE, endpoint_url=endpoint) as saver:
        assert saver.threads() == [thread_id]
        stored = saver.list({"configurable": {"thread_id": thread_id}})
        assert [c.config["configurable"]["checkpoint_id"] for c in stored] == _ids(history)
    assert _rows_naming(thread_id, endpoint)
    with DynamoDBStore(TABLE, endpoint_url=endpoint) as store:
        item = store.get(MEMORIES, "m1")
        assert item is not None and item.value == {"text": FACT}

    agent_server.start()
    async with sdk.get_client(url=agent_server.url) as client:
        after = await client.threads.get_state(thread_id)
        assert after["values"] == before["values"]
        assert after["checkpoint"] == before["checkpoint"]
        assert _ids(await client.threads.get_history(thread_id, limit=100)) == _ids(history)
        found = await client.store.search_items(list(MEMORIES), query="email or phone?")
        assert [(hit["key"], hit["value"]) for hit in found["items"]] == [("m1", {"text": FACT})]
        assert found["items"][0]["score"] > 0  # a semantic hit, through the vector index
        # The thread goes on from where the table left it.
        resumed = await _say(client, thread_id, "email or phone?")
        assert resumed[:8] == before["values"]["messages"]
        assert resumed[-1]["content"].endswith(FACT)
        # Deleting the thread through the server erases it from the table; the user's
        # memories stay (they belong to the user, not to the thread).
        await client.threads.delete(thread_id)
        # README's client: a new thread of the same user recalls the memory.
        assert (await readme_client()("email or phone?", USER, url=agent_server.url)).endswith(FACT)
    assert agent_server.stop() == 0
    assert _rows_naming(thread_id, endpoint) == []
    with DynamoDBStore(TABLE, endpoint_url=endpoint) as store:
        assert store.get(MEMORIES, "m1") is not None

    log = agent_server.log.read_text(errors="replace")
    assert log.count("Using custom checkpointer: DynamoDBSaver") == 2
    assert log.count("Using custom store: <langgraph.store.dynamodb.") == 2
    # The server found every method it wants: thread deletion, run rollback, copy, prune.
    assert "Custom checkpointer missing" not in log
