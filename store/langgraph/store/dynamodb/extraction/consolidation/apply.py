"""Applying recorded steps (`journal`), and undoing one conversation's share of them.

Every write is a read-modify-write with `DynamoDBStore.put_if_unchanged`, redone on a
fresh read when another write came first, and every step is idempotent: a memory knows
its sources (the conversations that stated it, `SOURCES`), and an update knows the
provenance it wrote, so a step applied again, after a crash or by a second run, changes
nothing more.

Contradicting memories form a chain (`SUPERSEDES` / `SUPERSEDED_BY`). After any change to
a member, the chain is settled: its members ordered by when they were said (`SAID_AT`),
the newest current and each other one superseded by the next. So the newest evidence
wins whatever order runs, replays and retries come in, a fact said again is current
again, and forgetting any member leaves exactly one current memory.

Forgetting a conversation removes it as a source (and rolls back the versions it wrote);
a memory goes only when no source remains.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import GetOp, Item
from langgraph.store.dynamodb.basestore.store import DynamoDBStore
from langgraph.store.dynamodb.extraction.consolidation.journal import (
    WRITES,
    Memory,
    SaidAt,
    Step,
)
from langgraph.store.dynamodb.recall.fields import (
    CONTENT,
    CURRENT,
    MAX_REVISIONS,
    PROVENANCE,
    REVISIONS,
    SAID_AT,
    SOURCES,
    STATUS,
    SUPERSEDED,
    SUPERSEDED_AT,
    SUPERSEDED_BY,
    SUPERSEDES,
    content_of,
    thread_of,
)
from langgraph.store.dynamodb.table import clock

Value = dict[str, Any]
Change = Callable[[Value | None], Value | None]
# Rounds of re-reading before a conditional write gives up (each lost round means another
# writer changed the memory in between).
MAX_ROUNDS = 8
NEVER: SaidAt = [0.0, 0.0]
# What places a memory in its chain, kept when its content changes.
LINKS = (STATUS, SUPERSEDED_BY, SUPERSEDED_AT, SUPERSEDES)


def apply(store: DynamoDBStore, steps: Sequence[Step]) -> int:
    """Apply the steps (again, after a crash: nothing changes twice); returns how many
    write a memory's content (adds, updates, supersedes)."""
    # An add is written expecting no memory at its key (a content key is new far more
    # often than not): no read first; a refused write reads and redoes.
    read_first = [(s.namespace, s.key) for s in steps if s.key and s.op in ("noop", "update")]
    found = _read(store, read_first)
    for step in steps:
        if step.key is None:
            continue
        if step.op == "link":
            settle(store, step.namespace, [step.key, str(step.target)])
            continue
        read = found.get((step.namespace, step.key))
        if step.op == "noop":
            if read is not None:
                read = _revise(store, step.namespace, step.key, read, _sourced(step))
        elif step.op == "update":
            read = _revise(store, step.namespace, step.key, read, _updated(step))
        else:
            read = _revise(store, step.namespace, step.key, read, _added(step))
        if step.target is not None:
            settle(store, step.namespace, [step.key, step.target])
        elif read is not None and _linked(read.value):
            settle(store, step.namespace, [step.key])
    return sum(step.op in WRITES for step in steps)


def _linked(value: Mapping[str, Any]) -> bool:
    return isinstance(value.get(SUPERSEDES), str) or isinstance(value.get(SUPERSEDED_BY), str)


def sources_of(value: Mapping[str, Any]) -> dict[str, Any]:
    """A memory's sources; a memory formed before sources were kept has its provenance's
    thread as its one source (a memory a user wrote has none)."""
    sources = value.get(SOURCES)
    if isinstance(sources, Mapping):
        return dict(sources)
    thread = thread_of(value)
    if thread is None:
        return {}
    return {thread: {"said_at": value.get(SAID_AT, NEVER), "message_ids": []}}


def said_at(value: Mapping[str, Any]) -> SaidAt:
    """When the newest remaining source said it."""
    found = value.get(SAID_AT)
    return [float(x) for x in found] if isinstance(found, list) else NEVER


def _with_source(value: Value, step: Step) -> Value:
    """`value` with the step's conversation as a source. Messages the source already
    names are the same evidence, read again (a replay, a retry): they keep when they were
    first said; a newer message of the same thread saying it again moves the time on."""
    sources = sources_of(value)
    known = sources.get(step.thread_id)
    if known is None:
        sources[step.thread_id] = step.source
    elif not set(step.source["message_ids"]) <= set(known["message_ids"]):
        newer = max([float(x) for x in known["said_at"]], step.said_at)
        ids = list(dict.fromkeys([*known["message_ids"], *step.source["message_ids"]]))
        sources[step.thread_id] = {"said_at": newer, "message_ids": ids}
    return {**value, SOURCES: sources, SAID_AT: _newest(sources)}


