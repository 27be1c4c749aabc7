"""Several processes write the same namespaces and keys through the local endpoint, with
deletes that empty namespaces: every key ends as its last writer left it, the registry is
exact, and every item's vectors match its text."""

from __future__ import annotations

import json
import multiprocessing
from collections import defaultdict
from typing import Any

import pytest
from langgraph.store.dynamodb.testing import LexicalEmbeddings, local_endpoint

from tests.fault.concurrency import (
    DIMS,
    FIELDS,
    TABLE,
    Write,
    allowed_final,
    make_store,
    run_worker,
)
from tests.hardening.invariants import check_vectors, rows_of


def run(workers: int, operations: int, seed: int) -> None:
    with local_endpoint() as url:
        store = make_store(url)
        store.setup()
        context = multiprocessing.get_context("spawn")
        with context.Pool(workers) as pool:
            logs = pool.map(run_worker, [(url, w, operations, seed) for w in range(workers)])
        by_key: dict[tuple[tuple[str, ...], str], list[Write]] = defaultdict(list)
        for log in logs:
            for namespace, key, state, started, ended in log:
                by_key[(tuple(namespace), key)].append((namespace, key, state, started, ended))
        rows = rows_of(store.client, TABLE)
        items: dict[tuple[tuple[str, ...], str], Any] = {
            (tuple(r["PK"].split(".")), r["SK"][2:]): json.loads(r["value"])["id"]
            for r in rows
            if r["SK"].startswith("k#")
        }
        wrong = {
            key: (items.get(key), allowed_final(writes))
            for key, writes in by_key.items()
            if items.get(key) not in allowed_final(writes)
        }
        live = sorted({key[0] for key in items})
        listed = store.list_namespaces()
        vectors = check_vectors(store.client, TABLE, LexicalEmbeddings(dims=DIMS), FIELDS)
        writes = sum(len(log) for log in logs)
        print(
            f"\nconcurrency: {workers} processes, {writes} writes, {len(items)} items left, "
            f"{len(wrong)} keys not last-writer-wins, {len(vectors.missing)} missing and "
            f"{len(vectors.stale)} stale vectors, {len(vectors.orphans)} orphan vector rows; "
            f"registry lists {len(listed)} namespaces, {len(live)} hold items, "
            f"exact: {listed == live}"
        )
        assert wrong == {}
        assert listed == live
        assert (vectors.missing, vectors.stale) == ([], [])


def test_processes_writing_the_same_keys_end_last_writer_wins() -> None:
    run(workers=3, operations=60, seed=1)


@pytest.mark.hardening
def test_many_processes_writing_the_same_keys_end_last_writer_wins() -> None:
    run(workers=4, operations=400, seed=2)
