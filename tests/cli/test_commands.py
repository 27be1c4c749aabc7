"""Every command against a `serve` subprocess: --json output, tables, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from langgraph.store.dynamodb import AccessDeniedError, NamespaceFullError
from langgraph.store.dynamodb.basestore.vector_index import VectorIndexUnsupportedError
from langgraph.store.dynamodb.cli.errors import ENVIRONMENT, PIPE_CLOSED, explain

from tests.cli.conftest import Cli, Server

NS = "memories.acme-corp.user-8812"
LEXICAL = ("--embed", "lexical")


@pytest.fixture(scope="module")
def table(cli: Cli) -> str:
    """A table set up with a vector index and the worked example's memories."""
    done = cli.json("setup", "--table", "mem", *LEXICAL)
    assert done["vector_indexes"] == ["memory-vectors"]
    for key, text, source in [
        ("mem-1", "Account runs a proxy that closes idle sockets after 60 seconds", "ticket-4471"),
        ("mem-2", "Customer prefers email, asked not to be called by phone", "ticket-4471"),
        ("mem-3", "Uses a custom build of the SDK pinned to version 2.14", "ticket-4502"),
    ]:
        value = json.dumps({"text": text, "source": source, "score": 0.5})
        assert cli.json("put", "--table", "mem", *LEXICAL, NS, key, value)["written"]
    cli.json("put", "--table", "mem", "--no-index", "memories.globex.user-1", "p", '{"seats": 3}')
    cli.json("setup", "--table", "plain")  # key-value only
    return "mem"


def test_serve_says_how_to_connect(server: Server) -> None:
    ready = server.ready
    assert ready["url"].startswith("http://127.0.0.1:")
    assert f"AWS_ENDPOINT_URL={server.url}" in ready["env"]
    assert "AWS_ACCESS_KEY_ID=testing" in ready["env"] and "AWS_DEFAULT_REGION=" in ready["env"]
    assert f'endpoint_url="{server.url}"' in ready["python"]
    assert ready["aws_cli"].startswith(f"aws dynamodb list-tables --endpoint-url {server.url}")


def test_status_reports_the_table_and_index(cli: Cli, table: str) -> None:
    status = cli.json("status", "--table", table, "--exact")
    assert status["status"] == "ACTIVE"
    assert status["vector_indexes"] == [
        {
            "name": "memory-vectors",
            "status": "ACTIVE",
            "backfilling": False,
            "dims": 1024,
            "distance": "COSINE",
            "model": "langgraph.store.dynamodb.testing.embedder.LexicalEmbeddings '' "
            "(1024 dims, normalize=False)",
        }
    ]
    assert status["namespaces"] == 2
    assert status["memories"] == 4 and status["pending_embeddings"] == 0
    assert status["ttl"] == "ENABLED on expires_at"
    human = cli("status", "--table", table)
    assert human.exit_code == 0 and "memory-vectors" in human.stdout and "ACTIVE" in human.stdout


def test_get_ls_search(cli: Cli, table: str) -> None:
    item = cli.json("get", "--table", table, NS, "mem-1")
    assert item["namespace"] == ["memories", "acme-corp", "user-8812"]
    assert item["value"]["score"] == 0.5  # a float stays a float
    assert cli.json("ls", "--table", table) == [
        ["memories", "acme-corp", "user-8812"],
        ["memories", "globex", "user-1"],
    ]
    assert cli.json("ls", "--table", table, "memories", "--depth", "2") == [
        ["memories", "acme-corp"],
        ["memories", "globex"],
    ]
    assert cli.json("ls", "--table", table, "--limit", "1", "--offset", "1") == [
        ["memories", "globex", "user-1"]
    ]
    first = cli("ls", "--table", table, "--limit", "1")
    assert first.stdout.strip() == "memories.acme-corp.user-8812"
    assert "--offset 1 shows the next page" in first.stderr
    hits = cli.json(  # the pinned model embeds the query: no --embed needed
        "search", "--table", table, "memories.acme-corp", "-q",
        "connection drops after a minute of inactivity", "--limit", "2",
    )  # fmt: skip
    assert next(hit["key"] for hit in hits) == "mem-1" and len(hits) == 2
    assert hits[0]["score"] > hits[1]["score"]
    filtered = cli.json(
        "search", "--table", table, "memories", "--filter", '{"source": "ticket-4502"}'
    )
    assert [hit["key"] for hit in filtered] == ["mem-3"]
    table_view = cli("search", "--table", table, *LEXICAL, "memories", "-q", "proxy sockets")
    assert table_view.exit_code == 0 and "score" in table_view.stdout