def _newest(sources: Mapping[str, Any]) -> SaidAt:
    return max(([float(x) for x in s["said_at"]] for s in sources.values()), default=NEVER)


def _sourced(step: Step) -> Change:
    def change(old: Value | None) -> Value | None:
        if old is None:  # deleted meanwhile: nothing says it any more
            return None
        return _with_source(old, step)

    return change


def _added(step: Step) -> Change:
    """A new memory (current; superseding `step.target`, which settling orders), or one
    more source of the memory already at the key; when that memory was revised in place
    since and the step says its text again, later, the text said last wins."""

    def change(old: Value | None) -> Value | None:
        if old is None:
            new = {**step.value, STATUS: CURRENT}
            if step.target is not None:
                new[SUPERSEDES] = step.target
            return _with_source(new, step)
        if content_of(old) != content_of(step.value) and step.said_at > said_at(old):
            return _updated(step)(old)  # revised in place since, and now said again
        return _with_source(old, step)

    return change


def _updated(step: Step) -> Change:
    """The memory revised in place with the step's content; the version it replaces goes
    to `REVISIONS`. A memory already showing the step's provenance (now or in a revision)
    only gains the source; a memory all of whose messages the step covers again (a replay
    of the thread) is rebuilt from the step's own content instead of merged with it, so no
    message is merged twice."""

    def change(old: Value | None) -> Value | None:
        if old is None:
            return _with_source({**step.value, STATUS: CURRENT}, step)
        written = [old.get(PROVENANCE), *(r.get(PROVENANCE) for r in old.get(REVISIONS, []))]
        covered = {m for p in written if isinstance(p, Mapping) for m in p.get("message_ids", [])}
        ids = set(step.source["message_ids"])
        if step.provenance in written:
            return _with_source(old, step)
        if step.own is not None and covered <= ids:  # read again whole (a replay): rebuilt
            return _with_source(_replaced(old, step.own), step)
        if step.said_at < said_at(old):  # older than what it says now: history, not news
            older = {CONTENT: content_of(step.value), PROVENANCE: step.provenance}
            return _with_source({**old, REVISIONS: _history(old, older, step.said_at)}, step)
        former = {CONTENT: content_of(old), PROVENANCE: old[PROVENANCE]}
        revisions = _history(old, former, said_at(old))
        kept = {k: old[k] for k in LINKS if k in old}
        new = {
            **step.value,
            **kept,
            SOURCES: sources_of(old),
            REVISIONS: revisions,
        }
        return _with_source(new, step)

    return change


def _history(old: Value, version: Value, at: SaidAt) -> list[Value]:
    """`old`'s revisions with `version` (said at `at`) in its place by time, oldest first
    (a revision written before times were kept counts as oldest), the newest kept."""
    revisions = [*old.get(REVISIONS, []), {**version, SAID_AT: at}]
    revisions.sort(key=lambda r: [float(x) for x in r.get(SAID_AT, NEVER)])
    return revisions[-MAX_REVISIONS:]


def _replaced(old: Value, content: Value) -> Value:
    """`old`'s content replaced by `content`, its bookkeeping kept, its revisions dropped
    (`content` covers every message they did)."""
    kept = {k: v for k, v in old.items() if k in LINKS or k in (SOURCES, SAID_AT)}
    return {**content, **kept}


def settle(store: DynamoDBStore, namespace: tuple[str, ...], keys: Iterable[str]) -> None:
    """Order the chain through `keys` by when its members were said: the newest current,
    each other one superseded by the next. Redone on a fresh read when a write loses."""
    for _ in range(MAX_ROUNDS):
        members = _chain(store, namespace, keys)
        order = sorted(members, key=lambda k: (said_at(members[k].value), k))
        if _relink(store, namespace, members, order):
            return
    raise RuntimeError(
        f"the memories {sorted(keys)} in {namespace} changed {MAX_ROUNDS} times while being "
        "settled; the run is retried from its cursor"
    )


def _chain(
    store: DynamoDBStore, namespace: tuple[str, ...], keys: Iterable[str]
) -> dict[str, Item]:
    """The memories linked to `keys` (either way), as read now."""
    members: dict[str, Item] = {}
    seen: set[str] = set()
    todo = list(dict.fromkeys(keys))
    while todo:
        seen.update(todo)
        found = _read(store, [(namespace, key) for key in todo])
        todo = []
        for (_, key), item in found.items():
            members[key] = item
            for link in (item.value.get(SUPERSEDES), item.value.get(SUPERSEDED_BY)):
                if isinstance(link, str) and link not in seen:
                    todo.append(link)
    return members


