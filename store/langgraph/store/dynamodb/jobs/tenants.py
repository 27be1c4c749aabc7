"""What each tenant group stores, without scanning the table: the registry names the
namespaces of each group (`Registry.rows`), and two `Select="COUNT"` Queries per namespace
count its item rows (and those holding a vector) and its extra vector rows. The stored
bytes are read from those Queries' consumed capacity (eventually consistent: 0.5 unit per
4 KB evaluated, rounded up per 1 MB page), so they are approximate, within 4 KB per page,
and exclude the recency index's copies and the registry rows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langgraph.store.dynamodb.items.registry import Registry
from langgraph.store.dynamodb.table import dynamo
from langgraph.store.dynamodb.table.dynamo import BYTES_PER_EVENTUAL_UNIT, Counted
from langgraph.store.dynamodb.table.keys import (
    Namespace,
    encode_namespace,
    group_of,
    namespace_of_registry_key,
)
from langgraph.store.dynamodb.table.schema import ITEM_PREFIX, PK, SK, VECTOR, VECTOR_ROW_PREFIX


@dataclass(frozen=True)
class TenantStorage:
    """One group's namespaces holding items, item rows, vectors and approximate bytes."""

    group: Namespace
    namespaces: int
    items: int
    vectors: int
    approx_bytes: int

    @property
    def tenant(self) -> str:
        """The group's labels joined by `.`."""
        return encode_namespace(self.group)


def tenant_storage(client: Any, table: str, prefix: Namespace) -> list[TenantStorage]:
    """Each group at or below `prefix` (or holding it), in order, with what it stores."""
    registry = Registry(client, table, consistent=False)
    namespaces = [namespace_of_registry_key(row[SK]) for row in registry.rows(prefix)]
    counts = dynamo.parallel_map(lambda ns: _namespace(client, table, ns), namespaces)
    by_group: dict[Namespace, list[tuple[Counted, Counted]]] = {}
    for namespace, (items, extras) in zip(namespaces, counts, strict=True):
        by_group.setdefault(group_of(namespace), []).append((items, extras))
    return [_total(group, found) for group, found in by_group.items()]


def _total(group: Namespace, found: Sequence[tuple[Counted, Counted]]) -> TenantStorage:
    return TenantStorage(
        group=group,
        namespaces=sum(1 for items, _ in found if items.rows),
        items=sum(items.rows for items, _ in found),
        vectors=sum(items.matching + extras.rows for items, extras in found),
        approx_bytes=round(
            BYTES_PER_EVENTUAL_UNIT * sum(items.units + extras.units for items, extras in found)
        ),
    )


def _namespace(client: Any, table: str, namespace: Namespace) -> tuple[Counted, Counted]:
    partition = encode_namespace(namespace)
    return _count(client, table, partition, ITEM_PREFIX), _count(
        client, table, partition, VECTOR_ROW_PREFIX
    )


def _count(client: Any, table: str, partition: str, rows: str) -> Counted:
    """Rows of `partition` whose sort key starts with `rows`, how many hold a vector, and
    the read units counting them cost."""
    return dynamo.count(
        client,
        TableName=table,
        KeyConditionExpression=f"{PK} = :pk AND begins_with({SK}, :rows)",
        FilterExpression="attribute_exists(#v)",
        ExpressionAttributeNames={"#v": VECTOR},
        ExpressionAttributeValues={":pk": {"S": partition}, ":rows": {"S": rows}},
    )
