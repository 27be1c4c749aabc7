"""Bad input to `dynamodb-memory extraction ...` and `threads forget`, in-process on the
emulation: each is one line on stderr and a non-zero exit, and nothing is saved; and what
a replay or a forget prints is what it did."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.cli.app import app
from langgraph.store.dynamodb.cli.errors import BAD_INPUT, NOT_FOUND
from langgraph.store.dynamodb.extraction.engine.cursor import Cursors
from langgraph.store.dynamodb.testing import mock_aws
from typer.testing import CliRunner, Result

from tests.checkpoint.graphs import chat_graph
from tests.extraction.conftest import TABLE, TENANT, Tables, open_tables

ENV = {
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "DYNAMODB_MEMORY_TABLE": TABLE,
}
DEFAULT_FACTS = json.dumps({"strategies": [{"kind": "semantic_facts", "name": "facts"}]})


def cli(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), env=ENV)


def one_line_error(result: Result, code: int) -> str:
    assert result.exit_code == code, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    return lines[0]


def said(result: Result) -> str:
    """What a command printed, its lines joined as the terminal wrapped them."""
    assert result.exit_code == 0, result.output
    return " ".join(result.stdout.split())


@pytest.fixture
def tables() -> Iterator[Tables]:
    with mock_aws(), open_tables() as opened:
        yield opened


def test_config_set_refuses_a_template_threads_without_a_tenant_cannot_fill(
    tables: Tables,
) -> None:
    with DynamoDBSaver(TABLE, region_name="us-east-1") as plain:
        turn = {"messages": [HumanMessage("I prefer green tea.")]}
        chat_graph(plain).invoke(turn, {"configurable": {"thread_id": "t1"}})
    before = cli("extraction", "config", "show").stdout
    for tenant in ((), ("--tenant", "")):
        error = one_line_error(cli("extraction", "config", "set", DEFAULT_FACTS, *tenant), 2)
        assert "strategies[0] (facts).namespace: ['memories', '{tenant}', 'facts']" in error
        assert "['memories', 'facts']" in error and "tenant_key" in error
    assert cli("extraction", "config", "show").stdout == before
    fixed = {"kind": "semantic_facts", "name": "facts", "namespace": ["memories", "facts"]}
    assert cli("extraction", "config", "set", json.dumps({"strategies": [fixed]})).exit_code == 0


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000,
        '{"strategies": ' + "[" * 900 + "]" * 900 + "}",
        '{"limits": ' + '{"a": ' * 900 + "1" + "}" * 901,
        '{"strategies": [{"kind": "custom", "name": "c", "namespace": ["m"], '
        '"instructions": "x", "output_schema": {"type": "object", "properties": '
        '{"p": {"type": "string", "x": ' + '{"a": ' * 900 + "1" + "}" * 900 + "}}}}]}",
    ],
    ids=["deeper than JSON", "nested strategies", "nested limits", "nested output schema"],
)
def test_config_set_with_deeply_nested_json_is_one_line(tables: Tables, text: str) -> None:
    one_line_error(cli("extraction", "config", "set", text), BAD_INPUT)


def test_replay_while_a_run_holds_the_thread_is_one_line(tables: Tables) -> None:
    tables.say("t1", "I prefer green tea.")
    now = time.time()
    cursors = Cursors(tables.store.client, TABLE)
    assert cursors.acquire(TENANT, "t1", "facts", "another run", now + 300, now) is not None
    error = one_line_error(cli("extraction", "replay", "t1", "--tenant", TENANT), BAD_INPUT)
    assert "a run holds thread 't1' for facts" in error


def test_replay_says_what_it_did(tables: Tables) -> None:
    tables.say("t1", "I prefer green tea.")
    tables.extractor.run(TENANT, "t1")
    [run] = json.loads(cli("extraction", "replay", "t1", "--tenant", TENANT, "--json").stdout)
    assert run["skipped"] is None and run["model_calls"] >= 1
    memories = "memory" if run["unchanged"] == 1 else "memories"
    calls = "model call" if run["model_calls"] == 1 else "model calls"
    assert said(cli("extraction", "replay", "t1", "--tenant", TENANT)) == (
        f"✓ facts: {run['model_calls']} {calls}, {run['written']} memories written, "
        f"{run['unchanged']} {memories} already known"
    )


def test_threads_forget_of_an_unknown_thread_or_without_its_tenant_is_one_line(
    tables: Tables,
) -> None:
    tables.say("t1", "I prefer green tea.")
    tables.extractor.run(TENANT, "t1")
    unknown = one_line_error(cli("threads", "forget", "t9", "--tenant", TENANT), NOT_FOUND)
    assert "No thread 't9' of tenant 'acme'" in unknown
    no_tenant = one_line_error(cli("threads", "forget", "t1"), NOT_FOUND)
    assert "needs --tenant" in no_tenant
    assert tables.facts() == ["User prefers green tea"]
    assert said(cli("threads", "forget", "t1", "--tenant", TENANT)) == (
        "✓ forgot thread t1 of tenant 'acme': 1 memory only it formed deleted; any memory "
        "it changed is back to its version from another thread"
    )
    assert tables.facts() == []