def _relink(
    store: DynamoDBStore, namespace: tuple[str, ...], members: dict[str, Item], order: list[str]
) -> bool:
    for i, key in enumerate(order):
        old = dict(members[key].value)
        new = {k: v for k, v in old.items() if k not in (SUPERSEDES, SUPERSEDED_BY, SUPERSEDED_AT)}
        if i > 0:
            new[SUPERSEDES] = order[i - 1]
        if i + 1 < len(order):
            at = old.get(SUPERSEDED_AT) if old.get(STATUS) == SUPERSEDED else None
            new.update(
                {
                    STATUS: SUPERSEDED,
                    SUPERSEDED_BY: order[i + 1],
                    SUPERSEDED_AT: at or datetime.fromtimestamp(clock.now(), UTC).isoformat(),
                }
            )
        else:
            new[STATUS] = CURRENT
        if new != old and not store.put_if_unchanged(namespace, key, new, read=members[key]):
            return False
    return True


def _read(store: DynamoDBStore, memories: Sequence[Memory]) -> dict[Memory, Item]:
    """The memories that exist, in one batch."""
    wanted = list(dict.fromkeys(memories))
    if not wanted:
        return {}
    results = store.batch([GetOp(namespace, key) for namespace, key in wanted])
    return {m: r for m, r in zip(wanted, results, strict=True) if isinstance(r, Item)}


def _revise(
    store: DynamoDBStore, namespace: tuple[str, ...], key: str, read: Item | None, change: Change
) -> Item | None:
    """Write `change(value read)` conditionally on the version read; on a lost race, read
    again and redo. `change` returning None or the value unchanged writes nothing. Returns
    the version the change was made to (None: there was none)."""
    for _ in range(MAX_ROUNDS):
        old = dict(read.value) if read is not None else None
        new = change(old)
        if new is None or new == old:
            return read
        if store.put_if_unchanged(namespace, key, new, read=read):
            return read
        read = store.get(namespace, key)
    raise RuntimeError(
        f"memory {key!r} in {namespace} changed {MAX_ROUNDS} times while being revised; "
        "the run is retried from its cursor"
    )


def forget(store: DynamoDBStore, thread_id: str, memories: Iterable[Memory]) -> int:
    """Undo `thread_id`'s share of `memories` (its ledger): remove it as their source and
    roll back the versions it wrote; a memory no source states any more is deleted, and
    its chain settled. Returns how many memories were deleted."""
    deleted = 0
    for namespace, key in dict.fromkeys(memories):
        linked = _chain(store, namespace, [key])
        item = linked.get(key)
        if item is None:
            continue
        if thread_id not in sources_of(item.value) and thread_of(item.value) != thread_id:
            continue
        rest = [k for k in linked if k != key]
        if _forget_one(store, thread_id, namespace, key, item):
            deleted += 1
            if rest:
                settle(store, namespace, rest)
        elif rest:
            settle(store, namespace, linked)
    return deleted


def _forget_one(
    store: DynamoDBStore, thread_id: str, namespace: tuple[str, ...], key: str, item: Item
) -> bool:
    """Remove `thread_id` from the memory; True when it was deleted (no source left)."""
    sources = sources_of(item.value)
    sources.pop(thread_id, None)
    if not sources and thread_of(item.value) is not None:
        store.delete(namespace, key)
        return True

    def without(old: Value | None) -> Value | None:
        if old is None:
            return None
        rest = sources_of(old)
        rest.pop(thread_id, None)
        revisions = [r for r in old.get(REVISIONS, []) if thread_of(r) != thread_id]
        new = dict(old)
        if thread_of(old) == thread_id and revisions:
            newest = revisions.pop()
            new = {
                **newest[CONTENT],
                PROVENANCE: newest[PROVENANCE],
                **{k: old[k] for k in LINKS if k in old},
            }
        elif thread_of(old) == thread_id and rest:
            other, source = next(iter(rest.items()))
            new[PROVENANCE] = {
                **old[PROVENANCE],
                "thread_id": other,
                "message_ids": source["message_ids"],
            }
        if revisions:
            new[REVISIONS] = revisions
        else:
            new.pop(REVISIONS, None)
        return {**new, SOURCES: rest, SAID_AT: _newest(rest)}

    _revise(store, namespace, key, item, without)
    return False
