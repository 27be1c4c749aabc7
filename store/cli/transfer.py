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
    """Write every item under `prefix` to `out`; returns how many."""
    count = 0
    while True:
        page = store.search(prefix, limit=PAGE, offset=count, refresh_ttl=False)
        for item in page:
            out.write(json.dumps(item_json(item), ensure_ascii=False) + "\n")
        count += len(page)
        if len(page) < PAGE:
            return count


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