def test_put_and_rm(cli: Cli, table: str) -> None:
    cli.json("put", "--table", table, "--no-index", "scratch.a", "k", '{"n": 1}')
    assert cli.json("rm", "--table", table, "scratch.a", "k")["deleted"]
    missing = cli("rm", "--table", table, "scratch.a", "k")
    assert missing.exit_code == 1 and "No item 'k'" in missing.stderr
    assert ["scratch", "a"] not in cli.json("ls", "--table", table)


def test_export_then_import_into_another_table(cli: Cli, table: str, tmp_path: Path) -> None:
    dump = tmp_path / "acme.jsonl"
    exported = cli("export", "--table", table, "memories.acme-corp", "-o", str(dump))
    assert exported.exit_code == 0, exported.stderr
    lines = [json.loads(line) for line in dump.read_text().splitlines()]
    assert sorted(line["key"] for line in lines) == ["mem-1", "mem-2", "mem-3"]
    cli.json("setup", "--table", "copy", *LEXICAL)
    assert cli.json("import", "--table", "copy", *LEXICAL, str(dump)) == {
        "imported": 3,
        "expired": 0,
    }
    again = cli.json("get", "--table", "copy", NS, "mem-2")
    assert again["value"] == next(line["value"] for line in lines if line["key"] == "mem-2")
    hits = cli.json("search", "--table", "copy", *LEXICAL, NS, "-q", "idle sockets proxy")
    assert hits[0]["key"] == "mem-1"


TITAN = ("--embed", "bedrock:amazon.titan-embed-text-v2:0")


def test_readme_backup_path_works_on_a_key_value_copy(cli: Cli, table: str, tmp_path: Path) -> None:
    """The README's sequence: `setup --table copy` (no model), `import --embed`, then
    `search -q` on the copy with the model the import pinned."""
    dump = tmp_path / "acme.jsonl"
    assert cli("export", "--table", table, "memories.acme-corp", "-o", str(dump)).exit_code == 0
    assert cli.json("setup", "--table", "backup")["vector_indexes"] == []
    imported = cli("import", str(dump), "--table", "backup", *TITAN)
    assert imported.exit_code == 0, imported.stdout + imported.stderr
    assert "imported 3 memories" in imported.stdout
    assert "adding vector index memory-vectors" in imported.stderr
    hits = cli.json("search", "--table", "backup", NS, "-q", "proxy that closes idle sockets")
    assert hits[0]["key"] == "mem-1"
    assert cli.json("status", "--table", "backup")["vector_indexes"][0]["name"] == "memory-vectors"


def test_semantic_search_without_a_vector_index_names_the_fix(cli: Cli) -> None:
    cli.json("setup", "--table", "kvonly")
    cli.json("put", "--table", "kvonly", NS, "mem-1", '{"text": "proxy closes idle sockets"}')
    refused = cli("search", "--table", "kvonly", *TITAN, NS, "-q", "idle sockets")
    assert refused.exit_code == 2, refused.stdout + refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    fix = "dynamodb-memory setup --table kvonly --embed bedrock:amazon.titan-embed-text-v2:0"
    assert fix in refused.stderr and "dynamodb-memory reindex --table kvonly" in refused.stderr
    cli.json("setup", "--table", "kvonly", *TITAN)  # the fix, as the message words it
    cli.json("reindex", "--table", "kvonly")
    assert cli.json("search", "--table", "kvonly", NS, "-q", "idle sockets")[0]["key"] == "mem-1"


