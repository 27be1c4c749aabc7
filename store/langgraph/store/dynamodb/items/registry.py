"""The namespace registry: one row per namespace that holds (or held) items.

A namespace's row lives in the registry partition of its group (its first two labels:
`registry_partition`) with the namespace's encoding (terminated by `.`) as sort key, so the
namespaces under a prefix of two or more labels are one `begins_with` Query of one
partition: the cost scales with the answer, and each tenant's lookups land on its own
partition. The groups themselves are rows of `GROUPS_PK`, written only when a namespace is
registered for the first time (before its own row, so a listed namespace's group is always
listed); a prefix shorter than a group reads the groups under it, then each group.

The registry is a superset of the non-empty namespaces. A put writes the row the first
time a process sees a namespace (then caches it for `CACHE_SECONDS`); a delete that
empties a namespace marks its row `emptied_at` (so does a failed write, for every
namespace it touched; the stream consumer, for a namespace the TTL sweep emptied; and a
listing that finds a `has_ttl` namespace emptied by the sweep before the consumer saw
it); namespaces whose items carry a TTL are marked `has_ttl`. Marked rows are verified
against their partition when listed, so answers are exact. A marked row is physically
removed only after `GRACE_SECONDS`, longer than any process caches a registration, so a
put racing the removal is never left unregistered.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from botocore.exceptions import ClientError
from langgraph.store.dynamodb.items.namespaces import MatchCondition, Page, literal_prefix
from langgraph.store.dynamodb.table import clock, dynamo
from langgraph.store.dynamodb.table.keys import (
    GROUP_LABELS,
    Namespace,
    encode_namespace,
    group_of,
    namespace_of_registry_key,
    registry_partition,
    registry_prefix,
    registry_sort_key,
)
from langgraph.store.dynamodb.table.row_kinds import TRUST_SECONDS
from langgraph.store.dynamodb.table.schema import (
    EMPTIED_AT,
    EXPIRES_AT,
    GROUPS_PK,
    HAS_TTL,
    ITEM_PREFIX,
    PK,
    REGISTERED_AT,
    SK,
)

logger = logging.getLogger(__name__)

# How long a registration is trusted: the table's rule for listings (`row_kinds`).
CACHE_SECONDS = TRUST_SECONDS
# Group partitions a listing reads at once while its page needs more answers.
PREFETCH = 4
GRACE_SECONDS = 900.0


class Registry:
    """Maintains and answers the namespace registry of one table."""

    def __init__(self, client: Any, table: str, *, consistent: bool) -> None:
        self._client = client
        self._table = table
        self._consistent = consistent
        self._known: dict[Namespace, tuple[float, bool]] = {}
        self._lock = threading.Lock()

    def ensure(self, namespaces: dict[Namespace, bool]) -> None:
        """Register namespaces about to receive items (value: some item carries a TTL)."""
        todo = []
        seen = clock.monotonic()
        with self._lock:
            for ns, has_ttl in namespaces.items():
                known = self._known.get(ns)
                if known is None or seen - known[0] > CACHE_SECONDS or (has_ttl and not known[1]):
                    todo.append((ns, has_ttl))
        dynamo.parallel_map(self._register, todo)
        with self._lock:
            for ns, has_ttl in todo:
                self._known[ns] = (seen, has_ttl)

    def _register(self, entry: tuple[Namespace, bool]) -> None:
        ns, has_ttl = entry
        expression = f"SET {REGISTERED_AT} = :now REMOVE {EMPTIED_AT}"
        values: dict[str, Any] = {":now": {"N": str(int(clock.now()))}}
        if has_ttl:
            expression = f"SET {REGISTERED_AT} = :now, {HAS_TTL} = :t REMOVE {EMPTIED_AT}"
            values[":t"] = {"BOOL": True}
        update = {
            "TableName": self._table,
            "Key": dynamo.serialize({PK: registry_partition(ns), SK: registry_sort_key(ns)}),
            "UpdateExpression": expression,
            "ExpressionAttributeValues": values,
        }
        try:
            # Usually the row exists: one write, and the groups partition is not touched.
            self._client.update_item(**update, ConditionExpression=f"attribute_exists({SK})")
            return
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
        group = group_of(ns)
        self._client.update_item(
            TableName=self._table,
            Key=dynamo.serialize({PK: GROUPS_PK, SK: registry_sort_key(group)}),
            UpdateExpression=f"SET {REGISTERED_AT} = :now",
            ExpressionAttributeValues={":now": values[":now"]},
        )
        self._client.update_item(**update)

    def forget_if_empty(self, namespaces: Iterable[Namespace]) -> None:
        """After deletes: mark the rows of namespaces that no longer hold any item."""
        dynamo.parallel_map(self._mark_if_empty, list(set(namespaces)))

    def _mark_if_empty(self, ns: Namespace) -> None:
        with self._lock:
            self._known.pop(ns, None)
        dynamo.retrying(self._mark_once, ns)

    def _mark_once(self, ns: Namespace) -> None:
        if self._has_item(ns, at=None):
            return
        try:
            self._client.update_item(
                TableName=self._table,
                Key=dynamo.serialize({PK: registry_partition(ns), SK: registry_sort_key(ns)}),
                UpdateExpression=f"SET {EMPTIED_AT} = :now",
                ConditionExpression=f"attribute_exists({SK})",
                ExpressionAttributeValues={":now": {"N": str(int(clock.now()))}},
            )
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise

    def namespaces(self, prefix: Namespace, *, omit_expired_at: float | None) -> list[Namespace]:
        """Namespaces at or below `prefix` that hold items, exactly. Rows marked emptied or
        holding TTL items are checked against their partition (with `omit_expired_at`,
        only items unexpired at that time count)."""
        rows = self.rows(prefix)
        suspect = [row for row in rows if _suspect(row)]
        verdicts = dynamo.parallel_map(lambda row: self._verify(row, omit_expired_at), suspect)
        dead = {row[SK] for row, live in zip(suspect, verdicts, strict=True) if not live}
        return [namespace_of_registry_key(row[SK]) for row in rows if row[SK] not in dead]

    def list_namespaces(
        self,
        conditions: Sequence[MatchCondition],
        max_depth: int | None,
        limit: int,
        offset: int,
        *,
        omit_expired_at: float | None,
    ) -> list[Namespace]:
        """One page of `list_namespaces` (a `ListNamespacesOp`'s conditions, depth and
        paging): the store answers the op with it, and the command line's `ls` calls it on
        a client alone, without the store and LangGraph's ops."""
        page = Page(conditions, max_depth, limit, offset)
        self.fill(page, literal_prefix(conditions), omit_expired_at=omit_expired_at)
        return page.result

    def fill(self, page: Page, prefix: Namespace, *, omit_expired_at: float | None) -> None:
        """Offer `page` the namespaces at or below `prefix` in sorted order, reading group
        partitions only while it needs more (`PREFETCH` at a time) and verifying only the
        rows it would return: a page costs the list of groups plus about one Query per
        answer, whatever the number of tenants."""
        groups = (group for group in self._groups(prefix) if page.wants(group))
        while not page.full:
            batch = list(itertools.islice(groups, PREFETCH))
            if not batch:
                return
            for rows in dynamo.parallel_map(lambda g: self._group_rows(g, prefix), batch):
                for row in rows:
                    page.offer(
                        namespace_of_registry_key(row[SK]),
                        lambda row=row: self._alive(row, omit_expired_at),  # type: ignore[misc]
                    )
                    if page.full:
                        return

    def candidates(self, prefix: Namespace) -> list[Namespace]:
        """Every registered namespace at or below `prefix`, unverified (a superset)."""
        return [namespace_of_registry_key(row[SK]) for row in self.rows(prefix)]

    def has_namespaces(self) -> bool:
        """Whether any namespace was ever registered (one Query of at most one row)."""
        response = self._client.query(
            TableName=self._table,
            KeyConditionExpression=f"{PK} = :pk",
            ExpressionAttributeValues={":pk": {"S": GROUPS_PK}},
            Limit=1,
        )
        return bool(response.get("Items"))

    def rows(self, prefix: Namespace) -> list[dict[str, Any]]:
        """The registry rows at or below `prefix`, in namespace order: one paginated Query
        of its group's partition, or, for a prefix shorter than a group, the groups under
        it and then each group's partition (concurrently)."""
        found = dynamo.parallel_map(lambda g: self._group_rows(g, prefix), self._groups(prefix))
        return [row for rows in found for row in rows]

    def _groups(self, prefix: Namespace) -> list[Namespace]:
        """The groups holding the namespaces at or below `prefix`, in namespace order (the
        namespaces of two groups never interleave in that order)."""
        if len(prefix) >= GROUP_LABELS:
            return [group_of(prefix)]
        rows = self._query(GROUPS_PK, registry_prefix(prefix))
        return sorted(namespace_of_registry_key(row[SK]) for row in rows)

    def _group_rows(self, group: Namespace, prefix: Namespace) -> list[dict[str, Any]]:
        """The rows of one group's partition at or below `prefix`, in namespace order
        (sort-key order differs where a label holds a character below the separator)."""
        start = registry_prefix(prefix) if len(prefix) >= GROUP_LABELS else ""
        rows = self._query(registry_partition(group), start)
        return sorted(rows, key=lambda row: namespace_of_registry_key(row[SK]))

    def _alive(self, row: dict[str, Any], at: float | None) -> bool:
        """Whether a row's namespace holds items: rows marked emptied or holding TTL items
        are verified against their partition."""
        return not _suspect(row) or self._verify(row, at)

    def _query(self, partition: str, start: str) -> list[dict[str, Any]]:
        kwargs: dict[str, Any] = {
            "TableName": self._table,
            "ConsistentRead": self._consistent,
            "ExpressionAttributeValues": {":pk": {"S": partition}},
        }
        if start:
            kwargs["KeyConditionExpression"] = f"{PK} = :pk AND begins_with({SK}, :start)"
            kwargs["ExpressionAttributeValues"][":start"] = {"S": start}
        else:
            kwargs["KeyConditionExpression"] = f"{PK} = :pk"
        return list(dynamo.query(self._client, **kwargs))

    def _verify(self, row: dict[str, Any], at: float | None) -> bool:
        ns = namespace_of_registry_key(row[SK])
        if self._has_item(ns, at=at):
            return True
        emptied = row.get(EMPTIED_AT)
        # Cleanup is best effort: a failure is logged, never fails the listing.
        try:
            if emptied is None:
                # A `has_ttl` row: if the TTL sweep emptied the namespace, mark it now so
                # it is removed once the grace period has passed.
                self._mark_once(ns)
            elif clock.now() - float(emptied) > GRACE_SECONDS and (
                at is None or not self._has_item(ns, at=None)
            ):
                self._remove(row)
        except Exception as error:
            logger.warning("Could not clean up registry row %r: %r", row[SK], error)
        return False

    def _remove(self, row: dict[str, Any]) -> None:
        try:
            self._client.delete_item(
                TableName=self._table,
                Key=dynamo.serialize({PK: row[PK], SK: row[SK]}),
                ConditionExpression=f"{EMPTIED_AT} = :seen",
                ExpressionAttributeValues=dynamo.serialize({":seen": row[EMPTIED_AT]}),
            )
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise

    def _has_item(self, ns: Namespace, *, at: float | None) -> bool:
        """Whether the namespace holds an item (unexpired at `at`, when given)."""
        kwargs: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": f"{PK} = :pk AND begins_with({SK}, :items)",
            "ExpressionAttributeValues": {
                ":pk": {"S": encode_namespace(ns)},
                ":items": {"S": ITEM_PREFIX},
            },
            "ProjectionExpression": SK,
            "ConsistentRead": True,
            "Limit": 1 if at is None else 100,
        }
        if at is not None:
            kwargs["FilterExpression"] = f"attribute_not_exists({EXPIRES_AT}) OR {EXPIRES_AT} > :at"
            kwargs["ExpressionAttributeValues"][":at"] = {"N": str(at)}
        response = self._client.query(**kwargs)
        while not response.get("Items") and at is not None and "LastEvaluatedKey" in response:
            response = self._client.query(**kwargs, ExclusiveStartKey=response["LastEvaluatedKey"])
        return bool(response.get("Items"))


def _suspect(row: dict[str, Any]) -> bool:
    """Whether a registry row must be checked against its partition before it counts: it
    was marked emptied, or its namespace holds TTL items."""
    return EMPTIED_AT in row or bool(row.get(HAS_TTL))
