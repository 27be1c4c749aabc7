"""One purge, every row: a tenant's purge by the README's route
(`store.purge(prefix, sources=saver.for_tenant(t).erasure_sources())`) or the CLI's
(`purge memories.acme --threads-tenant acme`, with and without `--verify-scan`) erases
what the store, the saver and extraction keep for the tenant (cursors, daily token counts,
ledger and its index, the override in `._meta`, memories formed outside the prefix), and
the census (`tests/census.py`, one Scan) finds none of it after each failure sequence,
`threads rm` followed by a late extraction run included."""

from __future__ import annotations

import contextlib
import json
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langgraph.store.dynamodb.cli.app import app
from langgraph.store.dynamodb.extraction import ExtractionError, SemanticFacts, TenantOverride
from langgraph.store.dynamodb.table import clock
from langgraph.store.dynamodb.table.row_kinds import Scope as Whose
from langgraph.store.dynamodb.table.row_kinds import erased_kinds
from langgraph.store.dynamodb.testing import mock_aws
from typer.testing import CliRunner

from tests import census
from tests.census import Scope
from tests.extraction.conftest import TENANT, Tables, open_tables
from tests.extraction.test_concurrent_updates import extractors
from tests.support import scan_table

from .test_cli import ENV

PREFIX = ("memories", TENANT)
# The override's second strategy forms memories outside the purged prefix.
PROFILE = ("profiles", TENANT, "u1")
SCOPE = Scope(PREFIX, (TENANT,), formed=(PROFILE,))
NEIGHBOUR = "globex"
NEIGHBOUR_SCOPE = Scope(
    ("memories", NEIGHBOUR), (NEIGHBOUR,), formed=(("profiles", NEIGHBOUR, "u1"),)
)


def say(tables: Tables, thread: str, text: str, tenant: str = TENANT) -> None:
    """One turn of the chat graph in a run of its own (so the thread has a run index)."""
    configurable = {"thread_id": thread, "tenant": tenant, "user_id": "u1"}
    config: Any = {"configurable": configurable, "metadata": {"run_id": uuid.uuid4().hex}}
    tables.graph.invoke({"messages": [HumanMessage(text)]}, config)


@pytest.fixture
def tables() -> Iterator[Tables]:
    """TENANT and NEIGHBOUR, each with two threads extracted by two strategies (one
    forming memories outside `memories.<tenant>`, set by the tenant's override)."""
    with mock_aws(), open_tables() as opened:
        for tenant in (TENANT, NEIGHBOUR):
            facts = opened.extractor.config().strategies[0]
            profile = SemanticFacts(name="profile", namespace=("profiles", "{tenant}", "{user_id}"))
            override = TenantOverride(strategies=(facts, profile))
            opened.extractor.set_tenant_override(tenant, override)
            say(opened, "t1", "I prefer tea. My dog is Rex.", tenant)
            say(opened, "t2", "I live in Lisbon.", tenant)
            for thread in ("t1", "t2"):
                opened.extractor.run(tenant, thread)
        yield opened


def rows(tables: Tables) -> list[dict[str, Any]]:
    return scan_table(tables.store.client, tables.store.table_name)


def threads_rm_then_late_run(tables: Tables) -> None:
    """`threads rm t1` (the saver deletes the thread alone), then a run of t1 that was on
    the queue: it finds no checkpoint and deletes the thread's cursors. The ledger rows
    and the memories outside the prefix stay, and no cursor leads to them."""
    tables.saver.for_tenant(TENANT).delete_thread("t1")
    tables.extractor.run(TENANT, "t1")
    assert {s.thread_id for s in tables.extractor.status(TENANT)} == {"t2"}
    ledger = census.take(tables.store.client, tables.store.table_name, SCOPE).rows
    assert any(pk.endswith("/t1") for pk, _ in ledger if pk.startswith(".x/"))


SEQUENCES = {"extracted": lambda tables: None, "threads rm, late run": threads_rm_then_late_run}


