"""The second look: once a window's steps are applied, the memories it wrote are compared
with the memories of their namespace written meanwhile that its decision did not read.

Two runs that decide at the same moment (two conversations of one user, "my city is
Oslo" and "my city is Bergen") each search before the other writes, and both add. Each
run looks again after writing, so at least one of the two sees the other's memory (a
strongly consistent read of the recency index); a memory it relates to one of its own
joins that memory's chain (a `link` step), ordered by when each was said, so the newest
is current whichever run saw the other, or both. The vector index is eventually
consistent (and a store with `embed_on="stream"` embeds in the background), so the look
reaches back `LAG_SECONDS` before the decision: a memory written that long before it may
not have been searchable yet.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from itertools import islice
from typing import TYPE_CHECKING, Any

from langgraph.store.base import BaseStore, Item, Op, Result
from langgraph.store.dynamodb.basestore.store import DynamoDBStore
from langgraph.store.dynamodb.extraction.consolidation.journal import Step, Window
from langgraph.store.dynamodb.extraction.consolidation.nearest import MAX_K, related
from langgraph.store.dynamodb.extraction.strategies.errors import MalformedAnswerError
from langgraph.store.dynamodb.extraction.strategies.model_call import ATTEMPTS
from langgraph.store.dynamodb.items.recency import Newest
from langgraph.store.dynamodb.items.rows import stamp_of, to_item
from langgraph.store.dynamodb.recall.fields import SUPERSEDED_BY, SUPERSEDES, TEXT

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

# How long before a decision a memory written may not be searchable yet (the vector
# index catches up, or the stream consumer embeds it, within seconds).
LAG_SECONDS = 15.0
# The most memories written meanwhile that one look compares (the newest).
MAX_FRESH = MAX_K


class Watched(BaseStore):
    """`store`, noting the keys of the items its reads return (what a decision read)."""

    def __init__(self, store: BaseStore) -> None:
        self._store = store
        self.keys: set[str] = set()

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return self._noted(self._store.batch(ops))

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return self._noted(await self._store.abatch(ops))

    def _noted(self, results: list[Result]) -> list[Result]:
        for result in results:
            found = result if isinstance(result, list) else [result]
            self.keys.update(item.key for item in found if isinstance(item, Item))
        return results


def look_again(
    store: DynamoDBStore, model: BaseChatModel, window: Window
) -> tuple[list[Step], str | None]:
    """The `link` steps joining the window's rechecked memories with the memories written
    meanwhile that they relate to; the model asked again once after a malformed answer,
    then no link and the reason."""
    steps = {s.key: s for s in window.steps if s.key in window.recheck}
    if window.since is None or not steps:
        return [], None
    namespace = next(iter(steps.values())).namespace
    others = _written_since(store, namespace, window.since - LAG_SECONDS, window, set(steps))
    if not others:
        return [], None
    written = [(key, str(step.value.get(TEXT, ""))) for key, step in steps.items()]
    reason = ""
    for _ in range(ATTEMPTS):
        try:
            pairs = related(model, written, others)
        except MalformedAnswerError as error:
            reason = str(error)
            continue
        return [
            Step("link", namespace, key, steps[key].thread_id, steps[key].source, target)
            for key, target in pairs
        ], None
    return [], f"consolidation's second look: malformed answer twice ({reason}); not linked"


def _written_since(
    store: DynamoDBStore,
    namespace: tuple[str, ...],
    since: float,
    window: Window,
    mine: set[str],
) -> list[Item]:
    """The memories of `namespace` written since `since`, newest first, but those the
    window wrote, read or already chained to its own."""
    known = mine | set(window.seen) | {s.target for s in window.steps if s.target}
    rows = Newest(
        store.client,
        store.table_name,
        namespace,
        consistent=True,
        page=MAX_FRESH,
        since=stamp_of(datetime.fromtimestamp(since, UTC)),
    )
    found = (to_item(row) for row in rows)
    fresh = (item for item in found if item.key not in known and not _chained(item, mine))
    return list(islice(fresh, MAX_FRESH))


def _chained(item: Item, keys: set[str]) -> bool:
    value: dict[str, Any] = item.value
    return value.get(SUPERSEDES) in keys or value.get(SUPERSEDED_BY) in keys
