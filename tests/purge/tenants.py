"""Tables holding several tenants, and the evidence a purge must leave: nothing under the
prefix, and every row outside it exactly as it was."""

from __future__ import annotations

from typing import Any

from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.table.schema import GROUPS_PK, META_PK, PK, SK
from langgraph.store.dynamodb.testing import LexicalEmbeddings

from tests.support import scan_table

TABLE = "memory"
DIMS = 16
TENANT = ("memories", "acme")
# Neighbours a purge of TENANT must not touch: another tenant, a tenant whose name starts
# with TENANT's, and the same user label under another tenant.
NEIGHBOURS = (("memories", "acme-corp"), ("memories", "beta"), ("other", "acme"))

Row = dict[str, Any]


def make_store(**kwargs: Any) -> DynamoDBStore:
    """An indexed store (two embedded fields: items get an extra vector row) on TABLE."""
    index: dict[str, Any] = {
        "dims": DIMS,
        "embed": LexicalEmbeddings(dims=DIMS),
        "fields": ["text", "topic"],
        "filter_fields": ["kind"],
    }
    index.update(kwargs.pop("index", {}))
    return DynamoDBStore(TABLE, region_name="us-east-1", index=index, **kwargs)  # type: ignore[arg-type]


def fill(store: DynamoDBStore, group: tuple[str, ...], users: int = 2, items: int = 3) -> None:
    """`users` namespaces of `items` memories under `group`, some with a TTL, some in a
    deeper namespace, one not embedded."""
    for u in range(users):
        namespace = (*group, f"user-{u}")
        for k in range(items):
            value = {"text": f"memory {k} of {u}", "topic": f"topic {k}", "kind": "note"}
            store.put(namespace, f"key-{k}", value, ttl=60 if k == 0 else None)
        store.put((*namespace, "episodes"), "e", {"text": "an episode", "topic": "t"})
        store.put(namespace, "plain", {"text": "no index"}, index=False)


def rows(store: DynamoDBStore) -> list[Row]:
    """Every row of the table, keyed for comparison."""
    return sorted(scan_table(store.client, TABLE), key=lambda row: (row[PK]["S"], row[SK]["S"]))


def mentions(row: Row, prefix: tuple[str, ...]) -> bool:
    """Whether a row belongs to `prefix`: in one of its namespaces' partitions, its
    registry, its group row, or a metadata row naming it."""
    label = ".".join(prefix) + "."
    pk, sk = row[PK]["S"], row[SK]["S"]
    if pk in (GROUPS_PK, META_PK) or pk.startswith("._ns."):
        return sk.startswith(label) or label in sk.replace("#", ".")
    return (pk + ".").startswith(label)


def outside(all_rows: list[Row], prefix: tuple[str, ...]) -> list[Row]:
    return [row for row in all_rows if not mentions(row, prefix)]


def under(all_rows: list[Row], prefix: tuple[str, ...]) -> list[Row]:
    return [row for row in all_rows if mentions(row, prefix)]
