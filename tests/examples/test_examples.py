"""The examples under examples/ run, on the emulation, and do what they say."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langgraph.store.dynamodb.testing import mock_aws

from examples import create_agent_memory, langmem_tools, multi_tenant
from examples.memory_store import bedrock_store


@pytest.fixture
def aws() -> Iterator[None]:
    with mock_aws():
        yield


@pytest.mark.usefixtures("aws")
def test_create_agent_tools_reach_the_store_through_runtime() -> None:
    store = bedrock_store(["text"])
    recalled = create_agent_memory.run(store)
    assert len(recalled) == 1 and recalled[0].endswith("Prefers email, never phone calls")
    assert store.get(("memories", "user-8812"), "m1") is not None


@pytest.mark.usefixtures("aws")
def test_langmem_tools_in_create_agent_keep_users_apart() -> None:
    store = bedrock_store(["content"])
    found = langmem_tools.run(store)
    assert found[0] == "Account runs a proxy that closes idle sockets"
    assert "Runs everything behind a proxy too" not in found  # Bob's memory
    assert [ns[1] for ns in store.list_namespaces(prefix=("memories",))] == ["alice", "bob"]


@pytest.mark.usefixtures("aws")
def test_multi_tenant_layouts_scope_each_search() -> None:
    seen = multi_tenant.run(bedrock_store(["text"]))
    assert seen["globex"] == ["memories.globex.user-1"]
    assert "memories.globex.user-1" not in seen["all of acme"]
    assert sorted(seen["one user of acme"]) == [
        "memories.acme-corp.user-1",
        "memories.acme-corp.user-1.billing-agent",
    ]
    assert seen["acme facts"] == ["account_facts.acme-corp"]


@pytest.mark.usefixtures("aws")
@pytest.mark.parametrize("example", [create_agent_memory, langmem_tools, multi_tenant])
def test_each_example_main_runs(example: object, capsys: pytest.CaptureFixture[str]) -> None:
    example.main()  # type: ignore[attr-defined]
    assert capsys.readouterr().out.strip()
