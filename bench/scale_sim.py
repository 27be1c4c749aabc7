"""Internet-scale load model: which DynamoDB partitions does the store heat, and how much?

Two steps, so the model is fed by what the store really sends, not by what we believe it
sends:

1. **Record** (`record()`): run each operation of the workload once on the emulation and
   capture every request at botocore's boundary: API, the partition key it reads or
   writes, items read, capacity units (from the items' full sizes, DynamoDB's rounding:
   4 KB per read unit, halved when eventually consistent; 1 KB per write unit), and
   `SearchVectors` calls. Concrete labels of the tenant and user acting are replaced by
   the placeholders `{tenant}` and `{user}`, so a key is either *shared* (the same for
   every tenant, e.g. a registry partition) or *per tenant* / *per user*.
2. **Load** (`load()`): multiply each operation's requests by its rate in the traffic mix
   and spread them over tenants and users: a shared key receives the whole rate, a
   per-tenant key the share of the busiest tenant, a per-user key the share of the busiest
   user. The result is read and write units per second on the hottest partition of each
   kind, against DynamoDB's per-partition limits (3,000 RCU/s, 1,000 WCU/s).

`python -m bench.scale_sim` prints the table and writes `bench/results/scale.md`.
Assumptions are the constants below; docs/scale.md discusses them.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from botocore.client import BaseClient
from botocore.exceptions import ClientError
from langgraph.store.base import BaseStore, PutOp
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.table import clock
from langgraph.store.dynamodb.table.values import attribute_size
from langgraph.store.dynamodb.testing import LexicalEmbeddings, mock_aws

TENANTS = 100_000
USERS_PER_TENANT = 10
READS_PER_SECOND = 10_000
WRITES_PER_SECOND = 2_000
# The busiest tenant sends this share of all traffic; its busiest user this share of it.
HOT_TENANT_SHARE = 0.01
HOT_USER_SHARE = 0.5
PARTITION_RCU = 3_000
PARTITION_WCU = 1_000
# Application processes (containers, Lambda instances) sharing the table; each keeps its
# own registration cache, so a namespace is registered about once per process per cache
# lifetime. Used to bound how many puts write a registration.
PROCESSES = 200
CACHE_SECONDS = 300.0

TENANT, USER = "TENANT0", "USER0"
DIMS = 1024

# Share of reads and of writes per operation (each mix sums to 1).
READ_MIX = {
    "get": 0.30,
    "search user (no query)": 0.20,
    "semantic search user": 0.30,
    "semantic search tenant": 0.05,
    "search tenant (no query)": 0.05,
    "list_namespaces tenant": 0.05,
    "get (TTL refresh due)": 0.05,
}
WRITE_MIX = {"put (namespace new to this process)": 0.0, "put": 0.9, "delete": 0.1}
# Namespaces created per second (new users): 86,400 a day, generous for this platform.
NEW_NAMESPACES_PER_SECOND = 1.0

_KEY_CONDITION = re.compile(r"(?:PK|#\w+)\s*=\s*(:\w+)")


@dataclass
class Request:
    """One recorded request: its API, partition key, and capacity."""

    api: str
    key: str
    rcu: float = 0.0
    wcu: float = 0.0
    searches: int = 0


@dataclass
class Recording:
    """The requests each operation sends."""

    operations: dict[str, list[Request]] = field(default_factory=dict)


def _generalize(key: str) -> str:
    key = re.sub(rf"{USER}\b|USER-NEW", "{user}", key.replace(TENANT, "{tenant}"))
    return re.sub(r"USER[a-z]\b", "{other user}", key)


def _size(item: dict[str, Any]) -> int:
    """DynamoDB's size of an item in wire form: the store's own rule."""
    return sum(len(name.encode()) + attribute_size(value) for name, value in item.items())


def _read_units(total_bytes: int, consistent: bool) -> float:
    units = max(1, math.ceil(total_bytes / 4096))
    return float(units) if consistent else units / 2


def _write_units(item_bytes: int) -> float:
    return float(max(1, math.ceil(item_bytes / 1024)))


class _Recorder:
    """Captures requests at botocore's boundary; sizes reads by replaying them without a
    projection (read units are billed on whole items)."""

    def __init__(self) -> None:
        self.requests: list[Request] = []

    def __call__(self, client: Any, original: Any, api: str, params: dict[str, Any]) -> Any:
        try:
            response = original(client, api, params)
        except ClientError:
            # A rejected conditional write still consumes a write unit.
            if api in ("PutItem", "UpdateItem", "DeleteItem"):
                key = params.get("Key") or params["Item"]
                self.requests.append(Request(api, _generalize(key["PK"]["S"]), wcu=1.0))
            raise
        if client.meta.service_model.service_name == "dynamodb":
            # the replays in `_describe` call botocore's own method: they are not recorded
            self.requests.extend(list(self._describe(client, original, api, params, response)))
        return response

    def _describe(
        self, client: Any, original: Any, api: str, params: dict[str, Any], response: Any
    ) -> Iterator[Request]:
        consistent = bool(params.get("ConsistentRead"))
        if api == "Query":
            (name,) = _KEY_CONDITION.findall(params["KeyConditionExpression"])[:1]
            key = params["ExpressionAttributeValues"][name]["S"]
            full = {k: v for k, v in params.items() if k != "ProjectionExpression"}
            if "ExpressionAttributeNames" in full and "ProjectionExpression" in params:
                used = params["KeyConditionExpression"] + str(params.get("FilterExpression"))
                names = {k: v for k, v in full["ExpressionAttributeNames"].items() if k in used}
                full["ExpressionAttributeNames"] = names
                if not names:
                    del full["ExpressionAttributeNames"]
            full.pop("FilterExpression", None)
            if "FilterExpression" in params:
                values = {
                    k: v
                    for k, v in full["ExpressionAttributeValues"].items()
                    if k in params["KeyConditionExpression"]
                }
                full["ExpressionAttributeValues"] = values
            items = original(client, "Query", full).get("Items", [])[: response["ScannedCount"]]
            total = sum(_size(i) for i in items)
            yield Request(api, _generalize(key), rcu=_read_units(total, consistent))
        elif api == "GetItem":
            item = response.get("Item", {})
            yield Request(
                api, _generalize(params["Key"]["PK"]["S"]), rcu=_read_units(_size(item), consistent)
            )
        elif api == "BatchGetItem":
            for table, items in response.get("Responses", {}).items():
                strong = bool(params["RequestItems"][table].get("ConsistentRead"))
                for item in items:
                    whole = original(
                        client,
                        "GetItem",
                        {"TableName": table, "Key": {"PK": item["PK"], "SK": item["SK"]}},
                    )
                    yield Request(
                        "BatchGetItem",
                        _generalize(item["PK"]["S"]),
                        rcu=_read_units(_size(whole.get("Item", item)), strong),
                    )
        elif api in ("PutItem", "UpdateItem", "DeleteItem"):
            key = params.get("Key") or {"PK": params["Item"]["PK"], "SK": params["Item"]["SK"]}
            after = original(client, "GetItem", {"TableName": params["TableName"], "Key": key})
            size = _size(after.get("Item") or params.get("Item") or key)
            yield Request(api, _generalize(key["PK"]["S"]), wcu=_write_units(size))
        elif api == "BatchWriteItem":
            for requests in params["RequestItems"].values():
                for request in requests:
                    if "PutRequest" in request:
                        item = request["PutRequest"]["Item"]
                        yield Request(
                            api, _generalize(item["PK"]["S"]), wcu=_write_units(_size(item))
                        )
                    else:
                        key = request["DeleteRequest"]["Key"]
                        yield Request(api, _generalize(key["PK"]["S"]), wcu=1.0)
        elif api == "SearchVectors":
            values = params.get("ExpressionAttributeValues", {})
            key = next(v["S"] for v in values.values() if "S" in v)
            yield Request(api, _generalize(key), searches=1)


@contextmanager
def _recording(recorder: _Recorder) -> Iterator[None]:
    original = BaseClient._make_api_call

    def recorded(self: BaseClient, api: str, params: dict[str, Any]) -> Any:
        return recorder(self, original, api, params)

    BaseClient._make_api_call = recorded  # type: ignore[method-assign]
    try:
        yield
    finally:
        BaseClient._make_api_call = original  # type: ignore[method-assign]


def _text(n: int) -> dict[str, Any]:
    return {"text": f"memory {n}: the customer mentioned detail number {n} " * 3, "n": n}


# A TTL'd memory read this long after it was last refreshed (a tenth of its 60 minutes).
REFRESH_DUE = 7 * 60.0


def _later(seconds: float, run: Callable[[], Any]) -> Any:
    """Run as if `seconds` had passed (the library reads time from `clock`)."""
    real = clock.now
    clock.now = lambda: real() + seconds  # type: ignore[method-assign]
    try:
        return run()
    finally:
        clock.now = real  # type: ignore[method-assign]


def operations(store: BaseStore, cold: BaseStore) -> dict[str, Callable[[], Any]]:
    """One call of each operation in the mixes, by the busiest tenant's busiest user;
    `cold` is a running process (its model already checked) that has not yet seen that
    user's namespace."""
    user = ("memories", TENANT, USER)
    tenant = ("memories", TENANT)
    return {
        "get": lambda: store.get(user, "m1"),
        "search user (no query)": lambda: store.search(user, limit=10),
        "semantic search user": lambda: store.search(user, query="detail number 3", limit=5),
        "semantic search tenant": lambda: store.search(tenant, query="detail number 3", limit=5),
        "search tenant (no query)": lambda: store.search(tenant, limit=10),
        "list_namespaces tenant": lambda: store.list_namespaces(prefix=tenant),
        "get (TTL refresh due)": lambda: _later(REFRESH_DUE, lambda: store.get(user, "m1")),
        "put (namespace new to this process)": lambda: cold.put(user, "m-new2", _text(0)),
        "put (namespace new to the table)": lambda: store.put(
            ("memories", TENANT, "USER-NEW"), "m", _text(0)
        ),
        "put": lambda: store.put(user, "m-new", _text(99)),
        "delete": lambda: store.delete(user, "m-new"),
    }


