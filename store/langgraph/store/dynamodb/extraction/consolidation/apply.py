"""Writing consolidation's decisions, and undoing one thread's share of them.

Adds are plain puts (at the candidate's provenance key). An update and the mark of a
supersede are read-modify-writes with `DynamoDBStore.put_if_unchanged`: when another
extraction wrote the memory first, the change is redone on a fresh read, so concurrent
extractions never lose an update. Nothing here deletes a memory that another thread
contributed to: forgetting a thread deletes what only it formed, rolls updated memories
back to their newest version from another thread, and brings back what it superseded.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import Item, PutOp
from langgraph.store.dynamodb.basestore.store import DynamoDBStore
from langgraph.store.dynamodb.extraction.consolidation.decisions import (
    Add,
    Decision,
    NoOp,
    Supersede,
    Update,
)
from langgraph.store.dynamodb.extraction.strategies.candidates import Candidate
from langgraph.store.dynamodb.recall.fields import (
    CONTENT,
    CURRENT,
    MAX_REVISIONS,
    PROVENANCE,
    REVISIONS,
    STATUS,
    SUPERSEDED,
    SUPERSEDED_AT,
    SUPERSEDED_BY,
    SUPERSEDES,
    content_of,
    thread_of,
)
from langgraph.store.dynamodb.table import clock

Memory = tuple[tuple[str, ...], str]
# Rounds of re-reading before a conditional write gives up (each lost round means another
# writer changed the memory in between).
MAX_ROUNDS = 8


def touched(decisions: Sequence[Decision]) -> list[Memory]:
    """The memories the decisions write (the ledger names them before they are written)."""
    found: list[Memory] = []
    for d in decisions:
        if isinstance(d, Add):
            found.append((d.namespace, d.candidate.key))
        elif isinstance(d, Update):
            found.append((d.namespace, d.key))
        elif isinstance(d, Supersede):
            found += [(d.namespace, d.candidate.key), (d.namespace, d.key)]
    return found


def apply(store: DynamoDBStore, decisions: Sequence[Decision]) -> int:
    """Write the decisions; returns how many wrote something (all but no-ops)."""
    adds = [d for d in decisions if isinstance(d, Add)]
    supersedes = [d for d in decisions if isinstance(d, Supersede)]
    puts = [PutOp(d.namespace, d.candidate.key, current(d.candidate)) for d in adds]
    puts += [
        PutOp(d.namespace, d.candidate.key, {**current(d.candidate), SUPERSEDES: d.key})
        for d in supersedes
    ]
    if puts:
        store.batch(puts)
    for d in decisions:
        if isinstance(d, Update):
            _revise(store, d.namespace, d.key, d.read, lambda old, d=d: _updated(old, d))
        elif isinstance(d, Supersede):
            _revise(store, d.namespace, d.key, d.read, lambda old, d=d: _marked(old, d))
    return sum(not isinstance(d, NoOp) for d in decisions)


def current(candidate: Candidate) -> dict[str, Any]:
    """A new memory's value: the candidate's content and provenance, current."""
    return {**candidate.value(), STATUS: CURRENT}


def _updated(old: dict[str, Any] | None, d: Update) -> dict[str, Any]:
    value = {**(d.content or d.candidate.content), PROVENANCE: d.candidate.provenance.as_value()}
    if old is None:
        return {**value, STATUS: CURRENT}
    revisions = [*old.get(REVISIONS, []), {CONTENT: content_of(old), PROVENANCE: old[PROVENANCE]}]
    kept = {k: old[k] for k in (SUPERSEDED_BY, SUPERSEDED_AT, SUPERSEDES) if k in old}
    return {
        **value,
        **kept,
        STATUS: old.get(STATUS, CURRENT),
        REVISIONS: revisions[-MAX_REVISIONS:],
    }


def _marked(old: dict[str, Any] | None, d: Supersede) -> dict[str, Any] | None:
    if old is None:  # deleted meanwhile (by the user): nothing to mark
        return None
    at = datetime.fromtimestamp(clock.now(), UTC).isoformat()
    return {**old, STATUS: SUPERSEDED, SUPERSEDED_BY: d.candidate.key, SUPERSEDED_AT: at}


def _revise(
    store: DynamoDBStore,
    namespace: tuple[str, ...],
    key: str,
    read: Item | None,
    change: Any,
) -> None:
    """Write `change(value read)` conditionally on the version read; on a lost race, read
    again and redo. `change` returning None writes nothing."""
    for _ in range(MAX_ROUNDS):
        new = change(dict(read.value) if read is not None else None)
        if new is None:
            return
        if store.put_if_unchanged(namespace, key, new, read=read):
            return
        read = store.get(namespace, key)
    raise RuntimeError(
        f"memory {key!r} in {namespace} changed {MAX_ROUNDS} times while being revised; "
        "the run is retried from its cursor"
    )


def forget(store: DynamoDBStore, thread_id: str, memories: Iterable[Memory]) -> int:
    """Undo `thread_id`'s share of `memories` (its ledger): delete those only it formed,
    roll back the versions it wrote, restore what it superseded. Returns how many memories
    were deleted."""
    deleted = 0
    for namespace, key in dict.fromkeys(memories):
        item = store.get(namespace, key)
        if item is None:
            continue
        if _forget_one(store, thread_id, namespace, key, item):
            deleted += 1
    return deleted


def _forget_one(
    store: DynamoDBStore, thread_id: str, namespace: tuple[str, ...], key: str, item: Item
) -> bool:
    value = dict(item.value)
    kept = [r for r in value.get(REVISIONS, []) if thread_of(r) != thread_id]
    if thread_of(value) == thread_id and not kept:
        store.delete(namespace, key)
        replaced = value.get(SUPERSEDES)
        if isinstance(replaced, str):
            _revise(store, namespace, replaced, store.get(namespace, replaced), _restore(key))
        return True

    def rolled_back(old: dict[str, Any] | None) -> dict[str, Any] | None:
        if old is None:
            return None
        revisions = [r for r in old.get(REVISIONS, []) if thread_of(r) != thread_id]
        new = dict(old)
        if thread_of(old) == thread_id and revisions:
            newest = revisions.pop()
            new = {
                **newest[CONTENT],
                PROVENANCE: newest[PROVENANCE],
                **{k: old[k] for k in (STATUS, SUPERSEDED_BY, SUPERSEDED_AT) if k in old},
            }
        if revisions:
            new[REVISIONS] = revisions
        else:
            new.pop(REVISIONS, None)
        return _restore_if(new, thread_id, namespace, store)

    _revise(store, namespace, key, item, rolled_back)
    return False


def _restore(by: str) -> Any:
    """A change bringing back a memory that `by` superseded."""

    def restored(old: dict[str, Any] | None) -> dict[str, Any] | None:
        if old is None or old.get(SUPERSEDED_BY) != by:
            return None
        return {
            **{k: v for k, v in old.items() if k not in (SUPERSEDED_BY, SUPERSEDED_AT)},
            STATUS: CURRENT,
        }

    return restored


def _restore_if(
    value: dict[str, Any], thread_id: str, namespace: tuple[str, ...], store: DynamoDBStore
) -> dict[str, Any]:
    """`value`, current again when the memory that superseded it came from `thread_id`."""
    by = value.get(SUPERSEDED_BY)
    if not isinstance(by, str):
        return value
    successor = store.get(namespace, by)
    if successor is not None and thread_of(dict(successor.value)) != thread_id:
        return value
    restored = _restore(by)(value)
    return restored if restored is not None else value
