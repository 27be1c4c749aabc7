"""`dynamodb-memory extraction ...` against `serve`: the config set (checked, one line on
a wrong setting, nothing saved) and shown, a tenant's override, a thread replayed into
memories, and its status per strategy."""

from __future__ import annotations

import json
import time

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.dynamodb import DynamoDBSaver

from tests.checkpoint.graphs import chat_graph
from tests.cli.conftest import Cli

TABLE = "extraction-cli"
FACTS = {
    "strategies": [
        {"kind": "semantic_facts", "name": "facts", "namespace": ["memories", "{tenant}", "facts"]}
    ]
}


def test_config_status_and_replay(cli: Cli) -> None:
    table = ("--table", TABLE)
    assert cli("setup", *table, "--embed", "lexical").exit_code == 0
    assert cli("extraction", "config", "set", json.dumps(FACTS), *table).exit_code == 0
    shown = cli.json("extraction", "config", "show", *table)
    assert [s["name"] for s in shown["strategies"]] == ["facts"]
    assert shown["consolidation"] == {"mode": "nearest", "k": 5}  # the default

    wrong = cli("extraction", "config", "set", json.dumps({**FACTS, "bogus": 1}), *table)
    assert wrong.exit_code == 2 and "bogus" in wrong.stderr
    assert len(wrong.stderr.strip().splitlines()) == 1
    template = {**FACTS["strategies"][0], "namespace": ["memories", "{user_id}"]}
    missing = cli("extraction", "config", "set", json.dumps({"strategies": [template]}), *table)
    assert missing.exit_code == 2 and "{user_id}" in missing.stderr
    assert cli.json("extraction", "config", "show", *table) == shown  # nothing saved

    override = json.dumps({"enabled": False, "consolidation": {"mode": "add_each"}})
    assert cli("extraction", "config", "set", override, "--tenant", "globex", *table).exit_code == 0
    effective = cli.json("extraction", "config", "show", "--tenant", "globex", *table)
    assert effective["override"]["enabled"] is False
    assert effective["effective"]["consolidation"] == {"mode": "add_each", "k": 5}

    env = cli.server.env()
    with DynamoDBSaver(
        TABLE, region_name="us-east-1", endpoint_url=env["AWS_ENDPOINT_URL"], tenant_key="tenant"
    ) as saver:
        for tenant in ("globex", "acme"):
            config = {"configurable": {"thread_id": "t1", "tenant": tenant}}
            chat_graph(saver).invoke({"messages": [HumanMessage("I prefer green tea.")]}, config)
    # globex's override disables its extraction: its thread stays behind.
    behind = cli.json("extraction", "status", "--tenant", "globex", "--thread", "t1", *table)
    assert [(s["strategy"], s["caught_up"], s["memories"]) for s in behind] == [("facts", False, 0)]
    # serve forms acme's memory in the background, as the stack does.
    for _ in range(240):
        after = cli.json("extraction", "status", "--tenant", "acme", *table)
        if after and after[0]["caught_up"]:
            break
        time.sleep(0.25)
    assert [(s["thread_id"], s["caught_up"], s["memories"]) for s in after] == [("t1", True, 1)]
    again = cli.json("extraction", "replay", "t1", "--tenant", "acme", *table)
    assert again == [
        {"strategy": "facts", "written": 0, "unchanged": 1, "model_calls": 1, "skipped": None}
    ]
    found = cli.json("search", "memories.acme.facts", *table)
    assert [item["value"]["text"] for item in found] == ["User prefers green tea"]
    table_view = cli("extraction", "status", "--tenant", "acme", *table)
    assert table_view.exit_code == 0 and "caught up" in table_view.stdout
