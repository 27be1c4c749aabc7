"""Search without a query: requests, items read and order, ours against the key-ordered
version of this store and the two peers, on the local emulation.

Namespaces `("bench", "t10", u)` (10 users) and `("bench", "t50", u)` (50 users) get
`--items` memories each, written one at a time and interleaved across users, so the
newest memories are spread over the namespaces. Each store then answers
`search(ns, limit=10)` for one namespace and for both prefixes; every DynamoDB call is
counted at botocore, with the items DynamoDB read to answer it (`ScannedCount`). An answer
is "newest" when it is exactly the 10 most recently written memories, newest first; "other"
is any other non-empty answer (both peers answer in key order).

The key-ordered version is this store at `--baseline` (the commit before the recency
index), imported from `git archive` as a separate package.

    python -m bench.recency [--items 20] [--baseline d425f92]
"""

from __future__ import annotations

import argparse
import functools
import importlib
import io
import os
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path

from langgraph.store.base import BaseStore, PutOp
from langgraph.store.dynamodb.testing import mock_aws

from bench.instrument import Meter
from bench.stores import KINDS, OURS

LIMIT = 10
BASELINE = "bdd944d"  # main just before the recency index: search in key order


Factory = Callable[[], BaseStore]


def baseline_factory(revision: str) -> Factory:
    """The store as it was at `revision`, importable as `baseline_store`."""
    archive = subprocess.run(
        ["git", "archive", revision, "store"], check=True, capture_output=True
    ).stdout
    root = Path(tempfile.mkdtemp(prefix="bench-baseline-"))
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(root, filter="data")
    (root / "store").rename(root / "baseline_store")
    sys.path.insert(0, str(root))
    module = importlib.import_module("baseline_store")

    def make() -> BaseStore:
        store: BaseStore = module.DynamoDBStore("key-ordered")
        store.setup()  # type: ignore[attr-defined]
        return store

    return make


def fill(store: BaseStore, items: int) -> list[tuple[tuple[str, ...], str]]:
    """Write the memories one put at a time; returns them oldest first."""
    written = []
    for i in range(items):
        for tenant, users in (("t10", 10), ("t50", 50)):
            for u in range(users):
                ns = ("bench", tenant, f"u{u:02d}")
                key = f"{(i * 7919 + u * 104729) % 1000003:07d}"  # not in write order
                store.batch([PutOp(ns, key, {"text": f"memory {i} of {u}", "i": i})])
                written.append((ns, key))
    return written


def measure(meter: Meter, store: BaseStore, items: int) -> dict[str, tuple[int, int, str]]:
    written = fill(store, items)
    searches = {
        "one namespace": ("bench", "t10", "u00"),
        "prefix of 10 namespaces": ("bench", "t10"),
        "prefix of 50 namespaces": ("bench", "t50"),
    }
    figures: dict[str, tuple[int, int, str]] = {}
    for name, prefix in searches.items():
        newest = [w for w in reversed(written) if w[0][: len(prefix)] == prefix][:LIMIT]
        try:
            sample = meter.measure(lambda prefix=prefix: store.search(prefix, limit=LIMIT))
        except Exception as error:  # a store that cannot answer: report it
            figures[name] = (0, 0, f"error: {type(error).__name__}")
            continue
        answer = [(tuple(r.namespace), r.key) for r in sample.result]
        order = "newest" if answer == newest else "empty" if not answer else "other"
        figures[name] = (sample.usage.requests, sample.usage.items_read, order)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--baseline", default=BASELINE)
    args = parser.parse_args()
    os.environ["AWS_DEFAULT_REGION"] = "us-east-1"  # the mock brings fake credentials
    kinds = {kind.name: kind for kind in KINDS}
    stores: dict[str, Factory] = {
        f"{name} (newest first)" if name == OURS else name: functools.partial(
            kind.make, f"recency-{name}", None, None
        )
        for name, kind in kinds.items()
    }
    stores = {
        f"{OURS} (newest first)": stores.pop(f"{OURS} (newest first)"),
        f"{OURS} @{args.baseline} (key order)": baseline_factory(args.baseline),
        **stores,
    }
    results: dict[str, dict[str, tuple[int, int, str]]] = {}
    with mock_aws(), Meter() as meter:
        for name, make in stores.items():
            try:
                store = make()
            except Exception as error:
                print(f"{name}: could not be set up: {type(error).__name__}: {error}")
                continue
            results[name] = measure(meter, store, args.items)
    print(
        f"\nsearch(prefix, limit={LIMIT}) without a query: requests / items read / order "
        f"({args.items} memories per namespace)"
    )
    columns = list(next(iter(results.values())))
    print(f"{'store':36} " + " ".join(f"{c:>26}" for c in columns))
    for name, figures in results.items():
        cells = [f"{n} / {read} / {order}" for n, read, order in figures.values()]
        print(f"{name:36} " + " ".join(f"{c:>26}" for c in cells))


if __name__ == "__main__":
    main()
