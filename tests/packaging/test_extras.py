"""Dependencies follow the layers: a plain install brings what the store and the saver
need; the command line's and the Lambda's own libraries are extras, and the command says
how to install its extra when it is missing."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys

from langgraph.store.dynamodb.cli import INSTALL
from packaging.requirements import Requirement

from infra.bundling import runtime_requirements

# Runs the command line as if the `cli` extra were not installed.
WITHOUT_TYPER = """
import runpy, sys
sys.modules["typer"] = None
sys.argv = ["dynamodb-memory", "status"]
runpy.run_module("langgraph.store.dynamodb", run_name="__main__")
"""


def plain_requirements() -> set[str]:
    return {
        Requirement(r).name
        for r in importlib.metadata.requires("langgraph-dynamodb-memory") or []
        if "extra" not in str(Requirement(r).marker or "")
    }


def test_a_plain_install_brings_neither_the_cli_nor_the_tracer() -> None:
    plain = plain_requirements()
    assert {"langgraph", "langgraph-checkpoint", "boto3", "langchain-aws"} <= plain
    assert not {"typer", "rich", "aws-xray-sdk", "moto"} & plain
    assert not [
        r
        for r in importlib.metadata.requires("langgraph-dynamodb-memory") or []
        if "[tracer]" in r and "extra" not in r
    ]


def test_the_lambda_asset_installs_the_lambda_extra_and_not_the_cli() -> None:
    names = {Requirement(r).name for r in runtime_requirements()}
    assert "aws-lambda-powertools" in names and not {"typer", "rich"} & names
    assert any("[tracer]" in r for r in runtime_requirements())


def test_the_command_without_its_extra_prints_the_install_line() -> None:
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_TYPER], capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"dynamodb-memory needs its command-line extra: {INSTALL}"
    ]
