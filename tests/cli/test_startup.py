"""The command line starts without the library: `--help` and `--version` load Typer and
Rich alone (how long that takes: bench/cli_startup.py), and the commands it loads only
when they run are listed by the summaries their own help starts with."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from langgraph.store.dynamodb.cli.app import LAZY, loaded

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


@pytest.mark.parametrize("args", [["--help"], ["--version"]])
def test_help_and_version_load_none_of_the_library(args: list[str]) -> None:
    ran = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args)], capture_output=True, text=True, check=True
    )
    modules = set(json.loads(ran.stdout.splitlines()[-1]))
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))


@pytest.mark.parametrize("name", list(LAZY))
def test_a_lazy_command_is_listed_by_its_own_summary(name: str) -> None:
    command = loaded(name)
    assert " ".join((command.help or "").split("\n\n")[0].split()) == LAZY[name].summary
