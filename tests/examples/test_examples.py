"""The examples under examples/ run, on the emulation, and do what they say; each runs
both as a script (`python examples/X.py`) and as a module (`python -m examples.X`)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_aws import BedrockEmbeddings
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.testing import mock_aws

from examples import create_agent_memory, langmem_tools, multi_tenant

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_SECONDS = 120  # each takes a few seconds; generous for a loaded machine


@pytest.fixture
def aws() -> Iterator[None]:
    with mock_aws():
        yield


def titan_store(fields: list[str]) -> DynamoDBStore:
    """A set-up store embedding `fields` with Titan Text Embeddings V2, as the examples'
    `main` builds it."""
    embed = BedrockEmbeddings(model_id="amazon.titan-embed-text-v2:0", region_name="us-east-1")
    store = DynamoDBStore(
        "agent-memory",
        region_name="us-east-1",
        index={"dims": 1024, "fields": fields, "embed": embed},
    )
    store.setup()
    return store


@pytest.mark.usefixtures("aws")
def test_create_agent_tools_reach_the_store_through_runtime() -> None:
    store = titan_store(["text"])
    recalled = create_agent_memory.run(store)
    assert len(recalled) == 1 and recalled[0].endswith("Prefers email, never phone calls")
    assert store.get(("memories", "user-8812"), "m1") is not None


@pytest.mark.usefixtures("aws")
def test_langmem_tools_in_create_agent_keep_users_apart() -> None:
    store = titan_store(["content"])
    found = langmem_tools.run(store)
    assert found[0] == "Account runs a proxy that closes idle sockets"
    assert "Runs everything behind a proxy too" not in found  # Bob's memory
    assert [ns[1] for ns in store.list_namespaces(prefix=("memories",))] == ["alice", "bob"]


@pytest.mark.usefixtures("aws")
def test_multi_tenant_layouts_scope_each_search() -> None:
    seen = multi_tenant.run(titan_store(["text"]))
    assert seen["globex"] == ["memories.globex.user-1"]
    assert "memories.globex.user-1" not in seen["all of acme"]
    assert sorted(seen["one user of acme"]) == [
        "memories.acme-corp.user-1",
        "memories.acme-corp.user-1.billing-agent",
    ]
    assert seen["acme facts"] == ["account_facts.acme-corp"]


@pytest.mark.parametrize(
    ("name", "prints"),
    [
        ("create_agent_memory", "Prefers email, never phone calls"),
        ("langmem_tools", "['Account runs a proxy that closes idle sockets'"),
        ("multi_tenant", "globex: ['memories.globex.user-1']"),
    ],
)
@pytest.mark.parametrize("how", ["script", "module"])
def test_each_example_runs_as_a_script_and_as_a_module(
    name: str, prints: str, how: str, tmp_path: Path
) -> None:
    # A newcomer's shell: no AWS settings at all (the examples emulate AWS themselves).
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    if how == "script":  # from anywhere: the example imports only installed packages
        command, cwd = [sys.executable, str(ROOT / "examples" / f"{name}.py")], tmp_path
    else:
        command, cwd = [sys.executable, "-m", f"examples.{name}"], ROOT
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=EXAMPLE_SECONDS
    )
    assert done.returncode == 0, done.stderr
    assert prints in done.stdout
