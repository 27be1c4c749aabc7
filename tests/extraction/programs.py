"""Programs for the model check of memory formation (`test_model_check.py`): the operations
a program is made of, the hypothesis strategy drawing them, and the reference model of
what the memories should be once a program has run.

The vocabulary: each turn is one sentence `My <subject> is <value>` (sometimes opened by
`Actually, `), which the emulated extractor (`testing.extractor`) turns into exactly one
fact, `User's <subject> is <value>`, of exactly one subject (`_subject`). Values of one
subject contradict (the emulated consolidator supersedes one by another) except when one
extends another (`Oslo east` after `Oslo`: an update in place); whichever the decision,
the newest statement is the one that holds.

Two tenants, two users each, three threads a user (thread ids repeat across tenants: a
tenant's memories must never see another's). Besides the facts (per user), each thread
has a running summary (per tenant, at the thread's fixed key), which the emulated model
writes as `User said: <sentence>.` per message and consolidation merges in place."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

TENANTS = ("acme", "globex")
USERS = ("u1", "u2")
THREAD_NUMBERS = (1, 2, 3)
VALUES: dict[str, tuple[str, ...]] = {
    "city": ("Oslo", "Bergen", "Oslo east"),
    "drink": ("tea", "coffee"),
    "pet": ("a cat", "a dog"),
}


def sentence(subject: str, value: str, actually: bool) -> str:
    """What the user says."""
    return f"Actually, my {subject} is {value}" if actually else f"My {subject} is {value}"


def fact_text(subject: str, value: str) -> str:
    """The fact the emulated extractor makes of it."""
    return f"User's {subject} is {value}"


def normal(text: str) -> str:
    """Text compared for sameness (as consolidation compares it)."""
    return " ".join(text.lower().split()).rstrip(".!")


def thread_id(user: str, number: int) -> str:
    """A user's thread (the same id in both tenants)."""
    return f"{user}-t{number}"


def namespace(tenant: str, user: str) -> tuple[str, ...]:
    """Where the facts strategy keeps a user's memories."""
    return ("memories", tenant, user, "facts")


# A thread: (tenant, user, thread number).
Where = tuple[str, str, int]


def _at(where: Where) -> str:
    tenant, user, number = where
    return f"{tenant}/{thread_id(user, number)}"


class Short:
    """An operation printed as its one-line repr, by hypothesis too."""

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))


@dataclass(frozen=True)
class Kill(Short):
    """The run dies at its `at`-th request: before it is sent, or after it applied (the
    answer lost); every later request of the run dies too."""

    at: int
    after: bool

    def __repr__(self) -> str:
        return f"kill@{self.at}{'after' if self.after else 'before'}"


def _killed(kill: Kill | None) -> str:
    return f" {kill!r}" if kill is not None else ""


@dataclass(frozen=True)
class Say(Short):
    """A turn in a thread: the user states a fact."""

    where: Where
    subject: str
    value: str
    actually: bool = False

    def __repr__(self) -> str:
        return f"say({_at(self.where)}: {self.subject}={self.value})"


@dataclass(frozen=True)
class Run(Short):
    """A delivery of the thread's extraction request (a run of worker 0 or 1): a first,
    duplicate, late or out-of-order one, perhaps killed."""

    where: Where
    worker: int = 0
    kill: Kill | None = None

    def __repr__(self) -> str:
        return f"run({_at(self.where)} w{self.worker}{_killed(self.kill)})"


@dataclass(frozen=True)
class Replay(Short):
    """`Extractor.replay` of the thread from its start, perhaps killed."""

    where: Where
    kill: Kill | None = None

    def __repr__(self) -> str:
        return f"replay({_at(self.where)}{_killed(self.kill)})"


@dataclass(frozen=True)
class Batch(Short):
    """One SQS batch to the extraction worker (worker 0 or 1): a request per entry
    (repeats are duplicate deliveries), the batch's threads run at once."""

    wheres: tuple[Where, ...]
    worker: int = 0

    def __repr__(self) -> str:
        return f"batch(w{self.worker}: {', '.join(_at(w) for w in self.wheres)})"


@dataclass(frozen=True)
class Together(Short):
    """Two workers (two extractors, each with its own clients) run at once, on two
    threads (or one)."""

    first: Where
    second: Where

    def __repr__(self) -> str:
        return f"together({_at(self.first)} | {_at(self.second)})"