def test_a_failed_export_leaves_the_previous_backup_as_it_was(cli: Cli, tmp_path: Path) -> None:
    backup = tmp_path / "backup.jsonl"
    backup.write_text('{"namespace": ["a"], "key": "k", "value": {}}\n')
    failed = cli("export", "--table", "absent", "-o", str(backup))
    assert failed.exit_code == 3 and "dynamodb-memory setup" in failed.stderr
    assert backup.read_text() == '{"namespace": ["a"], "key": "k", "value": {}}\n'
    assert [path.name for path in tmp_path.iterdir()] == ["backup.jsonl"]


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        (("get", NS, "nope"), 1, "No item 'nope'"),
        (("status", "--table", "absent"), 3, "`dynamodb-memory setup --table absent`"),
        (("get", "--table", "absent", NS, "k"), 3, "`dynamodb-memory setup --table absent`"),
        (("search", "--table", "absent", NS, "-q", "x", *LEXICAL), 3, "setup --table absent"),
        (("put", NS, "k", "{not json"), 2, "Not valid JSON"),
        (("put", NS, "k", "[1, 2]"), 2, "must be a JSON object"),
        (("put", NS, "k", "[" * 100_000), 2, "nested too deeply"),
        (("search", "memories", "--filter", "[" * 100_000), 2, "nested too deeply"),
        (("setup", "--embed", "lexical", "--dims", "0"), 2, "--dims"),
        (("setup", "--embed", "lexical", "--dims", "-8"), 2, "--dims"),
        (("setup", "--embed", "lexical", "--dims", "5000"), 2, "--dims"),
        (("search", "memories", "--filter", "{oops"), 2, "Not valid JSON"),
        (("get", "memories..x", "k"), 2, "label"),
        (("search", "--table", "plain", "memories", "-q", "anything"), 2, "--embed"),
        (("import", "/nonexistent/file.jsonl"), 2, "No such file"),
        (
            ("export", "-o", "/nonexistent/out.jsonl"),
            2,
            "No such file or directory: /nonexistent/out.jsonl",
        ),
        (("status", "--profile", "no-such-profile"), 3, "no-such-profile"),
    ],
)
def test_user_errors_exit_non_zero_without_traceback(
    cli: Cli, table: str, args: tuple[str, ...], code: int, says: str
) -> None:
    result = cli(*args, env={"DYNAMODB_MEMORY_TABLE": table})
    assert result.exit_code == code, result.stdout + result.stderr
    assert says in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def test_missing_credentials_and_region_are_explained(cli: Cli, tmp_path: Path) -> None:
    nowhere = str(tmp_path / "none")
    no_credentials = {
        "AWS_ACCESS_KEY_ID": "",
        "AWS_SECRET_ACCESS_KEY": "",
        "AWS_SESSION_TOKEN": "",
        "AWS_SHARED_CREDENTIALS_FILE": nowhere,
        "AWS_CONFIG_FILE": nowhere,
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    result = cli("status", env=no_credentials)
    assert result.exit_code == 3 and "No AWS credentials" in result.stderr
    result = cli("status", env={"AWS_DEFAULT_REGION": "", "AWS_CONFIG_FILE": nowhere})
    assert result.exit_code == 3 and "No AWS region" in result.stderr


def test_a_denied_request_is_explained_as_a_missing_permission() -> None:
    denied = AccessDeniedError("AWS denied dynamodb:PutItem on the store's table 'mem'.")
    assert explain(denied) == (str(denied), ENVIRONMENT)  # not as a file error


@pytest.mark.parametrize(
    "error",
    [
        NamespaceFullError("Namespace ('t', 'u') is full: delete memories or spread them."),
        VectorIndexUnsupportedError("This endpoint accepts vector indexes but drops them."),
    ],
)
def test_what_the_aws_side_refuses_is_one_line_with_exit_3(error: Exception) -> None:
    assert explain(error) == (str(error), ENVIRONMENT)


def test_an_export_piped_into_a_reader_that_stops_early_ends_quietly(
    cli: Cli, server: Server, tmp_path: Path
) -> None:
    lines = tmp_path / "many.jsonl"
    big = {"text": "x" * 3_000}
    lines.write_text(
        "".join(
            json.dumps({"namespace": ["p"], "key": f"k{i}", "value": big}) + "\n"
            for i in range(100)
        )
    )
    cli.json("setup", "--table", "piped")
    assert cli.json("import", "--table", "piped", str(lines))["imported"] == 100
    export = subprocess.Popen(
        [str(Path(sys.executable).parent / "dynamodb-memory"), "export", "--table", "piped"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, **server.env()},
    )  # fmt: skip
    assert export.stdout is not None and export.stderr is not None
    assert export.stdout.read(100).startswith(b'{"namespace": ["p"]')
    export.stdout.close()  # as `| head -c 100` does
    assert export.wait(timeout=60) == PIPE_CLOSED
    assert export.stderr.read() == b""


def test_console_script_and_module_run_without_traceback(server: Server) -> None:
    env = {**os.environ, **server.env()}
    script = Path(sys.executable).parent / "dynamodb-memory"
    for command in ([str(script)], [sys.executable, "-m", "langgraph.store.dynamodb"]):
        done = subprocess.run(
            [*command, "get", "--table", "absent", NS, "k"],
            capture_output=True, text=True, env=env, timeout=60,
        )  # fmt: skip
        assert done.returncode == 3
        assert "dynamodb-memory setup" in done.stderr and "Traceback" not in done.stderr
