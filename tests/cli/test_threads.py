"""`dynamodb-memory threads ...`: the checkpointer's threads listed, shown, deleted,
exported and imported byte for byte (binary and chunked values included)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import CheckpointTuple, empty_checkpoint
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.cli.thread_transfer import (
    ImportedThreads,
    export_threads,
    import_threads,
)
from langgraph.store.dynamodb.testing import mock_aws

from tests.cli.conftest import Cli, Server

BIG = bytes(range(256)) * 5_000  # 1.28 MB: over DynamoDB's 400 KB item limit, so chunked
SMALL = b"\x00\xffbinary\x80"


def put(
    saver: DynamoDBSaver,
    config: RunnableConfig,
    values: dict[str, Any],
    metadata: dict[str, Any] | None = None,
) -> RunnableConfig:
    """One checkpoint holding `values` (every channel new), after `config`'s."""
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = values
    versions = {name: saver.get_next_version(None, None) for name in values}
    checkpoint["channel_versions"] = versions
    return saver.put(config, checkpoint, {"step": 0, **(metadata or {})}, versions)


def write_thread(saver: DynamoDBSaver, thread_id: str, **extra: str) -> RunnableConfig:
    """A thread of two checkpoints: a 1.28 MB bytes value, then small binary values with
    two pending writes (one of them binary)."""
    config: RunnableConfig = {"configurable": {"thread_id": thread_id, **extra}}
    first = put(saver, config, {"blob": BIG, "text": "héllo"}, {"source": "input"})
    second = put(saver, first, {"blob": SMALL, "n": 7}, {"source": "loop", "step": 1})
    saver.put_writes(second, [("blob", SMALL), ("text", "pending")], task_id="task-1")
    return second


def history(saver: DynamoDBSaver, thread_id: str, **extra: str) -> list[CheckpointTuple]:
    return list(saver.list({"configurable": {"thread_id": thread_id, **extra}}))


@pytest.fixture
def emulation() -> Iterator[None]:
    with mock_aws():
        yield


def test_export_then_import_restores_binary_and_chunked_threads_exactly(emulation: None) -> None:
    with (
        DynamoDBSaver.from_table("source", region_name="us-east-1", setup=True) as source,
        DynamoDBSaver.from_table("copy", region_name="us-east-1", setup=True) as copy,
    ):
        write_thread(source, "t1")
        out = io.StringIO()
        rows = export_threads(source, "", ["t1"], out)
        assert rows == len(source.thread_rows("t1")) > 5  # chunk rows are rows of their own
        assert all(len(line) < 1_000_000 for line in out.getvalue().splitlines())
        done = import_threads(lambda tenant: copy, io.StringIO(out.getvalue()))
        assert done == ImportedThreads(threads=1, rows=rows)
        config: RunnableConfig = {"configurable": {"thread_id": "t1"}}
        restored = copy.get_tuple(config)
        assert restored == source.get_tuple(config)
        assert restored is not None and restored.checkpoint["channel_values"]["blob"] == SMALL
        assert history(copy, "t1") == history(source, "t1")
        oldest = history(copy, "t1")[-1]
        assert oldest.checkpoint["channel_values"]["blob"] == BIG  # byte for byte
        assert copy.thread_rows("t1") == source.thread_rows("t1")
        assert copy.threads() == ["t1"]  # the registry row is derived on import


def test_a_file_holding_rows_twice_imports_and_imports_again(emulation: None) -> None:
    """A row written twice in one file (two exports concatenated, or a line repeated) is
    one row: BatchWriteItem refuses duplicate keys in one request."""
    with (
        DynamoDBSaver.from_table("source", region_name="us-east-1", setup=True) as source,
        DynamoDBSaver.from_table("copy", region_name="us-east-1", setup=True) as copy,
    ):
        write_thread(source, "t1")
        out = io.StringIO()
        rows = export_threads(source, "", ["t1"], out)
        lines = out.getvalue().splitlines()
        doubled = "\n".join(lines + lines[:3] + lines) + "\n"
        for _ in range(2):
            import_threads(lambda tenant: copy, io.StringIO(doubled))
            assert copy.thread_rows("t1") == source.thread_rows("t1")
            assert len(copy.thread_rows("t1")) == rows
        assert history(copy, "t1") == history(source, "t1")


