"""`store.purge`: everything at or below a tenant's prefix goes, nothing else moves, and
the verification proves it; bad prefixes are refused."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from langgraph.store.base import InvalidNamespaceError
from langgraph.store.dynamodb import DynamoDBStore, PurgeConflictError, RowSource, reindex
from langgraph.store.dynamodb.jobs.purge import census
from langgraph.store.dynamodb.table.keys import Namespace
from langgraph.store.dynamodb.table.schema import GROUPS_PK, META_PK, PK, SK
from langgraph.store.dynamodb.testing import mock_aws

from tests.support import RequestCounter

from .tenants import NEIGHBOURS, TENANT, fill, make_store, outside, rows, under


@pytest.fixture
def store() -> Iterator[DynamoDBStore]:
    with mock_aws():
        store = make_store()
        store.setup()
        for group in (TENANT, *NEIGHBOURS):
            fill(store, group)
        yield store


def test_a_tenant_purge_erases_its_rows_and_nothing_else(store: DynamoDBStore) -> None:
    before = rows(store)
    expected = census(store.client, store.table_name, TENANT)
    counter = RequestCounter(store.client)
    result = store.purge(TENANT)
    assert "Scan" not in counter.calls
    after = rows(store)
    assert under(after, TENANT) == []
    assert after == outside(before, TENANT)  # byte for byte
    assert result.rows_left == 0
    assert result.verification.rows == dict.fromkeys(result.verification.rows, 0)
    assert result.verification.namespaces == 4  # 2 users, each with a deeper namespace
    assert (result.table, result.prefix, result.resumed) == (store.table_name, TENANT, False)
    # 2 users x (3 items + 1 not embedded + 1 in a deeper namespace), each embedded one
    # with a second vector on an extra row; 4 namespaces; their group
    assert result.deleted == {"items": 10, "vector_rows": 8, "registry_rows": 4, "group_rows": 1}
    assert result.deleted == {kind: n for kind, n in expected.rows.items() if n}
    assert sum(result.deleted.values()) == expected.total == len(under(before, TENANT))
    assert store.search(TENANT) == []
    assert store.list_namespaces(prefix=TENANT) == []
    assert TENANT not in {ns[:2] for ns in store.list_namespaces()}
    assert store.list_namespaces(prefix=("memories", "acme-corp"))  # neighbours still listed
    assert store.search(("memories", "beta"), query="memory", limit=3)


def test_a_prefix_deeper_than_a_group_keeps_the_group(store: DynamoDBStore) -> None:
    user = (*TENANT, "user-0")
    before = rows(store)
    result = store.purge(user)
    assert result.rows_left == 0
    assert "group_rows" not in result.deleted  # the group still holds user-1
    assert rows(store) == outside(before, user)
    assert store.list_namespaces(prefix=TENANT) == [
        (*TENANT, "user-1"),
        (*TENANT, "user-1", "episodes"),
    ]


def test_a_tenant_with_no_data_reports_zero(store: DynamoDBStore) -> None:
    before = rows(store)
    result = store.purge(("memories", "nobody"))
    assert (result.rows_left, sum(result.deleted.values())) == (0, 0)
    assert rows(store) == before


def test_the_purge_takes_the_tenants_reindex_checkpoints(store: DynamoDBStore) -> None:
    def stop(_: object) -> None:
        raise KeyboardInterrupt  # a reindex stopped after its first page

    for prefix in (TENANT, ("memories", "beta")):
        with pytest.raises(KeyboardInterrupt):
            reindex(store, prefix=prefix, page_size=1, on_progress=stop, restart=True)
    checkpoints = [r for r in rows(store) if r[PK]["S"] == META_PK and "reindex#" in r[SK]["S"]]
    assert len(checkpoints) == 2
    result = store.purge(TENANT)
    assert result.deleted["reindex_checkpoints"] == 1
    left = [r[SK]["S"] for r in rows(store) if r[PK]["S"] == META_PK]
    assert left == ["model#memory-vectors", "reindex#memory-vectors#memories.beta."]


@pytest.mark.parametrize("prefix", [(), ("memories",), []])
def test_a_prefix_shorter_than_a_tenant_is_refused(
    store: DynamoDBStore, prefix: tuple[str, ...]
) -> None:
    before = rows(store)
    with pytest.raises(ValueError, match="would erase many tenants"):
        store.purge(prefix)
    assert rows(store) == before


def test_labels_that_would_alias_another_prefix_are_refused(store: DynamoDBStore) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.purge(("memories.acme", "user-0"))
    with pytest.raises(InvalidNamespaceError):
        store.purge("memories.acme")  # type: ignore[arg-type]


def test_all_tenants_wipes_every_tenant_but_keeps_the_model_pin(store: DynamoDBStore) -> None:
    with pytest.raises(ValueError, match="no prefix"):
        store.purge(TENANT, all_tenants=True)
    result = store.purge((), all_tenants=True)
    assert result.rows_left == 0
    assert result.deleted["group_rows"] == 4
    assert [(r[PK]["S"], r[SK]["S"]) for r in rows(store)] == [(META_PK, "model#memory-vectors")]


def test_an_overlapping_unfinished_purge_is_named_and_refused(store: DynamoDBStore) -> None:
    user = (*TENANT, "user-0")
    stopped = _stop_after_first_batch(store, user)
    with pytest.raises(PurgeConflictError, match=r"A purge of memories\.acme\.user-0 holds"):
        store.purge(TENANT)
    store.purge(("memories", "beta"))  # no overlap
    before = rows(store)
    with pytest.raises(PurgeConflictError, match=r"every tenant"):
        store.purge((), all_tenants=True)
    assert rows(store) == before
    assert store.purge(TENANT, force=True).rows_left == 0
    resumed = store.purge(user)  # the same purge, run again: it resumes
    assert resumed.resumed and resumed.rows_left == 0
    assert sum(resumed.deleted.values()) == stopped  # its first run's; the forced one took the rest
    assert [r for r in rows(store) if r[PK]["S"] == META_PK and "purge#" in r[SK]["S"]] == []


def _stop_after_first_batch(store: DynamoDBStore, prefix: tuple[str, ...]) -> int:
    """Start a purge of `prefix` and stop it once it has deleted something; the rows it
    had deleted."""
    deleted: list[int] = []

    def stop(count: int) -> None:
        deleted.append(count)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        store.purge(prefix, on_progress=stop)
    return deleted[0]


def test_group_rows_go_only_with_their_group(store: DynamoDBStore) -> None:
    store.purge(TENANT)
    groups = [r[SK]["S"] for r in rows(store) if r[PK]["S"] == GROUPS_PK]
    assert groups == ["memories.acme-corp.", "memories.beta.", "other.acme."]


def test_apurge(store: DynamoDBStore) -> None:
    result = asyncio.run(store.apurge(TENANT))
    assert result.rows_left == 0
    assert under(rows(store), TENANT) == []


THREADS = "._threads."  # where this test's stand-in checkpointer keeps a tenant's threads


def thread_keys(store: DynamoDBStore) -> RowSource:
    """A row source for threads kept in one partition per tenant (two labels)."""

    def keys(prefix: Namespace) -> list[dict[str, str]]:
        found = store.client.query(
            TableName=store.table_name,
            KeyConditionExpression="PK = :pk",
            ExpressionAttributeValues={":pk": {"S": THREADS + ".".join(prefix)}},
            ConsistentRead=True,
        )["Items"]
        return [{PK: row[PK]["S"], SK: row[SK]["S"]} for row in found]

    return RowSource("threads", keys)


def test_row_sources_are_purged_counted_and_verified(store: DynamoDBStore) -> None:
    for tenant, count in ((TENANT, 30), (("memories", "beta"), 2)):
        for n in range(count):
            pk = THREADS + ".".join(tenant)
            store.client.put_item(
                TableName=store.table_name, Item={PK: {"S": pk}, SK: {"S": f"thread-{n}"}}
            )
    threads = thread_keys(store)
    before = rows(store)
    assert census(store.client, store.table_name, TENANT, sources=[threads]).rows["threads"] == 30
    result = store.purge(TENANT, sources=[threads])
    assert result.deleted["threads"] == 30
    assert result.verification.rows["threads"] == 0
    after = rows(store)
    assert [r for r in after if r[PK]["S"].startswith(THREADS)] == [
        r for r in before if r[PK]["S"] == THREADS + "memories.beta"
    ]
