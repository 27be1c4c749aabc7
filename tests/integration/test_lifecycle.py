"""`with` / `async with` / `close()` and the `from_table` factories."""

from __future__ import annotations

import pytest
from langgraph.store.dynamodb import DynamoDBStore, TableNotFoundError
from langgraph.store.dynamodb.testing import mock_aws


def test_from_table_sets_up_yields_and_closes() -> None:
    with mock_aws():
        with DynamoDBStore.from_table("memory", region_name="us-east-1", setup=True) as store:
            store.put(("a",), "k", {"n": 1})
            assert store.get(("a",), "k").value == {"n": 1}  # type: ignore[union-attr]
        with pytest.raises(RuntimeError, match="closed; create a new one"):
            store.get(("a",), "k")
        with DynamoDBStore.from_table("memory", region_name="us-east-1") as again:
            assert again.get(("a",), "k") is not None  # the data outlives the store object


def test_from_table_without_setup_does_not_create_the_table() -> None:
    with (
        mock_aws(),
        DynamoDBStore.from_table("absent", region_name="us-east-1") as store,
        pytest.raises(TableNotFoundError),
    ):
        store.get(("a",), "k")


async def test_async_factory_and_async_with() -> None:
    with mock_aws():
        async with DynamoDBStore.afrom_table(
            "memory", region_name="us-east-1", setup=True
        ) as store:
            await store.aput(("a",), "k", {"n": 1})
        with pytest.raises(RuntimeError, match="closed"):
            await store.aget(("a",), "k")
        async with DynamoDBStore("memory", region_name="us-east-1") as plain:
            assert (await plain.aget(("a",), "k")) is not None
        with pytest.raises(RuntimeError, match="closed"):
            await plain.asearch(("a",))


def test_close_is_explicit_too() -> None:
    with mock_aws():
        store = DynamoDBStore("memory", region_name="us-east-1")
        store.setup()
        store.close()
        with pytest.raises(RuntimeError, match="closed"):
            store.list_namespaces()
