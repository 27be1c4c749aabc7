"""`reindex` backfills what was written before the index; `serve` embeds stream-mode
writes in the background."""

from __future__ import annotations

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
