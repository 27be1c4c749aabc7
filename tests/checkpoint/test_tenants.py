"""Tenants on one saver (`tenant_key`): a bound saver (`for_tenant`) serves its tenant's
configs and refuses any other before a request; two tenants' bound savers are separate
copies, each acting on its own threads; `delete_for_runs` finds a run's checkpoints in
the tenant, never another tenant's of the same run id."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from langgraph.checkpoint.dynamodb import DynamoDBSaver

from tests.checkpoint.conftest import TABLE
from tests.checkpoint.rows_of import all_rows
from tests.checkpoint.steps import config, ids, step
from tests.support import RequestCounter


@pytest.fixture
def shared(emulation: None) -> Iterator[DynamoDBSaver]:
    """A saver keyed by tenant: acme has threads t (runs 1 then 2) and only-acme (run 1),
    globex has a thread t with the same run ids."""
    with DynamoDBSaver.from_table(
        TABLE, region_name="us-east-1", setup=True, tenant_key="tenant"
    ) as saver:
        for tenant, thread in (("acme", "t"), ("globex", "t"), ("acme", "only-acme")):
            first = step(saver, config(thread, tenant=tenant), {"who": tenant, "n": 1}, run("1"))
            if thread == "t":
                parent = saver.get_tuple(first)
                step(saver, first, {"n": 2}, run("2"), parent=parent)
        yield saver


def run(name: str) -> dict[str, Any]:
    return {"run_id": f"run-{name}"}


def values(saver: DynamoDBSaver, thread: str, **extra: Any) -> list[dict[str, Any]]:
    """The channel values of the thread's checkpoints, newest first."""
    return [t.checkpoint["channel_values"] for t in saver.list(config(thread, **extra))]


def test_a_bound_saver_serves_its_tenant_and_refuses_any_other(shared: DynamoDBSaver) -> None:
    acme = shared.for_tenant("acme")
    acme_t = [{"who": "acme", "n": 2}, {"who": "acme", "n": 1}]
    for own in (config("t", tenant="acme"), config("t")):
        found = acme.get_tuple(own)
        assert found is not None and found.checkpoint["channel_values"] == acme_t[0]
        assert found.config["configurable"]["tenant"] == "acme"
        assert values(acme, "t", **own["configurable"]) == acme_t
    latest = acme.get_tuple(config("t", tenant="acme"))
    assert latest is not None
    acme.put_writes(latest.config, [("n", 3)], "task")
    stored = step(acme, latest.config, {"n": 3}, parent=latest)
    assert stored["configurable"]["tenant"] == "acme"
    assert values(acme, "t")[0] == {"who": "acme", "n": 3}

    globex_latest = shared.get_tuple(config("t", tenant="globex"))
    assert globex_latest is not None
    assert globex_latest.checkpoint["channel_values"] == {"who": "globex", "n": 2}
    foreign, foreign_at = config("t", tenant="globex"), globex_latest.config
    calls: list[Callable[[], Any]] = [
        lambda: acme.get_tuple(foreign),
        lambda: acme.get_tuple(foreign_at),
        lambda: list(acme.list(foreign)),
        lambda: acme.put_writes(foreign_at, [("n", 9)], "task"),
        lambda: step(acme, foreign_at, {"n": 9}, parent=globex_latest),
        lambda: asyncio.run(acme.aget_tuple(foreign)),
    ]
    before = all_rows(shared.client, TABLE)
    counter = RequestCounter(shared.client)
    for call in calls:
        with pytest.raises(ValueError, match="bound to 'acme'"):
            call()
    assert counter.total == 0
    assert all_rows(shared.client, TABLE) == before
    assert values(shared, "t", tenant="globex") == [
        {"who": "globex", "n": 2},
        {"who": "globex", "n": 1},
    ]


def test_two_tenants_bound_savers_each_act_on_their_own_threads(shared: DynamoDBSaver) -> None:
    acme, globex = shared.for_tenant("acme"), shared.for_tenant("globex")
    assert acme is not shared and globex is not shared
    assert acme.threads() == ["only-acme", "t"] and globex.threads() == ["t"]
    assert [t.config["configurable"]["tenant"] for t in acme.list(None)] == ["acme"] * 3
    assert [t.checkpoint["channel_values"]["who"] for t in globex.list(None)] == ["globex"] * 2

    acme.copy_thread("t", "copy")
    assert acme.threads() == ["copy", "only-acme", "t"] and globex.threads() == ["t"]
    assert values(acme, "copy") == values(acme, "t")
    acme.delete_thread("t")
    assert acme.get_tuple(config("t")) is None and acme.threads() == ["copy", "only-acme"]
    assert globex.count_checkpoints("t") == 2
    globex.prune(["t"])
    assert globex.count_checkpoints("t") == 1 and acme.count_checkpoints("copy") == 2
    assert values(globex, "t") == [{"who": "globex", "n": 2}]
    with pytest.raises(ValueError, match="for_tenant"):
        shared.threads()  # binding a copy leaves the shared saver unbound


def test_delete_for_runs_deletes_the_tenants_checkpoints_of_those_runs_only(
    shared: DynamoDBSaver,
) -> None:
    acme, globex = shared.for_tenant("acme"), shared.for_tenant("globex")
    globex_ids = ids(globex.list(config("t")))
    second = ids(acme.list(config("t")))[0]
    acme.delete_for_runs(["run-1"])
    assert ids(acme.list(config("t"))) == [second]
    assert acme.get_tuple(config("only-acme")) is None
    assert ids(globex.list(config("t"))) == globex_ids
    runs = {pk for pk, _ in all_rows(shared.client, TABLE) if pk.startswith(".r/")}
    assert runs == {".r/acme/run-2", ".r/globex/run-1", ".r/globex/run-2"}
    globex.delete_for_runs(["run-1", "run-2"])
    assert globex.get_tuple(config("t")) is None
    assert ids(acme.list(config("t"))) == [second]