@dataclass(frozen=True)
class Forget(Short):
    """`Extractor.forget_thread`, perhaps killed (then retried, as an operator would)."""

    where: Where
    kill: Kill | None = None

    def __repr__(self) -> str:
        return f"forget({_at(self.where)}{_killed(self.kill)})"


@dataclass(frozen=True)
class Purge(Short):
    """A purge of the tenant with the saver's and the extractor's row sources, perhaps
    killed (then retried)."""

    tenant: str
    kill: Kill | None = None

    def __repr__(self) -> str:
        return f"purge({self.tenant}{_killed(self.kill)})"


@dataclass(frozen=True)
class Lapse(Short):
    """Time passes beyond the lease: the leases of dead runs lapse."""

    def __repr__(self) -> str:
        return "lapse()"


Op = Say | Run | Replay | Batch | Together | Forget | Purge | Lapse

# Deaths land anywhere in a run (a run of both strategies sends 10 to 30 requests).
kills = st.none() | st.builds(Kill, st.integers(0, 30), st.booleans())
# Threads, the first user's (of the first tenant) three times as likely as another's: the
# programs are about one namespace mostly, written from several threads, with the rest
# around it (hypothesis shrinks towards the first thread).
_ALL = [(t, u, n) for t in TENANTS for u in USERS for n in THREAD_NUMBERS]
wheres = st.sampled_from([w for w in _ALL for _ in range(3 if w[:2] == _ALL[0][:2] else 1)])


@st.composite
def says(draw: st.DrawFn, near: st.SearchStrategy[Where]) -> Say:
    subject = draw(st.sampled_from(sorted(VALUES)))
    return Say(draw(near), subject, draw(st.sampled_from(VALUES[subject])), draw(st.booleans()))


@st.composite
def batches(draw: st.DrawFn, near: st.SearchStrategy[Where]) -> Batch:
    """A batch mostly of one user's threads (the same fact from several of them)."""
    tenant, user, _ = draw(near)
    mine = st.tuples(st.just(tenant), st.just(user), st.sampled_from(THREAD_NUMBERS))
    entries = draw(st.lists(mine | near, min_size=1, max_size=4))
    return Batch(tuple(entries), draw(st.integers(0, 1)))


def operations(near: st.SearchStrategy[Where]) -> st.SearchStrategy[Op]:
    """One operation on threads drawn from `near`. Turns and deliveries are the bulk of a
    program; erasures and concurrency season it."""
    return st.one_of(
        says(near),
        says(near),
        says(near),
        st.builds(Run, near, st.integers(0, 1), kills),
        st.builds(Run, near, st.integers(0, 1), kills),
        batches(near),
        st.builds(Together, near, near),
        st.builds(Replay, near, kills),
        st.builds(Forget, near, kills),
        st.builds(Purge, st.sampled_from(TENANTS), kills),
        st.just(Lapse()),
    )


@st.composite
def _programs(draw: st.DrawFn, max_size: int) -> list[Op]:
    program: list[Op] = []
    said: list[Where] = []
    for _ in range(draw(st.integers(1, max_size))):
        # Mostly threads the program already spoke in: their turns contradict, repeat,
        # get delivered, forgotten.
        near = st.sampled_from(said) | wheres if said else wheres
        op = draw(operations(near))
        if isinstance(op, Say) and op.where not in said:
            said.append(op.where)
        program.append(op)
    return program


def programs(max_size: int = 14) -> st.SearchStrategy[list[Op]]:
    """A program: turns interleaved with deliveries, erasures and time."""
    return _programs(max_size)


@dataclass
class Statement:
    """One fact a user stated: when (the program's turn counter), where, which message."""

    time: int
    where: Where
    subject: str
    value: str
    message_id: str
    said: str = ""
    alive: bool = True

    @property
    def text(self) -> str:
        return fact_text(self.subject, self.value)


