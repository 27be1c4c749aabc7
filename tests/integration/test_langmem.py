"""langmem's memory tools on the store, with the README's recommended index configs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_aws import BedrockEmbeddings
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.testing import mock_aws
from langmem import create_manage_memory_tool, create_search_memory_tool

NAMESPACE = ("memories", "{langgraph_user_id}")


@pytest.fixture(params=[None, ["content"]], ids=["default-fields", "content-field"])
def store(request: pytest.FixtureRequest) -> Iterator[DynamoDBStore]:
    index: dict[str, Any] = {
        "dims": 1024,
        "embed": BedrockEmbeddings(
            model_id="amazon.titan-embed-text-v2:0", region_name="us-east-1"
        ),
    }
    if request.param is not None:
        index["fields"] = request.param
    with mock_aws():
        memory = DynamoDBStore("memory", region_name="us-east-1", index=index)  # type: ignore[arg-type]
        memory.setup()
        yield memory


def _config(user: str) -> dict[str, Any]:
    return {"configurable": {"langgraph_user_id": user}}


def test_langmem_tools_write_and_recall_per_user(
    store: DynamoDBStore, caplog: pytest.LogCaptureFixture
) -> None:
    manage = create_manage_memory_tool(NAMESPACE, store=store)
    search = create_search_memory_tool(NAMESPACE, store=store)
    for text in (
        "Account runs a proxy that closes idle sockets after 60 seconds",
        "Customer prefers email, asked not to be called by phone",
    ):
        manage.invoke({"action": "create", "content": text}, config=_config("user-8812"))
    manage.invoke({"action": "create", "content": "Likes phone calls"}, config=_config("other"))
    assert "no text" not in caplog.text

    stored = store.search(("memories", "user-8812"))
    assert sorted(item.value["content"] for item in stored) == [
        "Account runs a proxy that closes idle sockets after 60 seconds",
        "Customer prefers email, asked not to be called by phone",
    ]
    found = search.invoke({"query": "idle sockets closed by a proxy"}, config=_config("user-8812"))
    hits = json.loads(found) if isinstance(found, str) else found
    contents = [hit["value"]["content"] for hit in hits]
    assert contents[0] == "Account runs a proxy that closes idle sockets after 60 seconds"
    assert "Likes phone calls" not in contents  # another user's memory stays out of scope
    assert hits[0]["score"] > hits[1]["score"]
