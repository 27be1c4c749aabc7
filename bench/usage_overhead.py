"""The cost of usage accounting (`on_usage`): requests and CPU, with and without the hook.

Two stores on the same emulation, in the same run, make the same calls (puts, gets,
searches with and without a query, listings over a few tenants). Reported: the requests
each sent (accounting must add none), the CPU per store call of each (client and
emulation together, interleaved rounds, best of them), and the accounting alone: the
answers the metered store received, replayed through `usage_records` and the hook.

    python -m bench.usage_overhead [--rounds 5] [--tenants 10]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.table.usage import UsageRecord, usage_records
from langgraph.store.dynamodb.testing import LexicalEmbeddings, mock_aws

DIMS = 64


def make_store(table: str, hook: Callable[[UsageRecord], None] | None) -> DynamoDBStore:
    index: Any = {"dims": DIMS, "embed": LexicalEmbeddings(dims=DIMS), "fields": ["text"]}
    store = DynamoDBStore(table, region_name="us-east-1", index=index, on_usage=hook)
    store.setup()
    return store


def workload(store: DynamoDBStore, tenants: int, round_number: int) -> int:
    """The calls of one round; returns how many store calls it made."""
    calls = 0
    for t in range(tenants):
        ns = ("org", f"tenant-{t}", "notes")
        for k in range(3):
            store.put(ns, f"r{round_number}-{k}", {"text": f"note {k} of tenant {t} " * 20})
            calls += 1
        store.get(ns, f"r{round_number}-0")
        store.search(ns[:2], query="note of tenant", limit=3)
        store.search(ns[:2], limit=3)
        calls += 3
    store.list_namespaces(prefix=("org",), limit=20)
    return calls + 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tenants", type=int, default=10)
    args = parser.parse_args()
    with mock_aws():
        records: list[UsageRecord] = []
        plain = make_store("plain", None)
        metered = make_store("metered", records.append)
        sent: dict[str, Counter[str]] = {"plain": Counter(), "metered": Counter()}
        answers: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
        for name, store in (("plain", plain), ("metered", metered)):
            store.client.meta.events.register(
                "before-call.dynamodb",
                lambda model, counter=sent[name], **_: counter.update([model.name]),
            )
        metered.client.meta.events.register(
            "after-call.dynamodb",
            lambda model, parsed, context, **_: answers.append(
                (model.name, context.get("usage_params") or {}, parsed)
            ),
        )
        cpu: dict[str, float] = {"plain": float("inf"), "metered": float("inf")}
        calls = 0
        for round_number in range(args.rounds):
            for name, store in (("plain", plain), ("metered", metered)):
                started = time.process_time()
                calls = workload(store, args.tenants, round_number)
                cpu[name] = min(cpu[name], (time.process_time() - started) / calls)
        metered_answers = [a for a in answers if "ConsumedCapacity" in a[2]]
        sink: list[UsageRecord] = []
        started = time.process_time()
        for operation, params, parsed in metered_answers:
            for record in usage_records(operation, params, parsed, 0.0):
                sink.append(record)
        accounting = (time.process_time() - started) / max(1, len(metered_answers))

    extra = sum(sent["metered"].values()) - sum(sent["plain"].values())
    print(
        f"usage accounting, {args.rounds} rounds x {calls} store calls over {args.tenants} tenants"
    )
    print(f"requests without hook: {sum(sent['plain'].values())}")
    print(f"requests with hook:    {sum(sent['metered'].values())} (extra: {extra})")
    print(f"records: {len(records)} ({len(metered_answers)} answers with capacity)")
    print(f"CPU per store call without hook: {1e3 * cpu['plain']:.3f} ms (client + emulation)")
    print(f"CPU per store call with hook:    {1e3 * cpu['metered']:.3f} ms (client + emulation)")
    print(f"ratio with/without: {cpu['metered'] / cpu['plain']:.3f}")
    print(f"accounting alone: {1e6 * accounting:.1f} us CPU per request (usage_records + hook)")
    if extra:
        raise SystemExit("usage accounting sent extra requests")


if __name__ == "__main__":
    main()
