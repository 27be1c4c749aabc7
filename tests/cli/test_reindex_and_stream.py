"""`reindex` backfills what was written before the index; `serve` embeds stream-mode
writes in the background."""

from __future__ import annotations

import json
import time

from tests.cli.conftest import Cli

NS = "memories.acme.u1"


def test_reindex_embeds_items_written_before_the_index(cli: Cli) -> None:
    cli.json("setup", "--table", "retro")  # key-value only: puts store no vectors
    for key, text in [("a", "proxy closes idle sockets"), ("b", "prefers email"), ("c", "sdk")]:
        cli.json("put", "--table", "retro", NS, key, f'{{"text": "{text}"}}')
    cli.json("setup", "--table", "retro", "--embed", "lexical", "--fields", "text")
    before = cli.json("search", "--table", "retro", NS, "-q", "idle sockets")
    assert before == []  # nothing has a vector yet
    done = cli.json("reindex", "--table", "retro")
    assert (done["scanned"], done["embedded"], done["failed"]) == (3, 3, 0)
    hits = cli.json("search", "--table", "retro", NS, "-q", "idle sockets")
    assert hits[0]["key"] == "a"
    again = cli.json("reindex", "--table", "retro")
    assert (again["embedded"], again["skipped"]) == (0, 3)
    human = cli("reindex", "--table", "retro")
    assert human.exit_code == 0 and "Reindexed retro" in human.stdout


def test_reindex_with_items_that_fail_to_embed_exits_3(cli: Cli) -> None:
    cli.json("setup", "--table", "toolong")
    # Only `text` is embedded (the pinned fields): the long `notes` never reach the model.
    fine = {"text": "short", "notes": "y " * 30_000}
    cli.json("put", "--table", "toolong", NS, "fine", json.dumps(fine))
    cli.json("put", "--table", "toolong", NS, "huge", json.dumps({"text": "x " * 30_000}))
    titan = "bedrock:amazon.titan-embed-text-v2:0"
    cli.json("setup", "--table", "toolong", "--embed", titan, "--fields", "text")
    result = cli("reindex", "--table", "toolong")
    assert result.exit_code == 3, result.stdout + result.stderr
    assert "1 embedded" in result.stdout and "1 failed" in result.stdout and "✗" in result.stdout
    assert "huge" in result.stderr and "maxLength: 50000" in result.stderr
    assert "run reindex again" in result.stderr


def test_reindex_needs_a_model(cli: Cli) -> None:
    cli.json("setup", "--table", "kv")
    result = cli("reindex", "--table", "kv")
    assert result.exit_code == 2 and "--embed" in result.stderr


def test_serve_embeds_stream_mode_writes_in_the_background(cli: Cli) -> None:
    stream = {"DYNAMODB_MEMORY_EMBED_ON": "stream", "DYNAMODB_MEMORY_FIELDS": "text"}
    assert cli("setup", "--table", "bg", "--embed", "lexical", env=stream).exit_code == 0
    put = cli("put", "--table", "bg", NS, "m", '{"text": "idle sockets"}', env=stream)
    assert put.exit_code == 0, put.stderr
    deadline = time.monotonic() + 30
    while cli.json("status", "--table", "bg", "--exact")["pending_embeddings"]:
        assert time.monotonic() < deadline, "serve's stream consumer never embedded the put"
        time.sleep(0.2)
    assert cli.json("search", "--table", "bg", NS, "-q", "idle sockets")[0]["key"] == "m"
