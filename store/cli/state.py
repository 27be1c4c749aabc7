"""Save the local endpoint's tables to a file and load them back, so memories survive a
restart of `serve --state FILE`.

The snapshot is what any DynamoDB client can read and write (each table's definition,
TTL setting and items as DynamoDB JSON), taken and restored through the endpoint itself,
so vectors are re-indexed by the emulation on load.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ClientFor = Callable[[str], Any]

SNAPSHOT_VERSION = 1
_INDEX_KEYS = ("IndexName", "KeySchema", "Projection")
_VECTOR_INDEX_KEYS = (
    "IndexName",
    "VectorAttribute",
    "Dimensions",
    "DistanceFunction",
    "Projection",
    "SearchSchema",
)


def save(client_for: ClientFor, regions: Iterable[str], path: Path) -> int:
    """Write every table of the endpoint in `regions` to `path` (atomically); returns the
    item count. `client_for(region)` is a DynamoDB client on the endpoint."""
    tables = []
    count = 0
    for region in sorted(set(regions)):
        client = client_for(region)
        for name in _table_names(client):
            items = list(_scan(client, name))
            count += len(items)
            tables.append(
                {
                    "region": region,
                    "create": _create_request(client.describe_table(TableName=name)["Table"]),
                    "ttl_attribute": _ttl_attribute(client, name),
                    "items": items,
                }
            )
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as out:
        json.dump({"version": SNAPSHOT_VERSION, "tables": tables}, out)
    os.replace(out.name, path)
    return count


def load(client_for: ClientFor, path: Path) -> int:
    """Recreate the tables and items saved in `path`; returns the item count."""
    snapshot = json.loads(path.read_text())
    if snapshot.get("version") != SNAPSHOT_VERSION:
        raise ValueError(f"{path} is not a state file of this version (want {SNAPSHOT_VERSION})")
    count = 0
    for table in snapshot["tables"]:
        client = client_for(table["region"])
        name = table["create"]["TableName"]
        client.create_table(**table["create"])
        client.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 0.1})
        if table["ttl_attribute"]:
            client.update_time_to_live(
                TableName=name,
                TimeToLiveSpecification={"Enabled": True, "AttributeName": table["ttl_attribute"]},
            )
        items = table["items"]
        for start in range(0, len(items), 25):
            batch = [{"PutRequest": {"Item": item}} for item in items[start : start + 25]]
            client.batch_write_item(RequestItems={name: batch})
        count += len(items)
    return count


def _table_names(client: Any) -> list[str]:
    pages = client.get_paginator("list_tables").paginate()
    return [name for page in pages for name in page["TableNames"]]


def _scan(client: Any, table: str) -> Any:
    for page in client.get_paginator("scan").paginate(TableName=table):
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
