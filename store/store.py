"""`DynamoDBStore`: LangGraph's `BaseStore` on one DynamoDB table."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError
from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchOp,
    TTLConfig,
)

from store import dynamo, table
from store.filters import validate_filter
from store.keys import Namespace, validate_op
from store.kv_search import search_rows
from store.namespaces import literal_prefix, select
from store.registry import Registry
from store.rows import (
    CREATED_AT,
    UPDATED_AT,
    build_row,
    key_of,
    to_item,
    to_search_item,
    update_arguments,
)
from store.ttl import EXPIRES_AT, TTL_MINUTES, expiry, is_expired, needs_refresh, now

# Attributes a put may leave out; an overwrite removes them from the old row.
OPTIONAL_ATTRIBUTES = (EXPIRES_AT, TTL_MINUTES)

ItemKey = tuple[Namespace, str]


class DynamoDBStore(BaseStore):
    """A LangGraph `BaseStore` on one DynamoDB table (see DESIGN.md for the data model).

    Values round-trip exactly as JSON; namespaces map injectively to partitions; prefix
    search and `list_namespaces` read a namespace registry instead of scanning; TTL is
    DynamoDB's, refreshed on read by each item's own TTL.
    """

    supports_ttl = True

    def __init__(
        self,
        table_name: str,
        *,
        region_name: str | None = None,
        endpoint_url: str | None = None,
        boto3_session: boto3.Session | None = None,
        boto_config: Config | None = None,
        ttl: TTLConfig | None = None,
        index: IndexConfig | None = None,
        consistent_read: bool = True,
    ) -> None:
        if not table_name or not isinstance(table_name, str):
            raise ValueError("table_name must be a non-empty string")
        self.table_name = table_name
        self.ttl_config = ttl
        self.index_config = index
        self.consistent_read = consistent_read
        self._client = dynamo.make_client(
            region_name=region_name,
            endpoint_url=endpoint_url,
            boto3_session=boto3_session,
            boto_config=boto_config,
        )
        self._registry = Registry(self._client, table_name, consistent=consistent_read)

    # Lifecycle

    def setup(self) -> None:
        """Create the table (and TTL) if missing; idempotent and safe to run concurrently."""
        table.ensure_table(self._client, self.table_name)

    async def asetup(self) -> None:
        """Async `setup`."""
        await asyncio.to_thread(self.setup)

    # BaseStore

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ops with LangGraph's batch semantics: results in op order, reads see the
        state before the batch's writes, the last write to a key wins. Every op is
        validated before any I/O."""
        ops = list(ops)
        rows = self._validate(ops)
        at = now()
        results: list[Result] = [None] * len(ops)
        read_rows = self._read(ops, results, at)
        self._refresh(read_rows, ops, at)
        self._write(ops, rows)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """`batch` on a worker thread: the event loop never blocks on I/O."""
        return await asyncio.to_thread(self.batch, list(ops))

    # Validation

    def _validate(self, ops: list[Op]) -> dict[int, dict[str, Any]]:
        at = now()
        rows: dict[int, dict[str, Any]] = {}
        for index, op in enumerate(ops):
            validate_op(op)
            if isinstance(op, SearchOp):
                validate_filter(op.filter)
                _check_page(op.limit, op.offset)
            elif isinstance(op, ListNamespacesOp):
                _check_page(op.limit, op.offset)
                if op.max_depth is not None and op.max_depth < 1:
                    raise ValueError(f"max_depth must be >= 1, got {op.max_depth}")
            elif isinstance(op, PutOp) and op.value is not None:
                if not isinstance(op.value, Mapping):
                    raise ValueError(
                        f"A stored value must be a dict, got {type(op.value).__name__}."
                    )
                rows[index] = build_row(op, at)
        return rows

    # Reads

    @property
    def _omit_expired(self) -> bool:
        return bool(self.ttl_config and self.ttl_config.get("omit_expired", False))

    def _read(self, ops: list[Op], results: list[Result], at: float) -> list[dict[str, Any]]:
        """Answer every read op (concurrently); returns the rows read, for TTL refresh."""
        omit_at = at if self._omit_expired else None
        gets = [i for i, op in enumerate(ops) if isinstance(op, GetOp)]
        tasks: list[Callable[[], None]] = []
        read_rows: list[dict[str, Any]] = []

        def answer_gets() -> None:
            keys = [key_of(ops[i].namespace, ops[i].key) for i in gets]  # type: ignore[union-attr]
            found = dynamo.batch_get(
                self._client, self.table_name, keys, consistent=self.consistent_read
            )
            by_key = {(row["PK"], row["SK"]): row for row in found}
            for i, key in zip(gets, keys, strict=True):
                row = by_key.get((key["PK"], key["SK"]))
                if row is None or (omit_at is not None and is_expired(row, omit_at)):
                    continue
                results[i] = to_item(row)
                if ops[i].refresh_ttl:  # type: ignore[union-attr]
                    read_rows.append(row)

        def answer_search(i: int, op: SearchOp) -> None:
            found = search_rows(
                self._client,
                self.table_name,
                self._registry,
                op,
                consistent=self.consistent_read,
                omit_expired_at=omit_at,
            )
            results[i] = [to_search_item(row) for row in found]
            if op.refresh_ttl:
                read_rows.extend(found)

        def answer_list(i: int, op: ListNamespacesOp) -> None:
            conditions = list(op.match_conditions or ())
            candidates = self._registry.namespaces(
                literal_prefix(conditions), omit_expired_at=omit_at
            )
            results[i] = select(candidates, conditions, op.max_depth, op.limit, op.offset)

        if gets:
            tasks.append(answer_gets)
        for i, op in enumerate(ops):
            if isinstance(op, SearchOp):
                tasks.append(lambda i=i, op=op: answer_search(i, op))  # type: ignore[misc]
            elif isinstance(op, ListNamespacesOp):
                tasks.append(lambda i=i, op=op: answer_list(i, op))  # type: ignore[misc]
        dynamo.parallel_map(lambda task: task(), tasks)
        return read_rows

    def _refresh(self, read_rows: list[dict[str, Any]], ops: list[Op], at: float) -> None:
        """Slide the expiry of read items by their own TTL, per the rule in `store.ttl`."""
        due = {(r["PK"], r["SK"]): r for r in read_rows if needs_refresh(r, at)}
        dynamo.parallel_map(lambda row: self._refresh_one(row, at), list(due.values()))

    def _refresh_one(self, row: dict[str, Any], at: float) -> None:
        try:
            self._client.update_item(
                TableName=self.table_name,
                Key=dynamo.serialize({"PK": row["PK"], "SK": row["SK"]}),
                UpdateExpression=f"SET {EXPIRES_AT} = :new",
                # Only the version we read: a concurrent put or delete wins.
                ConditionExpression=f"{EXPIRES_AT} = :old AND {TTL_MINUTES} = :ttl",
                ExpressionAttributeValues=dynamo.serialize(
                    {
                        ":new": expiry(float(row[TTL_MINUTES]), at),
                        ":old": row[EXPIRES_AT],
                        ":ttl": row[TTL_MINUTES],
                    }
                ),
            )
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise

    # Writes

    def _write(self, ops: list[Op], rows: dict[int, dict[str, Any]]) -> None:
        last: dict[ItemKey, int] = {}
        for i, op in enumerate(ops):
            if isinstance(op, PutOp):
                last[(op.namespace, op.key)] = i
        if not last:
            return
        puts = {k: rows[i] for k, i in last.items() if i in rows}
        deletes = [k for k, i in last.items() if i not in rows]
        with_ttl: dict[Namespace, bool] = {}
        for (namespace, _), row in puts.items():
            with_ttl[namespace] = with_ttl.get(namespace, False) or EXPIRES_AT in row
        self._registry.ensure(with_ttl)
        try:
            self._write_rows(list(puts.values()), deletes)
        except Exception:
            # Keep the registry exact for namespaces the failed write left empty.
            self._registry.forget_if_empty(with_ttl)
            raise
        if deletes:
            self._registry.forget_if_empty(namespace for namespace, _ in deletes)

    def _write_rows(self, puts: list[dict[str, Any]], deletes: list[ItemKey]) -> None:
        if len(puts) == 1 and not deletes:
            args = update_arguments(puts[0], OPTIONAL_ATTRIBUTES)
            self._client.update_item(
                TableName=self.table_name,
                Key=dynamo.serialize(args.pop("Key")),
                UpdateExpression=args["UpdateExpression"],
                ExpressionAttributeNames=args["ExpressionAttributeNames"],
                ExpressionAttributeValues=dynamo.serialize(args["ExpressionAttributeValues"]),
            )
            return
        if len(deletes) == 1 and not puts:
            self._client.delete_item(
                TableName=self.table_name, Key=dynamo.serialize(key_of(*deletes[0]))
            )
            return
        created = self._created_at(puts)
        requests: list[dict[str, Any]] = [
            {
                "PutRequest": {
                    "Item": {
                        **row,
                        CREATED_AT: created.get((row["PK"], row["SK"]), row[UPDATED_AT]),
                    }
                }
            }
            for row in puts
        ]
        requests += [{"DeleteRequest": {"Key": key_of(*key)}} for key in deletes]
        dynamo.batch_write(self._client, self.table_name, requests)

    def _created_at(self, puts: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
        """`created_at` of the items the puts overwrite (one BatchGetItem per 100)."""
        if not puts:
            return {}
        found = dynamo.batch_get(
            self._client,
            self.table_name,
            [{"PK": row["PK"], "SK": row["SK"]} for row in puts],
            consistent=True,
            projection="PK, SK, #c",
            names={"#c": CREATED_AT},
        )
        return {(row["PK"], row["SK"]): row[CREATED_AT] for row in found if CREATED_AT in row}


def _check_page(limit: int, offset: int) -> None:
    if not isinstance(limit, int) or limit < 0:
        raise ValueError(f"limit must be a non-negative integer, got {limit!r}")
    if not isinstance(offset, int) or offset < 0:
        raise ValueError(f"offset must be a non-negative integer, got {offset!r}")
