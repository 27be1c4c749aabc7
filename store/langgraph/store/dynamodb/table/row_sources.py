"""Rows a purge erases beyond the namespaces' partitions (a checkpointer's threads, say):
declared by whoever writes them, so the purge needs to know nothing of them."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from langgraph.store.dynamodb.table.keys import Namespace

# A kind is reported as a key of the purge's results and JSON: snake_case, like the rest.
KIND_PATTERN = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")


@dataclass(frozen=True)
class RowSource:
    """Rows of one kind that belong to a prefix outside its namespaces' partitions, in the
    store's table (a checkpointer's threads, say). `keys(prefix)` lists the keys
    (`{"PK": ..., "SK": ...}`) of every such row at or below `prefix` (`()`: every tenant),
    read afresh on each call: purge deletes them, then calls it again to count what is left.
    Their counts are reported under `kind` (snake_case: `thread_rows`).

    `owns(pk)`, when given, says whether partition `pk` holds only rows of this source:
    a purge that sweeps the table with a Scan (`scan=True`, every `all_tenants` purge)
    finds the source's rows by it, listed or not (a thread no registry lists), and then
    does not call `keys`."""

    kind: str
    keys: Callable[[Namespace], Iterable[Mapping[str, str]]]
    owns: Callable[[str], bool] | None = None

    def __post_init__(self) -> None:
        if not KIND_PATTERN.fullmatch(self.kind):
            raise ValueError(
                f"A row source's kind is a key of the purge's report and must be snake_case "
                f"(e.g. thread_rows), got {self.kind!r}."
            )
