"""Rows a purge erases beyond the namespaces' partitions (a checkpointer's threads, say):
declared by whoever writes them, so the purge needs to know nothing of them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from langgraph.store.dynamodb.table.keys import Namespace


@dataclass(frozen=True)
class RowSource:
    """Rows of one kind that belong to a prefix outside its namespaces' partitions, in the
    store's table (a checkpointer's threads, say). `keys(prefix)` lists the keys
    (`{"PK": ..., "SK": ...}`) of every such row at or below `prefix` (`()`: every tenant),
    read afresh on each call: purge deletes them, then calls it again to count what is left.
    Their counts are reported under `kind`."""

    kind: str
    keys: Callable[[Namespace], Iterable[Mapping[str, str]]]