def record() -> Recording:
    """Run each operation once on the emulation against a populated table."""
    recording = Recording()
    index = {"dims": DIMS, "embed": LexicalEmbeddings(dims=DIMS), "fields": ["text"]}
    with mock_aws():
        store = DynamoDBStore("scale", region_name="us-east-1", index=index)  # type: ignore[arg-type]
        store.setup()
        puts = [
            PutOp(("memories", t, u), f"m{i}", _text(i))
            for t in (TENANT, "TENANTx", "TENANTy")
            for u in (USER, "USERa", "USERb")
            for i in range(20)
        ]
        store.batch(puts)
        store.put(("memories", TENANT, USER), "m1", _text(1), ttl=60)
        store.put(("memories", TENANT, USER), "m-new", _text(98))

        def new_process() -> BaseStore:
            return DynamoDBStore(
                "scale",
                region_name="us-east-1",
                index=index,  # type: ignore[arg-type]
                ttl={"refresh_on_read": True},
            )

        fresh = new_process()
        fresh.put(("memories", TENANT, USER), "warm", _text(2))  # this process knows it
        cold = new_process()
        cold.put(("memories", "TENANTx", "USERa"), "warm", _text(3))  # checks the model once
        for name, run in operations(fresh, cold).items():
            recorder = _Recorder()
            with _recording(recorder):
                run()
            recording.operations[name] = recorder.requests
    return recording