def test_a_tenant_thread_comes_back_under_its_tenant(emulation: None) -> None:
    kwargs: dict[str, Any] = {"region_name": "us-east-1", "tenant_key": "org", "setup": True}
    with (
        DynamoDBSaver.from_table("source", **kwargs) as source,
        DynamoDBSaver.from_table("copy", **kwargs) as copy,
    ):
        write_thread(source, "t1", org="acme")
        write_thread(source, "t1", org="globex")
        out = io.StringIO()
        export_threads(source.for_tenant("acme"), "acme", ["t1"], out)
        assert {json.loads(line)["tenant"] for line in out.getvalue().splitlines()} == {"acme"}
        import_threads(lambda tenant: copy.for_tenant(tenant or ""), io.StringIO(out.getvalue()))
        assert history(copy, "t1", org="acme") == history(source, "t1", org="acme")
        assert copy.for_tenant("globex").threads() == []


def test_an_import_checks_every_line_before_writing(emulation: None) -> None:
    with (
        DynamoDBSaver.from_table("source", region_name="us-east-1", setup=True) as source,
        DynamoDBSaver.from_table("copy", region_name="us-east-1", setup=True) as copy,
    ):
        write_thread(source, "t1")
        out = io.StringIO()
        export_threads(source, "", ["t1"], out)
        lines = out.getvalue().splitlines()
        moved = json.loads(lines[-1])
        moved["thread_id"] = "elsewhere"  # a row whose key is another thread's
        for bad, problem in [
            ("not json", "not JSON"),
            (json.dumps({**moved, "thread_id": "t1", "extra": 1}), "the fields must be"),
            (json.dumps(moved), "not thread 'elsewhere'"),
        ]:
            source_text = "\n".join([*lines, bad]) + "\n"
            with pytest.raises(ValueError, match=f"Line {len(lines) + 1} .*{problem}"):
                import_threads(lambda tenant: copy, io.StringIO(source_text))
            assert copy.thread_rows("t1") == [] and copy.threads() == []


# The commands, against a serve subprocess.


@pytest.fixture(scope="module")
def threads_table(server: Server) -> str:
    """A table with threads t1 and t2 (no tenant) and t1 of tenant acme."""
    kwargs: dict[str, Any] = {"region_name": "us-east-1", "endpoint_url": server.url}
    with DynamoDBSaver("threads", **kwargs) as saver:
        saver.setup()
        write_thread(saver, "t1")
        put(saver, {"configurable": {"thread_id": "t2"}}, {"text": "short"})
    with DynamoDBSaver("threads", tenant_key="org", **kwargs) as saver:
        write_thread(saver, "t1", org="acme")
    return "threads"


def test_ls_lists_a_tenants_threads_a_page_at_a_time(cli: Cli, threads_table: str) -> None:
    assert cli.json("threads", "ls", "--table", threads_table) == ["t1", "t2"]
    assert cli.json("threads", "ls", "--table", threads_table, "--tenant", "acme") == ["t1"]
    assert cli.json("threads", "ls", "--table", threads_table, "--tenant", "none") == []
    page = cli("threads", "ls", "--table", threads_table, "--limit", "1")
    assert page.exit_code == 0 and page.stdout == "t1\n"
    assert "--offset 1 shows the next page" in page.stderr
    rest = cli("threads", "ls", "--table", threads_table, "--limit", "1", "--offset", "1")
    assert rest.stdout == "t2\n" and "next page" not in rest.stderr


