"""The command line as a new user meets it, in-process on the emulation: a declined
confirmation, thread storage in `usage`, a missing checkpoint namespace, whole help
texts, and one-line errors for bad endpoints and prefixes."""

from __future__ import annotations

import importlib.metadata
import json
from collections.abc import Iterator
from typing import Any

import pytest
import typer.main
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.cli.app import DISTRIBUTION, app
from langgraph.store.dynamodb.testing import mock_aws
from typer.testing import CliRunner, Result

from tests.cli.test_threads import write_thread

TABLE = "front-door"
DECLINED = 4  # README: "4 a confirmation declined"
ENV = {
    "DYNAMODB_MEMORY_TABLE": TABLE,
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
}


def run(*args: str, answer: str | None = None) -> Result:
    return CliRunner().invoke(app, list(args), env=ENV, input=answer)


@pytest.fixture
def saver() -> Iterator[DynamoDBSaver]:
    with mock_aws(), DynamoDBSaver(TABLE, region_name="us-east-1") as saver:
        saver.setup()
        yield saver


@pytest.mark.parametrize("answer", ["n\n", "", "maybe\nno\n"])
def test_declining_threads_rm_exits_with_the_documented_code(
    saver: DynamoDBSaver, answer: str
) -> None:
    write_thread(saver, "kept")
    declined = run("threads", "rm", "kept", answer=answer)
    assert declined.exit_code == DECLINED, declined.output
    assert "Not confirmed: nothing was deleted." in declined.stderr
    assert saver.count_checkpoints("kept") == 2


@pytest.mark.parametrize(
    ("args", "answer"),
    [(("purge", "memories.acme"), "n\n"), (("purge", "--all-tenants"), "wrong-name\n")],
)
def test_declining_purge_exits_with_the_same_code(
    saver: DynamoDBSaver, args: tuple[str, ...], answer: str
) -> None:
    store = DynamoDBStore(TABLE, region_name="us-east-1")
    store.put(("memories", "acme", "u1"), "k", {"text": "kept"})
    declined = run(*args, answer=answer)
    assert declined.exit_code == DECLINED, declined.output
    assert "Not confirmed: nothing was deleted." in declined.stderr
    assert store.get(("memories", "acme", "u1"), "k") is not None


# A help listing at 80 columns leaves a command this many characters (click: the width,
# less 6, less the longest command name of its group); longer summaries end in "...".
TERMINAL_COLUMNS = 80


def _commands() -> list[tuple[tuple[str, ...], int]]:
    """Every command and group of the CLI, with the width its listing leaves it."""
    found: list[tuple[tuple[str, ...], int]] = [((), TERMINAL_COLUMNS)]

    def walk(group: Any, path: tuple[str, ...]) -> None:
        names = group.list_commands(CONTEXT)
        width = TERMINAL_COLUMNS - 6 - max(len(name) for name in names)
        for name in names:
            found.append(((*path, name), width))
            if hasattr(group.get_command(CONTEXT, name), "commands"):  # a group
                walk(group.get_command(CONTEXT, name), (*path, name))

    walk(ROOT, ())
    return found


ROOT: Any = typer.main.get_command(app)
CONTEXT = typer.Context(ROOT)


def _command(path: tuple[str, ...]) -> Any:
    command = ROOT
    for name in path:
        command = command.get_command(CONTEXT, name)
    return command


@pytest.mark.parametrize(
    ("path", "width"),
    [pytest.param(path, width, id=" ".join(path) or "(root)") for path, width in _commands()],
)
def test_every_help_summary_is_a_whole_sentence(path: tuple[str, ...], width: int) -> None:
    """The first paragraph of a command's help is what a listing shows: one sentence that
    fits an 80-column listing, so neither Rich nor plain click cuts it mid-sentence; the
    command's own --help shows it and the rest."""
    command = _command(path)
    first = " ".join((command.help or "").split("\n\n")[0].split())
    assert first.endswith(".") and first.count(". ") == 0, first
    assert command.get_short_help_str(width) == first
    for use_rich in ("1", "0"):
        shown = CliRunner().invoke(
            app, [*path, "--help"], env={"TYPER_USE_RICH": use_rich, "COLUMNS": "80"}
        )
        assert shown.exit_code == 0, shown.output
        assert first in " ".join(shown.output.replace("│", " ").split())


def test_usage_counts_each_tenants_threads(saver: DynamoDBSaver) -> None:
    """A new user's saver writes threads; `usage` shows them beside the memories, per
    thread tenant, counted from the thread registry (no Scan)."""
    DynamoDBStore(TABLE, region_name="us-east-1").put(("memories", "acme", "u1"), "k", {"a": 1})
    write_thread(saver, "plain")  # a saver without a tenant key; 1.28 MB, chunked
    with DynamoDBSaver(TABLE, region_name="us-east-1", tenant_key="tenant") as tenanted:
        write_thread(tenanted, "t-1", tenant="acme")
        write_thread(tenanted, "t-2", tenant="acme")
        write_thread(tenanted, "other", tenant="globex")
    shown = run("usage", "--threads-tenant", "acme", "--json")
    assert shown.exit_code == 0, shown.output
    by_tenant = {row["tenant"]: row for row in json.loads(shown.stdout)}
    assert set(by_tenant) == {"memories.acme", ".threads.", ".threads.acme"}
    assert by_tenant["memories.acme"]["items"] == 1
    assert by_tenant["memories.acme"]["threads"] == 0
    plain, acme = by_tenant[".threads."], by_tenant[".threads.acme"]
    assert (plain["threads"], plain["checkpoints"]) == (1, 2)
    assert (acme["threads"], acme["checkpoints"], acme["items"]) == (2, 4, 0)
    assert 2 * 1_280_000 < acme["approx_bytes"] < 2 * 1_280_000 + 4 * 8192
    only = json.loads(run("usage", "memories", "--threads-tenant", "globex", "--json").stdout)
    assert [(row["tenant"], row["threads"]) for row in only] == [
        ("memories.acme", 0),
        (".threads.globex", 1),
    ]
    table = run("usage", "--threads-tenant", "acme")
    assert table.exit_code == 0 and ".threads.acme" in table.stdout


def test_threads_show_tells_a_missing_namespace_from_a_missing_thread(
    saver: DynamoDBSaver,
) -> None:
    write_thread(saver, "t1")
    assert run("threads", "show", "t1", "--json").exit_code == 0
    no_namespace = run("threads", "show", "t1", "--checkpoint-ns", "child:1")
    assert no_namespace.exit_code == 1
    assert no_namespace.stderr.count("\n") == 1
    assert "Thread 't1' has 2 checkpoint(s), none in checkpoint namespace 'child:1'" in (
        " ".join(no_namespace.stderr.split())
    )
    no_thread = run("threads", "show", "t2", "--checkpoint-ns", "child:1")
    assert no_thread.exit_code == 1 and "No thread 't2'" in no_thread.stderr


def test_version_prints_the_installed_distributions() -> None:
    shown = CliRunner().invoke(app, ["--version"])
    assert shown.exit_code == 0, shown.output
    assert shown.output == f"dynamodb-memory {importlib.metadata.version(DISTRIBUTION)}\n"


def test_help_paragraphs_flow_to_the_terminals_width() -> None:
    """A docstring is wrapped at the source's width; help joins its lines again, so a wide
    terminal shows a paragraph's sentence unbroken (not cut where the source wrapped it)."""
    shown = CliRunner().invoke(app, ["usage", "--help"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert "namespaces, items, vectors, approximate bytes, read from" in shown.output
