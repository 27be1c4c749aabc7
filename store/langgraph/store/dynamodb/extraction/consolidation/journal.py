"""A run's decisions as steps recorded before they are applied (on the strategy's cursor,
`engine.cursor.Cursors.stage`): a retry applies the recorded steps again instead of
deciding again, and applying a step twice changes nothing more than applying it once.

Each step names the conversation that stated it and when (`source`): the thread, the
messages and `said_at` (`[t, n]`: the epoch seconds of the checkpoint the run read and the
place of the newest of those messages in the thread), so which of two contradicting
memories is current depends on when the user said it, not on when it was processed."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from langgraph.store.dynamodb.extraction.consolidation.decisions import (
    Add,
    Decision,
    NoOp,
    Supersede,
    Update,
)
from langgraph.store.dynamodb.extraction.strategies.candidates import Candidate
from langgraph.store.dynamodb.recall.fields import PROVENANCE

Op = Literal["add", "noop", "update", "supersede", "link"]
# The steps that write a memory's content (a no-op adds a source, a link a place in a chain).
WRITES: tuple[Op, ...] = ("add", "update", "supersede")
Memory = tuple[tuple[str, ...], str]
# When a candidate was said: `[t, n]` (see the module's docstring).
SaidAt = list[float]


@dataclass(frozen=True)
class Step:
    """One decision, ready to apply: `op` on the memory at `key` in `namespace` (for a
    no-op, the memory that already says it, None when the decision named none), `target`
    the memory a supersede replaces (a `link` joins `key` and `target` in one chain: the
    second look at memories written meanwhile, `recheck`), `value` the content and
    provenance written (none for a no-op), `thread_id` and `source` (`{"said_at": [t, n],
    "message_ids": [...]}`) the conversation that stated it. `own` is an update's
    candidate content before any merge (what replaces a memory whose every message the
    window covers again: a replay)."""

    op: Op
    namespace: tuple[str, ...]
    key: str | None
    thread_id: str
    source: dict[str, Any]
    target: str | None = None
    value: dict[str, Any] = field(default_factory=dict)
    own: dict[str, Any] | None = None

    @property
    def said_at(self) -> SaidAt:
        return list(self.source["said_at"])

    @property
    def provenance(self) -> Any:
        return self.value.get(PROVENANCE)

    def as_json(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "namespace": list(self.namespace),
            "key": self.key,
            "thread_id": self.thread_id,
            "source": self.source,
            "target": self.target,
            "value": self.value,
            "own": self.own,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> Step:
        return Step(
            op=data["op"],
            namespace=tuple(data["namespace"]),
            key=data["key"],
            thread_id=data["thread_id"],
            source=data["source"],
            target=data["target"],
            value=data["value"],
            own=data.get("own"),
        )


def plan(
    decisions: Sequence[Decision],
    namespace: tuple[str, ...],
    said_at: Callable[[Candidate], SaidAt],
) -> list[Step]:
    """The steps of a window's decisions in `namespace`, each stamped with when its
    candidate was said."""
    steps: list[Step] = []
    for d in decisions:
        c = d.candidate
        source = {"said_at": said_at(c), "message_ids": list(c.provenance.message_ids)}
        thread = c.provenance.thread_id
        if isinstance(d, Add):
            steps.append(Step("add", d.namespace, c.key, thread, source, value=c.value()))
        elif isinstance(d, NoOp):
            steps.append(Step("noop", namespace, d.key, thread, source))
        elif isinstance(d, Update):
            value = {**(d.content or c.content), PROVENANCE: c.provenance.as_value()}
            own = {**c.content, PROVENANCE: c.provenance.as_value()}
            steps.append(Step("update", d.namespace, d.key, thread, source, value=value, own=own))
        elif isinstance(d, Supersede):
            steps.append(
                Step("supersede", d.namespace, c.key, thread, source, d.key, value=c.value())
            )
    return steps


def touched(steps: Sequence[Step]) -> list[Memory]:
    """The memories the steps change, a no-op's included (it adds its conversation as a
    source): the ledger names them before they are written."""
    found: list[Memory] = []
    for step in steps:
        if step.key is not None:
            found.append((step.namespace, step.key))
        if step.target is not None:
            found.append((step.namespace, step.target))
    return list(dict.fromkeys(found))


@dataclass(frozen=True)
class Window:
    """A window as recorded on its cursor before its steps are applied: the steps, and
    where the cursor goes once they are (the checkpoint and message processed through,
    the messages left, the problem to report). `recheck` names the memories it writes
    that are looked at again once applied, against the memories of their namespace
    written since `since` (epoch seconds: when the decision began to read) that the
    decision did not read (`seen`)."""

    steps: tuple[Step, ...]
    checkpoint_id: str | None
    message_id: str | None
    lag: int
    problem: str | None
    since: float | None = None
    seen: tuple[str, ...] = ()
    recheck: tuple[str, ...] = ()

    def dumps(self) -> str:
        return json.dumps(
            {
                "steps": [s.as_json() for s in self.steps],
                "checkpoint_id": self.checkpoint_id,
                "message_id": self.message_id,
                "lag": self.lag,
                "problem": self.problem,
                "since": self.since,
                "seen": list(self.seen),
                "recheck": list(self.recheck),
            },
            separators=(",", ":"),
        )

    @staticmethod
    def loads(text: str) -> Window:
        data = json.loads(text)
        return Window(
            steps=tuple(Step.from_json(s) for s in data["steps"]),
            checkpoint_id=data["checkpoint_id"],
            message_id=data["message_id"],
            lag=data["lag"],
            problem=data["problem"],
            since=data.get("since"),
            seen=tuple(data.get("seen", ())),
            recheck=tuple(data.get("recheck", ())),
        )
