"""A purge's resume marker: it never says a namespace is done while rows of it are still
to delete (a namespace larger than one flush of the purge's batched deletes, killed
right after each save, is finished by a rerun), and while it is held, a purge of any
prefix inside or around it is refused."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from langgraph.store.base import PutOp
from langgraph.store.dynamodb import DynamoDBStore, PurgeConflictError
from langgraph.store.dynamodb.jobs.purge import FLUSH_ROWS
from langgraph.store.dynamodb.testing import mock_aws

from .tenants import NEIGHBOURS, TABLE, TENANT, fill, make_store, outside, rows, under
from .test_resume import restore


class Killed(BaseException):
    """The process dies right after the purge saved its marker."""


@pytest.fixture
def store() -> Iterator[DynamoDBStore]:
    with mock_aws():
        store = DynamoDBStore(TABLE, region_name="us-east-1")
        store.setup()
        yield store


def killed_at(save: int) -> Callable[[int], None]:
    """A progress callback that kills the purge right after its `save`th marker save."""
    seen = [0]

    def progress(_: int) -> None:
        seen[0] += 1
        if seen[0] == save:
            raise Killed

    return progress


def put_many(store: DynamoDBStore, namespace: tuple[str, ...], count: int) -> None:
    store.batch([PutOp(namespace, f"key-{n:04d}", {"n": n}) for n in range(count)])


def test_a_purge_killed_after_any_marker_save_is_finished_by_a_rerun(
    store: DynamoDBStore,
) -> None:
    # In registry order: a namespace larger than a flush, a small one, another larger
    # than a flush (so a flush falls inside the first namespace, and inside the third
    # once the first two are done); and a neighbour whose name starts with the tenant's.
    put_many(store, (*TENANT, "a"), FLUSH_ROWS + 50)
    put_many(store, (*TENANT, "b"), 10)
    put_many(store, (*TENANT, "c"), FLUSH_ROWS + 50)
    put_many(store, (*NEIGHBOURS[0], "x"), 3)
    before = rows(store)
    saves = 0

    def count(_: int) -> None:
        nonlocal saves
        saves += 1

    assert store.purge(TENANT, on_progress=count).rows_left == 0
    assert saves >= 4  # inside the first and third namespaces, at the end, then more
    for kill_at in range(1, saves + 1):
        restore(store, under(before, TENANT))
        assert rows(store) == before
        with pytest.raises(Killed):
            store.purge(TENANT, on_progress=killed_at(kill_at))
        result = store.purge(TENANT)
        assert result.resumed, kill_at
        assert (result.rows_left, under(rows(store), TENANT)) == (0, []), kill_at
        assert rows(store) == outside(before, TENANT), kill_at


def test_a_purge_inside_or_around_an_unfinished_one_is_refused() -> None:
    with mock_aws():
        store = make_store()
        store.setup()
        for group in (TENANT, *NEIGHBOURS):
            fill(store, group, users=2, items=1)

        def stop(_: int) -> None:
            raise Killed

        with pytest.raises(Killed):
            store.purge(TENANT, on_progress=stop)
        before = rows(store)
        for inside in ((*TENANT, "user-0"), (*TENANT, "user-1", "episodes")):
            with pytest.raises(PurgeConflictError, match=r"A purge of memories\.acme holds"):
                store.purge(inside)
        with pytest.raises(PurgeConflictError, match=r"A purge of memories\.acme holds"):
            store.purge((), all_tenants=True)
        assert rows(store) == before
        # A tenant whose name starts with this one's does not overlap it.
        assert store.purge(NEIGHBOURS[0]).rows_left == 0
        resumed = store.purge(TENANT)
        assert resumed.resumed and resumed.rows_left == 0
        assert store.purge((*TENANT, "user-0")).resumed is False