@dataclass
class Load:
    """Units per second on one partition key class."""

    key: str
    kind: str
    rcu: float = 0.0
    wcu: float = 0.0
    searches: float = 0.0

    @property
    def worst_share(self) -> float:
        return max(self.rcu / PARTITION_RCU, self.wcu / PARTITION_WCU)


def load(recording: Recording) -> list[Load]:
    """Units per second on the hottest partition of each key class at the target load."""
    rates = {name: READS_PER_SECOND * share for name, share in READ_MIX.items()}
    rates |= {name: WRITES_PER_SECOND * share for name, share in WRITE_MIX.items()}
    # A put registers its namespace when its process has not seen it within the cache
    # lifetime: with puts spread over a million users that is nearly every put, bounded
    # by processes x distinct namespaces they can meet.
    # by how often one process meets the same namespace again within its cache lifetime.
    users = TENANTS * USERS_PER_TENANT
    repeats = rates["put"] / users * CACHE_SECONDS / PROCESSES
    fresh_share = 1 / (1 + repeats)
    rates["put (namespace new to this process)"] = rates["put"] * fresh_share
    rates["put"] *= 1 - fresh_share
    rates["put (namespace new to the table)"] = NEW_NAMESPACES_PER_SECOND
    loads: dict[str, Load] = {}
    for name, requests in recording.operations.items():
        rate = rates.get(name, 0.0)
        for request in requests:
            if "{user}" in request.key:
                kind, share = "per user", HOT_TENANT_SHARE * HOT_USER_SHARE
            elif "{other user}" in request.key:
                others = USERS_PER_TENANT - 1
                kind, share = "per user", HOT_TENANT_SHARE * (1 - HOT_USER_SHARE) / others
            elif "{tenant}" in request.key:
                kind, share = "per tenant", HOT_TENANT_SHARE
            else:
                kind, share = "shared", 1.0
            entry = loads.setdefault(request.key, Load(request.key, kind))
            entry.rcu += rate * share * request.rcu
            entry.wcu += rate * share * request.wcu
            entry.searches += rate * share * request.searches
    return sorted(loads.values(), key=lambda entry: -entry.worst_share)