def test_the_fixture_holds_every_row_kind_of_a_tenant(tables: Tables) -> None:
    """The census below covers every kind a tenant's purge erases (row_kinds), but the
    extra vector rows and reindex markers, which tests/purge/test_purge.py covers."""
    found = set(census.census_of(rows(tables), SCOPE).by_kind())
    expected = set(erased_kinds(Whose.NAMESPACE, Whose.TENANT))
    assert expected - found == {"vector_rows", "reindex_checkpoints"}


@pytest.mark.parametrize("sequence", SEQUENCES)
@pytest.mark.parametrize("scan", [False, True], ids=["registry", "scan"])
def test_the_readme_route_leaves_no_row_of_the_tenant(
    tables: Tables, sequence: str, scan: bool
) -> None:
    SEQUENCES[sequence](tables)
    neighbour = census.census_of(rows(tables), NEIGHBOUR_SCOPE).rows
    sources = tables.saver.for_tenant(TENANT).erasure_sources()
    result = tables.store.purge(PREFIX, sources=sources, scan=scan)
    left = census.check(tables.store.client, tables.store.table_name, SCOPE, result)
    assert left.total == 0 and result.rows_left == 0
    assert tables.extractor.status(TENANT) == []
    assert tables.store.list_namespaces(prefix=("profiles", TENANT)) == []
    assert census.census_of(rows(tables), NEIGHBOUR_SCOPE).rows == neighbour


def cli(*args: str) -> Any:
    done = CliRunner().invoke(app, list(args), env=ENV)
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


@pytest.mark.parametrize("sequence", SEQUENCES)
@pytest.mark.parametrize("scan", [(), ("--verify-scan",)], ids=["registry", "scan"])
def test_the_cli_leaves_no_row_of_the_tenant(
    tables: Tables, sequence: str, scan: tuple[str, ...]
) -> None:
    SEQUENCES[sequence](tables)
    report = cli("purge", "memories.acme", "--threads-tenant", TENANT, "--yes", "--json", *scan)
    assert report["rows_left"] == 0
    assert report["deleted"]["extraction_ledger"] > 0
    assert census.take(tables.store.client, tables.store.table_name, SCOPE).total == 0
    assert cli("extraction", "status", "--tenant", TENANT, "--json") == []


def test_a_run_at_any_step_of_the_purge_forms_nothing_after_it(tables: Tables) -> None:
    """A late or deferred request runs while the purge erases: at every step of it (each
    progress report) a run of each thread starts. A run that finds its cursor gone but
    the thread still there would read the thread from its first message and form every
    memory again, outside the prefix too; none may be left when the purge reports."""
    say(tables, "t1", "My city is Oslo.")
    sources = tables.saver.for_tenant(TENANT).erasure_sources()

    def late_runs(_: int) -> None:
        for thread in ("t1", "t2"):
            tables.extractor.run(TENANT, thread)

    result = tables.store.purge(PREFIX, sources=sources, on_progress=late_runs)
    left = census.check(tables.store.client, tables.store.table_name, SCOPE, result)
    assert left.total == 0 and result.rows_left == 0
    assert tables.store.list_namespaces(prefix=("profiles", TENANT)) == []


class Crash(Exception):
    """The run's process died."""


