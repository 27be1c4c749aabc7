"""Memories to and from JSON Lines: one `{"namespace", "key", "value", ...}` per line."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import IO

from langgraph.store.base import BaseStore, PutOp

from ..keys import Namespace
from .target import item_json

PAGE = 500


def export_lines(store: BaseStore, prefix: Namespace, out: IO[str]) -> int:
    """Write every item under `prefix` to `out`, one namespace at a time (each newest
    first), so a prefix over more namespaces than one search may cover still exports;
    returns how many."""
    count = 0
    for namespace in _namespaces(store, prefix):
        offset = 0
        while True:
            page = store.search(namespace, limit=PAGE, offset=offset, refresh_ttl=False)
            for item in page:
                if tuple(item.namespace) == namespace:  # not the namespaces below it
                    out.write(json.dumps(item_json(item), ensure_ascii=False) + "\n")
                    count += 1
            offset += len(page)
            if len(page) < PAGE:
                break
    return count


def _namespaces(store: BaseStore, prefix: Namespace) -> list[Namespace]:
    found: list[Namespace] = []
    while True:
        page = store.list_namespaces(prefix=prefix or None, limit=PAGE, offset=len(found))
        found += page
        if len(page) < PAGE:
            return found


def import_lines(store: BaseStore, lines: Iterable[str]) -> int:
    """Put every line's item (`namespace` list, `key`, `value` object) into `store`, in
    batches; returns how many. A malformed line stops the import, naming its number."""
    batch: list[PutOp] = []
    count = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            op = PutOp(tuple(record["namespace"]), str(record["key"]), dict(record["value"]))
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(
                f"Line {number} is not an exported item "
                f'({{"namespace": [...], "key": ..., "value": {{...}}}}): {error}'
            ) from error
        batch.append(op)
        if len(batch) == PAGE:
            store.batch(batch)
            count += len(batch)
            batch = []
    if batch:
        store.batch(batch)
        count += len(batch)
    return count
