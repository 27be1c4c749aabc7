"""A table for the inspector: tenant `memories.acme` whose user u1 has memories formed from
three conversations (a supersede chain, hostile text quoted from a thread), hostile memories
written directly (script tags, attribute breakers, a very long and a right-to-left text, a
hostile namespace label), and tenant `memories.globex` whose rows acme's pages must never
show; a usage log of both."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from langgraph.store.dynamodb.cli.target import Target
from langgraph.store.dynamodb.cli.ui.app import Tokens, create_app
from langgraph.store.dynamodb.cli.ui.inspector import Inspector
from langgraph.store.dynamodb.extraction import NearestConsolidator
from langgraph.store.dynamodb.testing import mock_aws
from starlette.testclient import TestClient

from tests.extraction.conftest import TABLE, Tables, open_tables

SCRIPT = "<script>window.__pwned = 1</script>"
BREAKER = '"\'><img src=x onerror="window.__pwned=2">'
HOSTILE = f"{SCRIPT}{BREAKER}"
RTL = "\u202e\u05d4\u05d6\u05d9\u05db\u05e8\u05d5\u05df \u05e9\u05dc \u202c \u0639\u0631\u0628\u0649"  # RLO, Hebrew, PDF, Arabic
LONG = "A" * 20_000
HOSTILE_LABEL = "<b>u2</b>\"'"
SECRET = "Globex launches Project Nightingale in May"
ACME = ("memories", "acme")
USER = ("memories", "acme", "u1", "facts")


@dataclass
class World:
    tables: Tables
    usage_log: Path

    def inspector(self) -> Inspector:
        return Inspector(Target.of(table=TABLE), usage_log=self.usage_log)

    def client(self, *, allow_actions: bool = False, tokens: Tokens | None = None) -> TestClient:
        app = create_app(self.inspector(), allow_actions=allow_actions, tokens=tokens)
        return TestClient(app, base_url="http://127.0.0.1")


def build(tables: Tables, usage_log: Path) -> World:
    """The memories and threads of the module docstring."""
    tables.say("t1", "My city is Oslo.")
    tables.extractor.run("acme", "t1")
    tables.say("t2", "Actually, my city is Bergen. I like jazz.")
    tables.extractor.run("acme", "t2")
    tables.say("t3", f"My nickname is {HOSTILE}.")
    tables.extractor.run("acme", "t3")
    tables.say("g1", f"My project is {SECRET}.", user="u9", tenant="globex")
    tables.extractor.run("globex", "g1")
    store = tables.store
    store.put(("memories", "acme", "u1", "notes"), "hostile", {"text": HOSTILE})
    store.put(("memories", "acme", "u1", "notes"), "rtl", {"text": RTL})
    store.put(("memories", "acme", "u1", "notes"), "long", {"text": LONG})
    store.put(
        ("memories", "acme", HOSTILE_LABEL),
        BREAKER,
        {"text": "under a hostile label", "provenance": {"strategy": HOSTILE, "model": BREAKER}},
    )
    store.put(("memories", "globex", "u9", "notes"), "secret", {"text": SECRET})
    records = [
        {
            "message": "usage",
            "tenant": "memories.acme",
            "operation": "PutItem",
            "at": 1767225600.0 + i * 86400,
            "read_units": 0,
            "write_units": 2.0 * (i + 1),
            "input_tokens": 0,
            "output_tokens": 0,
        }
        for i in range(3)
    ] + [
        {
            "message": "usage",
            "tenant": ".threads.acme",
            "operation": "Converse",
            "at": 1767225600.0,
            "input_tokens": 120,
            "output_tokens": 30,
        },
        {
            "message": "usage",
            "tenant": "memories.globex",
            "operation": "Query",
            "at": 1767225600.0,
            "read_units": 999.0,
        },
        "not json",
    ]
    usage_log.write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n"
    )
    return World(tables, usage_log)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with mock_aws(), open_tables(consolidator=NearestConsolidator()) as tables:
        yield build(tables, tmp_path / "usage.jsonl")