def run_let_go_at(
    tables: Tables, monkeypatch: pytest.MonkeyPatch, step: int, recorded: bool, dies: bool
) -> bool:
    """A run of a thread of a tenant of its own, held once it has read the thread (and
    recorded its first window, if `recorded`), let go at the purge's `step`-th progress
    report, or when the purge waits (a run holding its lease is running), or once the
    purge returned; whether a later step would let it go anywhere else (the purge has a
    `step`-th report, and its wait came after it). If it `dies`, it dies once it has
    written its memory outside the prefix. The purge's report agrees with the census then, and the
    next purge leaves nothing. The run's first strategy forms memories outside the
    prefix."""
    tenant = f"{TENANT}-{step}"
    scope = Scope(("memories", tenant), (tenant,), formed=(("profiles", tenant, "u1"),))
    facts = tables.extractor.config().strategies[0]
    profile = SemanticFacts(name="profile", namespace=("profiles", "{tenant}", "{user_id}"))
    tables.extractor.set_tenant_override(tenant, TenantOverride(strategies=(profile, facts)))
    say(tables, "t1", "I prefer tea.", tenant)
    tables.extractor.run(tenant, "t1")
    say(tables, "t1", "My dog is Rex.", tenant)
    held, go = threading.Event(), threading.Event()
    records: list[str] = []
    steps: list[int] = []
    by_wait: list[bool] = []  # let go by the purge's wait, before its step came

    def hold(model: Any, **_: Any) -> None:
        if dies and "wrote" in records:
            raise Crash(f"killed before {model.name}, after writing its memory")
        due = bool(records) if recorded else model.name == "TransactWriteItems"
        if due and not held.is_set():
            held.set()
            assert go.wait(30), "the purge did not let the run go"

    def writing(params: dict[str, Any], model: Any, **_: Any) -> None:
        row = params.get("Key") or params.get("Item") or {}
        if model.name in ("PutItem", "UpdateItem") and row["PK"]["S"].startswith("profiles."):
            records.append("writing")

    def note(model: Any, **_: Any) -> None:
        if model.name == "TransactWriteItems" or records[-1:] == ["writing"]:
            records.append("wrote" if records[-1:] == ["writing"] else "recorded")

    with ExitStack() as stack, ThreadPoolExecutor(max_workers=1) as pool:
        (late,) = extractors(stack, 1)
        late.store.client.meta.events.register("before-call.dynamodb", hold)
        late.store.client.meta.events.register("before-parameter-build.dynamodb", writing)
        late.store.client.meta.events.register("after-call.dynamodb", note)
        in_flight = pool.submit(late.run, tenant, "t1")

        def finish() -> None:
            go.set()
            with contextlib.suppress(ExtractionError):
                in_flight.result(timeout=30)

        def let_go(_: int) -> None:
            steps.append(1)
            if len(steps) == step + 1:
                finish()

        def wait(_: float) -> None:
            if not go.is_set():
                by_wait.append(True)
            finish()

        assert held.wait(30), "the run did not reach the hold"
        sources = tables.saver.for_tenant(tenant).erasure_sources()
        with monkeypatch.context() as patched:
            patched.setattr(clock, "sleep", wait)
            result = tables.store.purge(("memories", tenant), sources=sources, on_progress=let_go)
        during = go.is_set()
        finish()
    if during:
        census.check(tables.store.client, tables.store.table_name, scope, result)
    again = tables.store.purge(("memories", tenant), sources=sources)
    left = census.check(tables.store.client, tables.store.table_name, scope, again)
    assert left.total == 0 and again.rows_left == 0, f"let go at step {step}"
    return not by_wait and len(steps) > step


@pytest.mark.parametrize(
    ("recorded", "dies"),
    [(False, False), (True, False), (True, True)],
    ids=["held before its record", "after it", "after it, dying after its write"],
)
def test_a_run_that_read_the_thread_before_the_purge_leaves_nothing_after_it(
    tables: Tables, monkeypatch: pytest.MonkeyPatch, recorded: bool, dies: bool
) -> None:
    """A run in flight when the purge starts (it holds the thread's cursors and has read
    the thread; it has recorded its first window, or not yet) goes on at one step of the
    purge (each progress report in turn). What it leaves, the purge reports, and the next
    purge erases. Finishing between the purge's read of the ledger and its delete of the
    cursors, it left its memory outside the prefix with no ledger row naming it: the purge
    reported 0 left and no later purge could find it."""
    step = 0
    while run_let_go_at(tables, monkeypatch, step, recorded, dies):
        step += 1
