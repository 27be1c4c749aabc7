"""Save the local endpoint's tables to a file and load them back, so memories survive a
restart of `serve --state FILE`.

The snapshot is what any DynamoDB client can read and write (each table's definition,
TTL setting and items as DynamoDB JSON, binary values in base64 as on the wire), taken and
restored through the endpoint itself, so vectors are re-indexed by the emulation on load.
A file is claimed by one serve at a time (`StateLock`) and replaced whole at each save.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

from botocore.exceptions import ClientError, ParamValidationError
from langgraph.store.dynamodb.cli.errors import BAD_INPUT, ENVIRONMENT, CliError
from langgraph.store.dynamodb.cli.files import replacing, temp_sibling
from langgraph.store.dynamodb.cli.wire import binary_as, to_bytes, to_text

ClientFor = Callable[[str], Any]

SNAPSHOT_VERSION = 1
LOCK_SUFFIX = ".lock"
_KEY_FIELDS = ("KeySchema", "AttributeDefinitions")
_INDEX_KEYS = ("IndexName", "KeySchema", "Projection")
_VECTOR_INDEX_KEYS = (
    "IndexName",
    "VectorAttribute",
    "Dimensions",
    "DistanceFunction",
    "Projection",
    "SearchSchema",
)


class StateLock:
    """Claims a state file for this process: refuses (one line, before anything runs) a
    file that cannot be saved, and one another serve holds, naming it. The claim is an
    exclusive `flock` on `<file>.lock`, which the OS releases when the process ends however
    it ends; the lock file itself stays (deleting it would let two processes lock apart)."""

    def __init__(self, state: Path) -> None:
        self.state = state
        self.path = state.with_name(state.name + LOCK_SUFFIX)
        self._fd = -1

    def __enter__(self) -> StateLock:
        try:
            self.state.parent.mkdir(parents=True, exist_ok=True)
            if self.state.is_dir():
                raise IsADirectoryError(errno.EISDIR, "Is a directory", str(self.state))
            with temp_sibling(self.state) as probe:
                os.unlink(probe.name)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise CliError(
                f"Cannot write the state file {self.state} ({error.strerror}: "
                f"{error.filename}): pass a --state path in a writable directory."
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 512).decode(errors="replace").strip() or "pid unknown"
            os.close(fd)
            raise CliError(
                f"State file {self.state} is in use by another serve ({holder}): stop it, "
                "or pass another --state file.",
                ENVIRONMENT,
            ) from None
        self._fd = fd
        self.record("")
        return self

    def record(self, url: str) -> None:
        """Write the holder (this pid, and `url` once known) for a refused serve to name."""
        text = f"pid {os.getpid()}" + (f", {url}" if url else "")
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, text.encode(), 0)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        os.close(self._fd)


def save(client_for: ClientFor, regions: Iterable[str], path: Path) -> int:
    """Replace `path` whole with every table of the endpoint in `regions`; returns the
    item count. `client_for(region)` is a DynamoDB client on the endpoint."""
    tables = []
    count = 0
    for region in sorted(set(regions)):
        client = client_for(region)
        for name in _table_names(client):
            items = [binary_as(to_text, item) for item in _scan(client, name)]
            count += len(items)
            tables.append(
                {
                    "region": region,
                    "create": _create_request(client.describe_table(TableName=name)["Table"]),
                    "ttl_attribute": _ttl_attribute(client, name),
                    "items": items,
                }
            )
    path.parent.mkdir(parents=True, exist_ok=True)  # in case it was removed meanwhile
    with replacing(path) as out:
        json.dump({"version": SNAPSHOT_VERSION, "tables": tables}, out)
    return count


def load(client_for: ClientFor, path: Path, regions: Collection[str]) -> int:
    """Recreate the tables and items saved in `path` (each in one of `regions`, those the
    endpoint serves); returns the item count. A file `save` did not write raises
    `CliError` naming what is wrong with it."""
    tables = _read(path)
    for number, table in enumerate(tables, start=1):
        if table["region"] not in regions:
            raise _not_a_snapshot(
                path,
                f"table entry {number} is in region {table['region']!r}, which the endpoint "
                f"does not serve (it serves {', '.join(sorted(regions)[:3])}, ...)",
            )
    count = 0
    for table in tables:
        name = table["create"]["TableName"]
        try:
            client = client_for(table["region"])
            client.create_table(**table["create"])
            client.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 0.1})
            if table["ttl_attribute"]:
                client.update_time_to_live(
                    TableName=name,
                    TimeToLiveSpecification={
                        "Enabled": True,
                        "AttributeName": table["ttl_attribute"],
                    },
                )
            items = [binary_as(to_bytes, item) for item in table["items"]]
            for start in range(0, len(items), 25):
                batch = [{"PutRequest": {"Item": item}} for item in items[start : start + 25]]
                client.batch_write_item(RequestItems={name: batch})
        except (ClientError, ParamValidationError, ValueError) as error:
            detail = str(error).replace("\n", " ")
            raise _not_a_snapshot(path, f"table {name!r} cannot be restored: {detail}") from None
        count += len(items)
    return count


def _read(path: Path) -> list[dict[str, Any]]:
    """The table entries of a state file, checked for the shape `save` writes."""
    try:
        snapshot = json.loads(path.read_text())
    except OSError as error:
        raise CliError(f"Cannot read the state file {path}: {error.strerror}.") from None
    except (ValueError, RecursionError) as error:
        raise _not_a_snapshot(path, f"not JSON ({error})") from None
    if not isinstance(snapshot, dict) or not isinstance(snapshot.get("tables"), list):
        raise _not_a_snapshot(path, 'not an object with a "tables" list')
    if snapshot.get("version") != SNAPSHOT_VERSION:
        raise _not_a_snapshot(
            path, f"version {snapshot.get('version')!r}, this serve reads {SNAPSHOT_VERSION}"
        )
    tables: list[dict[str, Any]] = snapshot["tables"]
    for number, table in enumerate(tables, start=1):
        if not _is_saved_table(table):
            raise _not_a_snapshot(
                path,
                f"table entry {number} is not a saved table (region, create with TableName, "
                "KeySchema and AttributeDefinitions, ttl_attribute, items)",
            )
    return tables


def _is_saved_table(table: Any) -> bool:
    return (
        isinstance(table, dict)
        and isinstance(table.get("region"), str)
        and isinstance(table.get("create"), dict)
        and isinstance(table["create"].get("TableName"), str)
        and all(isinstance(table["create"].get(key), list) for key in _KEY_FIELDS)
        and isinstance(table.get("ttl_attribute"), str | None)
        and isinstance(table.get("items"), list)
        and all(isinstance(item, dict) for item in table["items"])
    )


def _not_a_snapshot(path: Path, problem: str) -> CliError:
    return CliError(
        f"State file {path} is not one serve saved: {problem}. Move it away or pass "
        "another --state file (serve creates it).",
        BAD_INPUT,
    )


def _table_names(client: Any) -> list[str]:
    pages = client.get_paginator("list_tables").paginate()
    return [name for page in pages for name in page["TableNames"]]


def _scan(client: Any, table: str) -> Iterator[dict[str, Any]]:
    for page in client.get_paginator("scan").paginate(TableName=table, ConsistentRead=True):
        yield from page["Items"]


def _ttl_attribute(client: Any, table: str) -> str | None:
    ttl = client.describe_time_to_live(TableName=table)["TimeToLiveDescription"]
    if ttl.get("TimeToLiveStatus") in ("ENABLED", "ENABLING"):
        return str(ttl["AttributeName"])
    return None


def _create_request(description: dict[str, Any]) -> dict[str, Any]:
    """A CreateTable request that rebuilds the described table."""
    request: dict[str, Any] = {
        "TableName": description["TableName"],
        "AttributeDefinitions": description["AttributeDefinitions"],
        "KeySchema": description["KeySchema"],
        "BillingMode": "PAY_PER_REQUEST",
    }
    stream = description.get("StreamSpecification")
    if stream and stream.get("StreamEnabled"):
        request["StreamSpecification"] = stream
    for kind in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes"):
        if description.get(kind):
            request[kind] = [
                {key: index[key] for key in _INDEX_KEYS} for index in description[kind]
            ]
    if description.get("VectorIndexes"):
        request["VectorIndexes"] = [
            {key: index[key] for key in _VECTOR_INDEX_KEYS if key in index}
            for index in description["VectorIndexes"]
        ]
    return request