def test_show_summarizes_the_latest_checkpoint(cli: Cli, threads_table: str) -> None:
    info = cli.json("threads", "show", "--table", threads_table, "t1")
    assert info["metadata"] == {"source": "loop", "step": 1}
    assert info["pending_writes"] == 2 and info["history"] == 2
    channels = {c["name"]: c for c in info["channels"]}
    assert set(channels) == {"blob", "n"}  # the latest checkpoint's versions
    assert channels["blob"]["type"] == "bytes" and channels["blob"]["bytes"] == len(SMALL)
    assert info["parent_checkpoint_id"] is not None
    first = cli.json("threads", "show", "--table", threads_table, "t2")
    assert first["parent_checkpoint_id"] is None and first["history"] == 1
    table = cli("threads", "show", "--table", threads_table, "t1")
    assert table.exit_code == 0, table.output
    assert "Thread t1" in table.stdout and "2 checkpoint(s)" in table.stdout
    assert '"source": "loop"' in table.stdout and "pending writes │ 2" in table.stdout
    tenant = cli.json("threads", "show", "--table", threads_table, "t1", "--tenant", "acme")
    assert tenant["history"] == 2


def test_show_of_a_missing_thread_exits_1_and_hints_at_tenants(
    cli: Cli, threads_table: str
) -> None:
    missing = cli("threads", "show", "--table", threads_table, "nope")
    assert missing.exit_code == 1
    assert "No thread 'nope' in threads" in missing.stderr and "--tenant" in missing.stderr
    other_ns = cli("threads", "show", "--table", threads_table, "t1", "--checkpoint-ns", "sub")
    assert other_ns.exit_code == 1


def test_export_import_round_trips_through_the_command_line(
    cli: Cli, server: Server, threads_table: str, tmp_path: Path
) -> None:
    dump = tmp_path / "threads.jsonl"
    done = cli("threads", "export", "--table", threads_table, "-o", str(dump))
    assert done.exit_code == 0, done.output
    assert "exported 2 thread(s)" in done.stderr
    cli.json("setup", "--table", "restored")
    imported = cli.json("threads", "import", "--table", "restored", str(dump))
    assert imported["threads"] == 2 and imported["rows"] == len(dump.read_text().splitlines())
    kwargs: dict[str, Any] = {"region_name": "us-east-1", "endpoint_url": server.url}
    with (
        DynamoDBSaver("threads", **kwargs) as source,
        DynamoDBSaver("restored", **kwargs) as copy,
    ):
        for thread_id in ("t1", "t2"):
            assert history(copy, thread_id) == history(source, thread_id)
    missing = cli("threads", "export", "--table", threads_table, "nope", "-o", str(dump))
    assert missing.exit_code == 1 and "No thread 'nope'" in missing.stderr
    assert imported["rows"] == len(dump.read_text().splitlines())  # left as it was


def test_importing_a_thread_export_as_memories_says_which_command(
    cli: Cli, threads_table: str, tmp_path: Path
) -> None:
    dump = tmp_path / "t2.jsonl"
    assert cli("threads", "export", "--table", threads_table, "t2", "-o", str(dump)).exit_code == 0
    wrong = cli("import", "--table", threads_table, str(dump))
    assert wrong.exit_code == 2 and "dynamodb-memory threads import" in wrong.stderr


def test_rm_asks_first_then_deletes_every_row(
    cli: Cli, server: Server, threads_table: str, tmp_path: Path
) -> None:
    kwargs: dict[str, Any] = {"region_name": "us-east-1", "endpoint_url": server.url}
    with DynamoDBSaver(threads_table, **kwargs) as saver:
        write_thread(saver, "doomed")
        declined = cli("threads", "rm", "--table", threads_table, "doomed", input="n\n")
        assert declined.exit_code == 4 and "Delete thread 'doomed' (2 checkpoint(s))?" in (
            declined.output
        )
        assert saver.count_checkpoints("doomed") == 2
        deleted = cli.json("threads", "rm", "--table", threads_table, "doomed", "--yes")
        assert deleted == {
            "thread_id": "doomed",
            "tenant": None,
            "checkpoints": 2,
            "deleted": True,
        }
        assert saver.thread_rows("doomed") == [] and "doomed" not in saver.threads()
    again = cli("threads", "rm", "--table", threads_table, "doomed", "--yes")
    assert again.exit_code == 1 and "No thread 'doomed'" in again.stderr


def test_threads_on_a_missing_table_say_to_run_setup(cli: Cli) -> None:
    missing = cli("threads", "ls", "--table", "never-created")
    assert missing.exit_code == 3 and "dynamodb-memory setup --table never-created" in (
        missing.stderr
    )