@dataclass
class Reference:
    """What the memories should be: every statement, whether its conversation still
    counts (not forgotten, not purged), and per user and subject the newest one."""

    statements: list[Statement] = field(default_factory=list)

    def say(self, op: Say, message_id: str) -> None:
        said = sentence(op.subject, op.value, op.actually)
        time = len(self.statements)
        self.statements.append(Statement(time, op.where, op.subject, op.value, message_id, said))

    def forget(self, where: Where) -> None:
        for s in self.statements:
            if s.where == where:
                s.alive = False

    def purge(self, tenant: str) -> None:
        for s in self.statements:
            if s.where[0] == tenant:
                s.alive = False

    def alive(self) -> Iterable[Statement]:
        return (s for s in self.statements if s.alive)

    def required(self) -> Iterable[Statement]:
        """The statements that must be memories: each alive one, unless its own
        conversation later changed that subject (extraction records what holds at the end
        of a window, so such a statement is a memory only when a run read it first)."""
        alive = list(self.alive())
        return (
            s
            for s in alive
            if not any(
                later.where == s.where and later.subject == s.subject and later.time > s.time
                for later in alive
            )
        )

    def dead_messages(self) -> set[str]:
        return {s.message_id for s in self.statements if not s.alive}

    def newest(self) -> dict[tuple[str, str, str], str]:
        """Per (tenant, user, subject) the value the user stated last, among the
        conversations that still count."""
        found: dict[tuple[str, str, str], Statement] = {}
        for s in self.alive():
            key = (s.where[0], s.where[1], s.subject)
            if key not in found or found[key].time < s.time:
                found[key] = s
        return {key: normal(s.value) for key, s in found.items()}


# The guarantees of issue 40, each as the smallest program that shows it (run first, as
# hypothesis's explicit examples, and a seed of any search).
A, B, C = ("acme", "u1", 1), ("acme", "u1", 2), ("acme", "u1", 3)
SCENARIOS: dict[str, list[Op]] = {
    # A fact that becomes true again is current again.
    "true again": [
        Say(A, "city", "Oslo"),
        Run(A),
        Say(A, "city", "Bergen", actually=True),
        Run(A),
        Say(A, "city", "Oslo", actually=True),
        Run(A),
    ],
    # Newest evidence wins, whichever run comes first.
    "out of order": [Say(A, "city", "Oslo"), Say(B, "city", "Bergen"), Run(B), Run(A)],
    # Two contradicting statements in one window: the later one holds.
    "one window": [Say(A, "city", "Oslo"), Say(A, "city", "Bergen")],
    # One memory per fact when three threads of one user state it in one batch.
    "one batch": [
        Say(A, "drink", "tea"),
        Say(B, "drink", "tea"),
        Say(C, "drink", "tea"),
        Batch((A, B, C)),
    ],
    # A memory stays while a conversation that stated it remains.
    "sources": [Say(A, "city", "Oslo"), Run(A), Say(B, "city", "Oslo"), Run(B), Forget(A)],
    # Forgetting the middle of A -> B -> C leaves only C current.
    "chain": [
        Say(A, "city", "Oslo"),
        Run(A),
        Say(B, "city", "Bergen"),
        Run(B),
        Say(C, "city", "Oslo"),
        Run(C),
        Forget(B),
    ],
    # A forgotten conversation is never extracted again: not on a late delivery, not with
    # the next turn.
    "forget sticks": [Say(A, "pet", "a cat"), Run(A), Forget(A), Run(A), Say(A, "drink", "tea")],
    # A purged tenant has nothing left, late deliveries included.
    "purge": [Say(A, "pet", "a cat"), Run(A), Purge("acme"), Run(A), Run(A, kill=Kill(1, False))],
    # A purge erases memories two threads' ledgers name (one superseded the other's).
    "purge shared": [
        Say(A, "drink", "coffee"),
        Run(A),
        Say(C, "drink", "tea"),
        Run(C),
        Purge("acme"),
    ],
    # Two candidates of one window deciding on one known memory (a supersede, an update).
    "two decisions, one memory": [
        Say(B, "city", "Oslo"),
        Run(B),
        Say(C, "city", "Bergen"),
        Say(C, "city", "Oslo east"),
    ],
    # A run killed after it applied (on today's code: after the summary's merge, before
    # its cursor moved), retried: the same memories as one uninterrupted run.
    "killed and retried": [
        Say(A, "city", "Oslo"),
        Run(A),
        Say(A, "drink", "tea"),
        Run(A, kill=Kill(17, True)),
        Lapse(),
        Run(A),
    ],
    # Contradicting statements run at once by two workers: the newest is current.
    "together": [Say(A, "city", "Bergen"), Say(B, "city", "Oslo"), Together(A, B)],
}
