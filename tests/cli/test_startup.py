"""The command line starts without the library: `--help` and `--version` load Typer and
Rich alone (how long that takes: bench/cli_startup.py), the commands it loads only when
they run are listed by the summaries their own help starts with, and `ls` lists from the
namespace registry without the store, LangGraph's base and langchain_core."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from langgraph.store.dynamodb.cli.app import LAZY, loaded

from tests.cli.conftest import Cli, Server

# What a command loads when it runs, and `--help` must not.
HEAVY = ("langchain_core", "langsmith", "boto3", "langgraph.store.base", "pydantic")
PROBE = """
import json, sys
from langgraph.store.dynamodb.cli import main
sys.argv = ["dynamodb-memory", *json.loads(sys.argv[1])]
try:
    main()
except SystemExit:
    pass
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules} | set(sys.modules))))
"""


# What `ls` must not load: the store and what it imports (LangGraph's base imports
# langchain_core, about 0.3 s of CPU).
STORE = (
    "langchain_core",
    "langsmith",
    "langgraph.store.base",
    "langgraph.store.dynamodb.basestore.store",
    "langgraph.store.dynamodb.embedders.build",
    "langgraph.store.dynamodb.extraction",
)


def probe(args: list[str], env: dict[str, str] | None = None) -> tuple[str, set[str]]:
    """Run the command line with `args` in a fresh interpreter: its output (the last line,
    the modules it loaded, removed) and those modules."""
    ran = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args)],
        capture_output=True,
        text=True,
        check=True,
        env=None if env is None else {**os.environ, **env},
    )
    *output, modules = ran.stdout.splitlines()
    return "\n".join(output), set(json.loads(modules))


@pytest.mark.parametrize("args", [["--help"], ["--version"]])
def test_help_and_version_load_none_of_the_library(args: list[str]) -> None:
    _, modules = probe(args)
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))


def test_ls_lists_without_the_store(cli: Cli, server: Server) -> None:
    """`ls` reads the registry as the store does (prefix with `*`, depth, paging, expired
    items hidden) and loads neither the store nor langchain_core."""
    cli.json("setup", "--table", "startup")
    for namespace in ("memories.acme.u1", "memories.acme.u2", "memories.globex.u1", "notes.x"):
        cli.json("put", "--table", "startup", namespace, "k", '{"text": "hi"}')
    cli.json("put", "--table", "startup", "memories.initech.u1", "k", "{}", "--ttl", "0.0001")
    time.sleep(1.1)  # its item expired (expiries are whole seconds): ls omits the namespace
    listed, modules = probe(["ls", "--table", "startup", "--json"], server.env())
    assert not modules & set(STORE), sorted(modules & set(STORE))
    assert json.loads(listed) == [
        ["memories", "acme", "u1"],
        ["memories", "acme", "u2"],
        ["memories", "globex", "u1"],
        ["notes", "x"],
    ]
    pages = [
        (["memories.*.u1"], [["memories", "acme", "u1"], ["memories", "globex", "u1"]]),
        (["memories", "--depth", "2"], [["memories", "acme"], ["memories", "globex"]]),
        (["--limit", "1", "--offset", "2"], [["memories", "globex", "u1"]]),
    ]
    for args, expected in pages:
        assert cli.json("ls", "--table", "startup", *args) == expected, args


def test_ls_refuses_an_empty_label_as_langgraph_does(cli: Cli) -> None:
    refused = cli("ls", "--table", "startup", "memories..u1")
    assert refused.exit_code == 2 and "cannot be empty" in refused.stderr, refused.stderr


@pytest.mark.parametrize("name", list(LAZY))
def test_a_lazy_command_is_listed_by_its_own_summary(name: str) -> None:
    command = loaded(name)
    assert " ".join((command.help or "").split("\n\n")[0].split()) == LAZY[name].summary