def report(recording: Recording, loads: list[Load]) -> str:
    """Markdown: the recorded request patterns and the hottest partitions."""
    lines = [
        "# Scale model: hottest partitions at the target load",
        "",
        f"{TENANTS:,} tenants x {USERS_PER_TENANT} users, {READS_PER_SECOND:,} reads/s and "
        f"{WRITES_PER_SECOND:,} writes/s; busiest tenant {HOT_TENANT_SHARE:.0%} of traffic, "
        f"its busiest user {HOT_USER_SHARE:.0%} of that. Limits per partition: "
        f"{PARTITION_RCU:,} RCU/s, {PARTITION_WCU:,} WCU/s.",
        "",
        "| partition key | kind | RCU/s | WCU/s | SearchVectors/s | % of limit |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for entry in loads:
        lines.append(
            f"| `{entry.key}` | {entry.kind} | {entry.rcu:,.1f} | {entry.wcu:,.1f} | "
            f"{entry.searches:,.1f} | {entry.worst_share:.1%} |"
        )
    lines += ["", "## Requests recorded per operation", ""]
    for name, requests in recording.operations.items():
        by_key: dict[tuple[str, str], list[Request]] = defaultdict(list)
        for request in requests:
            by_key[(request.api, request.key)].append(request)
        calls = "; ".join(
            f"{api} `{key}` x{len(group)} ({sum(r.rcu for r in group):g} RCU, "
            f"{sum(r.wcu for r in group):g} WCU)"
            for (api, key), group in by_key.items()
        )
        lines.append(f"- **{name}**: {calls or 'no requests'}")
    return "\n".join(lines) + "\n"


def main() -> None:
    recording = record()
    loads = load(recording)
    text = report(recording, loads)
    out = Path(__file__).parent / "results" / "scale.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
