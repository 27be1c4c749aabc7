"""Vector index lifecycle: create or retrofit it, refuse a mismatch, wait until usable."""

from __future__ import annotations

import logging
import time
from typing import Any

from botocore.exceptions import ClientError
from langgraph.store.dynamodb.items.embedding import to_search_vector
from langgraph.store.dynamodb.items.index_config import IndexSettings
from langgraph.store.dynamodb.table.creation import describe
from langgraph.store.dynamodb.table.errors import OFFLINE_BACKENDS, UnsupportedBackendError
from langgraph.store.dynamodb.table.schema import GROUPS_PK, PK, VECTOR
from langgraph.store.dynamodb.table.table_spec import attribute_definitions, index_spec

logger = logging.getLogger(__name__)

NOT_YET_SEARCHABLE = "does not have the specified index"
# A backend that drops vector indexes never reports one; AWS reports it at once.
UNSUPPORTED_AFTER_SECONDS = 5.0
LOG_EVERY_SECONDS = 60.0


def find_index(description: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The named vector index of a table description, if any."""
    for index in description.get("VectorIndexes", []):
        if index["IndexName"] == name:
            return dict(index)
    return None


def check_compatible(table: str, existing: dict[str, Any], settings: IndexSettings) -> None:
    """Raise `ValueError` when an existing index's immutable settings disagree."""
    wanted = index_spec(settings)
    name = settings.index_name
    way_out = (
        f"These settings are immutable: pick a new index['index_name'] (setup() creates it), "
        f"or delete index {name!r} (UpdateTable VectorIndexUpdates=[{{'Delete': "
        f"{{'IndexName': {name!r}}}}}]) and run setup() again."
    )
    checks = [
        ("Dimensions", existing.get("Dimensions"), wanted["Dimensions"], "index['dims']"),
        (
            "DistanceFunction",
            existing.get("DistanceFunction"),
            wanted["DistanceFunction"],
            "index['distance_function']",
        ),
        (
            "VectorAttribute",
            existing.get("VectorAttribute", {}).get("AttributeName"),
            VECTOR,
            "the store's vector attribute",
        ),
        (
            "SearchSchema",
            _schema(existing.get("SearchSchema", [])),
            _schema(wanted["SearchSchema"]),
            "index['filter_fields'] (with PK as HASH)",
        ),
        (
            "Projection",
            existing.get("Projection", {}).get("ProjectionType"),
            "ALL",
            "the store's projection",
        ),
    ]
    for field, have, want, setting in checks:
        if have != want:
            raise ValueError(
                f"Vector index {name!r} on table {table} has {field} {have!r} but {setting} "
                f"needs {want!r}. {way_out}"
            )


def _schema(elements: list[dict[str, str]]) -> list[tuple[str, str]]:
    return sorted((e["AttributeName"], e["SearchSchemaElementType"]) for e in elements)


def ensure_index(client: Any, table: str, settings: IndexSettings, *, timeout: float) -> None:
    """Retrofit the index onto an existing table if missing, check it, and return only
    once it is ACTIVE, not backfilling, and answering searches. Fails within seconds on a
    backend that accepts vector indexes but drops them (plain moto, DynamoDB Local)."""
    wait = _Wait(timeout)
    while True:
        description = describe(client, table)
        if description is None:
            raise RuntimeError(f"Table {table} disappeared while setting up its vector index")
        existing = find_index(description, settings.index_name)
        if existing is not None:
            check_compatible(table, existing, settings)
            break
        if _try_create(client, table, settings):
            break
        wait.sleep(f"another index operation on {table} to finish")
    _wait_ready(client, table, settings, wait)
    _wait_searchable(client, table, settings, wait)


def _try_create(client: Any, table: str, settings: IndexSettings) -> bool:
    logger.info("Adding vector index %s to table %s", settings.index_name, table)
    try:
        client.update_table(
            TableName=table,
            AttributeDefinitions=attribute_definitions(settings),
            VectorIndexUpdates=[{"Create": index_spec(settings)}],
        )
    except ClientError as error:
        code = error.response["Error"]["Code"]
        if code in ("LimitExceededException", "ResourceInUseException"):
            return False  # another index operation (maybe another process's) is running
        raise
    return True


def _wait_ready(client: Any, table: str, settings: IndexSettings, wait: _Wait) -> None:
    dropped_since = time.monotonic()
    while True:
        description = describe(client, table) or {}
        index = find_index(description, settings.index_name)
        if index is None:
            if time.monotonic() - dropped_since > UNSUPPORTED_AFTER_SECONDS:
                raise VectorIndexUnsupportedError(_unsupported(client, table, settings))
            wait.sleep(f"vector index {settings.index_name} to appear", cap=1.0)
            continue
        status, backfilling = index.get("IndexStatus"), bool(index.get("Backfilling"))
        if status == "ACTIVE" and not backfilling:
            return
        phase = "backfilling" if backfilling else (status or "creating").lower()
        wait.sleep(f"vector index {settings.index_name}: {phase}")


def _wait_searchable(client: Any, table: str, settings: IndexSettings, wait: _Wait) -> None:
    """The search endpoint may lag ACTIVE briefly; probe an empty partition until it answers."""
    probe = [1.0] + [0.0] * (settings.dims - 1)
    while True:
        try:
            client.search_vectors(
                TableName=table,
                IndexName=settings.index_name,
                SearchVector=to_search_vector(probe),
                TopK=1,
                SearchConditionExpression="#pk = :pk",
                ExpressionAttributeNames={"#pk": PK},
                ExpressionAttributeValues={":pk": {"S": GROUPS_PK}},
            )
            return
        except ClientError as error:
            if NOT_YET_SEARCHABLE not in str(error):
                raise
        wait.sleep(f"vector index {settings.index_name}: waiting for search")


def _unsupported(client: Any, table: str, settings: IndexSettings) -> str:
    where = client.meta.endpoint_url
    return (
        f"Table {table} was given vector index {settings.index_name!r}, but DescribeTable at "
        f"{where} does not report it: this backend does not support DynamoDB vector indexes. "
        "Plain moto (moto.mock_aws, moto_server), DynamoDB Local and LocalStack accept "
        f"VectorIndexes and silently drop them. {OFFLINE_BACKENDS}; on AWS, use "
        "boto3>=1.43.64 in a region that offers vector indexes."
    )


class VectorIndexUnsupportedError(UnsupportedBackendError):
    """The DynamoDB backend accepted a vector index but does not keep it."""


class _Wait:
    """Sleeps with exponential backoff until a deadline, logging progress at INFO with the
    elapsed time and the phase (at least every `LOG_EVERY_SECONDS`)."""

    def __init__(self, timeout: float) -> None:
        self.started = time.monotonic()
        self.deadline = self.started + timeout
        self.delay = 0.2
        self.logged_at = -LOG_EVERY_SECONDS
        self.phase = ""

    def sleep(self, waiting_for: str, *, cap: float = 10.0) -> None:
        now = time.monotonic()
        elapsed = now - self.started
        if now + self.delay > self.deadline:
            raise TimeoutError(
                f"setup() timed out after {elapsed:.0f}s waiting for {waiting_for}; call "
                "setup() again to keep waiting (it is idempotent) or pass a larger timeout."
            )
        if waiting_for != self.phase or now - self.logged_at >= LOG_EVERY_SECONDS:
            logger.info("setup(): %.0fs elapsed, waiting for %s", elapsed, waiting_for)
            self.phase, self.logged_at = waiting_for, now
        time.sleep(min(self.delay, cap))
        self.delay = min(self.delay * 2, cap)
