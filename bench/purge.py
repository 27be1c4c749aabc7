"""Purge's cost (issue 23): requests per 1,000 rows erased, against the theoretical minimum
of 40 BatchWriteItem calls (25 deletes each).

Two tenants are filled in place by `bench.fill.replicate` from items written through the
store (two embedded fields, so each item has one extra vector row): one namespace of
`--items` items (few partitions, long Queries), and `--users` namespaces of 2 items each
(the per-user layout: many small partitions, where pooling deletes across namespaces
matters). A neighbour tenant sits next to each. `store.purge` is then measured at
botocore's boundary (`bench.instrument.Meter`): every request by operation, the write and
read units, and the rows left (0). No timing is asserted anywhere.

Then the cost of `scan=True` (`--verify-scan`, issue 30): two identical small tenants,
one purged as usual and one with the Scan; the difference is the Scan, which reads the
whole table (every tenant's rows), not the purged tenant's.

    python -m bench.purge [--items 5000] [--users 1000] [--small 50]
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from langgraph.store.dynamodb import DynamoDBStore, PurgeResult
from langgraph.store.dynamodb.testing import LexicalEmbeddings, mock_aws

from .fill import replicate
from .instrument import Meter
from .stores import REGION

TABLE = "purge"
DIMS = 16
MINIMUM_PER_1000 = 1000 / 25  # BatchWriteItem calls of 25 deletes


@dataclass(frozen=True)
class Measured:
    layout: str
    rows: int
    calls: dict[str, int]
    write_units: float
    read_units: float
    result: PurgeResult
    table_rows: int

    def per_1000(self, operation: str | None = None) -> float:
        count = sum(self.calls.values()) if operation is None else self.calls.get(operation, 0)
        return 1000 * count / self.rows


def make_store() -> DynamoDBStore:
    index = {"dims": DIMS, "embed": LexicalEmbeddings(dims=DIMS), "fields": ["text", "topic"]}
    store = DynamoDBStore(TABLE, region_name=REGION, index=index)  # type: ignore[arg-type]
    store.setup()
    return store


def note(n: int) -> dict[str, str]:
    return {"text": f"memory {n} about sockets", "topic": f"proxies {n}"}


def one_big_namespace(store: DynamoDBStore, items: int) -> None:
    store.put(("memories", "big", "u"), "k000000", note(0))
    store.put(("memories", "big-neighbour", "u"), "k000000", note(0))
    replicate(TABLE, {"k000000": [f"k{n:06d}" for n in range(1, items)]})


def many_users(store: DynamoDBStore, users: int) -> None:
    for key in ("a", "b"):
        store.put(("memories", "many", "u000000"), key, note(0))
        store.put(("memories", "many-neighbour", "v000000"), key, note(0))
    replicate(TABLE, {"u000000": [f"u{n:06d}" for n in range(1, users)]})


def small_tenants(store: DynamoDBStore, users: int) -> None:
    """Two identical tenants of `users` namespaces of 2 items."""
    for tenant in ("small-a", "small-b"):
        for key in ("a", "b"):
            store.put(("memories", tenant, "w000000"), key, note(0))
    replicate(TABLE, {"w000000": [f"w{n:06d}" for n in range(1, users)]})


def measure(
    store: DynamoDBStore, layout: str, tenant: tuple[str, ...], *, scan: bool = False
) -> Measured:
    table_rows = store.client.describe_table(TableName=TABLE)["Table"]["ItemCount"]
    with Meter() as meter:
        sample = meter.measure(lambda: store.purge(tenant, scan=scan))
    result: PurgeResult = sample.result
    assert result.rows_left == 0, result
    return Measured(
        layout=layout,
        rows=sum(result.deleted.values()),
        calls=dict(sample.usage.calls),
        write_units=sample.usage.write_units,
        read_units=sample.usage.read_units,
        result=result,
        table_rows=table_rows,
    )


def report(measured: list[Measured]) -> str:
    lines = [
        "Purge: requests per 1,000 rows erased (minimum: "
        f"{MINIMUM_PER_1000:.0f} BatchWriteItem calls of 25 deletes)",
        "",
        "| layout | rows erased | BatchWriteItem / 1,000 rows | x minimum | Query / 1,000 "
        "| PutItem+DeleteItem (checkpoint) / 1,000 | all requests / 1,000 | WCU | RCU "
        "| rows left |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for m in measured:
        batches = m.per_1000("BatchWriteItem")
        checkpoint = m.per_1000("PutItem") + m.per_1000("DeleteItem")
        lines.append(
            f"| {m.layout} | {m.rows:,} | {batches:.1f} | {batches / MINIMUM_PER_1000:.2f} "
            f"| {m.per_1000('Query'):.1f} | {checkpoint:.1f} | {m.per_1000():.1f} "
            f"| {m.write_units:,.0f} | {m.read_units:,.0f} | {m.result.rows_left} |"
        )
    verified = [m for m in measured if m.result.verification.scanned]
    plain = [m for m in measured if not m.result.verification.scanned]
    for scanned, usual in zip(verified, plain[-len(verified) :], strict=True):
        lines += [
            "",
            f"`scan=True` on a table of {scanned.table_rows:,} rows, purging {scanned.rows:,} "
            f"of them: {scanned.calls.get('Scan', 0)} Scan requests, "
            f"{scanned.read_units - usual.read_units:,.1f} read units and "
            f"{sum(scanned.calls.values()) - sum(usual.calls.values())} requests more than "
            f"the same purge without it ({usual.read_units:,.1f} read units, "
            f"{sum(usual.calls.values())} requests).",
        ]
    lines += ["", "Rows erased by kind:"]
    lines += [f"- {m.layout}: {dict(m.result.deleted)}" for m in measured]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=5000)
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--small", type=int, default=50, help="users of each small tenant")
    args = parser.parse_args()
    with mock_aws():
        store = make_store()
        one_big_namespace(store, args.items)
        many_users(store, args.users)
        measured = [
            measure(store, f"one namespace of {args.items:,} items", ("memories", "big")),
            measure(store, f"{args.users:,} namespaces of 2 items", ("memories", "many")),
        ]
        small_tenants(store, args.small)
        layout = f"{args.small:,} namespaces of 2 items"
        measured += [
            measure(store, layout, ("memories", "small-a")),
            measure(store, f"{layout}, scan=True", ("memories", "small-b"), scan=True),
        ]
    print(report(measured))


if __name__ == "__main__":
    main()
