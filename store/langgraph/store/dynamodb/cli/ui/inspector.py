"""What the inspector reads and does, through the library's own functions, without the web:
the pages (`app.py`) call these and render what they return.

A tenant is a memory group, a namespace's first two labels (`memories.acme-corp`), the unit
the registry, `usage` and `purge` use. Its threads are those of the thread tenant named by
the group's second label (`acme-corp`: the `{tenant}` of extraction's namespace templates,
as in `make demo`), so its extraction status, dead letters, usage and conversations are
that thread tenant's. Every read is scoped to one tenant: a namespace outside it is
refused (`OutsideTenant`), never read.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langgraph.store.base import GetOp, Item
from langgraph.store.dynamodb.recall.fields import (
    PROVENANCE,
    REVISIONS,
    SOURCES,
    STATUS,
    SUPERSEDED,
    SUPERSEDED_AT,
    SUPERSEDED_BY,
    SUPERSEDES,
)

if TYPE_CHECKING:
    from langgraph.checkpoint.dynamodb import DynamoDBSaver
    from langgraph.store.dynamodb.basestore.store import DynamoDBStore
    from langgraph.store.dynamodb.cli.target import Target
    from langgraph.store.dynamodb.extraction import Extractor
    from langgraph.store.dynamodb.extraction.engine.extractor import StrategyStatus
    from langgraph.store.dynamodb.jobs.purge import Census, PurgeResult
    from langgraph.store.dynamodb.table.row_sources import RowSource

Namespace = tuple[str, ...]
GROUP_LABELS = 2
# A page of a listing (namespaces, memories, threads): large tenants page, never load all.
PAGE = 25
# The longest supersede chain walked from one memory (each link is one read).
MAX_CHAIN = 50
# Dead-letter messages peeked per page (SQS returns at most 10 per receive).
MAX_DEAD_LETTERS = 50
DIRECT = "(written directly)"


class OutsideTenant(ValueError):
    """A namespace asked for on a tenant's page that is not the tenant's."""


def encode(namespace: Iterable[str]) -> str:
    return ".".join(namespace)


def decode(text: str) -> Namespace:
    return tuple(text.split(".")) if text else ()


def within(group: Namespace, namespace: Namespace) -> Namespace:
    """`namespace` when it lies at or under the tenant `group`, else `OutsideTenant`."""
    if len(group) != GROUP_LABELS or namespace[:GROUP_LABELS] != group:
        raise OutsideTenant(f"{encode(namespace)!r} is not a namespace of {encode(group)!r}")
    return namespace


def thread_tenant(group: Namespace) -> str:
    """The thread tenant whose threads belong to the memory group (its second label)."""
    return group[1]


@dataclass(frozen=True)
class Quote:
    """A message a memory was extracted from, read back from its thread."""

    message_id: str
    role: str
    text: str


@dataclass(frozen=True)
class Memory:
    """A memory as the pages show it: its item, strategy, provenance and chain links."""

    item: Item

    @property
    def value(self) -> dict[str, Any]:
        return dict(self.item.value)

    @property
    def provenance(self) -> dict[str, Any]:
        found = self.item.value.get(PROVENANCE)
        return dict(found) if isinstance(found, Mapping) else {}

    @property
    def strategy(self) -> str:
        return str(self.provenance.get("strategy") or DIRECT)

    @property
    def status(self) -> str:
        return str(self.item.value.get(STATUS) or "current")

    @property
    def superseded(self) -> bool:
        return self.status == SUPERSEDED

    @property
    def text(self) -> str:
        text = self.item.value.get("text")
        if isinstance(text, str):
            return text
        shown = {k: v for k, v in self.item.value.items() if k not in BOOKKEEPING}
        return json.dumps(shown, ensure_ascii=False)

    @property
    def sources(self) -> dict[str, Any]:
        found = self.item.value.get(SOURCES)
        return dict(found) if isinstance(found, Mapping) else {}

    @property
    def revisions(self) -> list[dict[str, Any]]:
        found = self.item.value.get(REVISIONS)
        return [dict(r) for r in found if isinstance(r, Mapping)] if isinstance(found, list) else []

    @property
    def superseded_by(self) -> str | None:
        found = self.item.value.get(SUPERSEDED_BY)
        return found if isinstance(found, str) else None

    @property
    def superseded_at(self) -> str | None:
        found = self.item.value.get(SUPERSEDED_AT)
        return found if isinstance(found, str) else None

    @property
    def supersedes(self) -> str | None:
        found = self.item.value.get(SUPERSEDES)
        return found if isinstance(found, str) else None


BOOKKEEPING = frozenset(
    {PROVENANCE, REVISIONS, SOURCES, STATUS, SUPERSEDED_AT, SUPERSEDED_BY, SUPERSEDES, "said_at"}
)


@dataclass(frozen=True)
class Page:
    """One page of a listing and whether another follows."""

    rows: list[Any]
    offset: int
    more: bool

    @property
    def next_offset(self) -> int:
        return self.offset + len(self.rows)


@dataclass
class Day:
    """One UTC day of a tenant's usage."""

    day: str
    requests: int = 0
    read_units: float = 0.0
    write_units: float = 0.0
    tokens: int = 0


@dataclass(frozen=True)
class DeadLetter:
    """A dead-lettered extraction request of the tenant."""

    thread_id: str
    checkpoint_id: str
    reason: str
    sent_at: str


@dataclass(frozen=True)
class ForgetCensus:
    """What forgetting a conversation does: the memories its ledger names, split by whether
    the thread is their only source (deleted) or one of several (they lose it)."""

    thread_id: str
    deleted: list[Memory]
    kept: list[Memory]
    missing: int


@dataclass
class Job:
    """An action running in the background (a purge may wait out writers' caches), polled
    by its result page."""

    id: str
    title: str
    group: Namespace
    started: float = field(default_factory=time.time)
    done: bool = False
    error: str | None = None
    outcome: dict[str, Any] = field(default_factory=dict)


class Inspector:
    """The inspector's reads and actions on one table, as `target` (the command line's
    options) names it."""

    def __init__(
        self,
        target: Target,
        *,
        usage_log: Path | None = None,
        dead_letter_url: str | None = None,
    ) -> None:
        self.target = target
        self.usage_log = usage_log
        self.dead_letter_url = dead_letter_url
        self._lock = threading.Lock()
        self._store: DynamoDBStore | None = None
        self._search_store: DynamoDBStore | None = None
        self._savers: dict[str, DynamoDBSaver] = {}
        self.jobs: dict[str, Job] = {}

    # The library's objects, built once

    @property
    def table(self) -> str:
        return self.target.table

    @property
    def store(self) -> DynamoDBStore:
        with self._lock:
            if self._store is None:
                self._store = self.target.store(index=False)
            return self._store

    @property
    def search_store(self) -> DynamoDBStore:
        """A store that embeds queries with the model the table's index pinned."""
        with self._lock:
            if self._search_store is None:
                self._search_store = self.target.store()
            return self._search_store

    def saver(self, tenant: str) -> DynamoDBSaver:
        with self._lock:
            if tenant not in self._savers:
                self._savers[tenant] = self.target.saver(tenant)
            return self._savers[tenant]

    def extractor(self) -> Extractor:
        from langgraph.store.dynamodb.extraction import Extractor

        return Extractor(
            self.store,
            self.target.saver("", bound=False),
            bedrock_endpoint_url=self.target.settings.endpoint_url,
        )

    def endpoint(self) -> str:
        """Where the table is (region and endpoint), never the credentials."""
        meta = self.store.client.meta
        return f"{meta.region_name} / {meta.endpoint_url}"

    # Tenants

    def tenants(self, offset: int = 0, limit: int = PAGE) -> Page:
        """The memory groups of the table, sorted, a page at a time (the registry)."""
        found = self.store.list_namespaces(max_depth=GROUP_LABELS, limit=limit + 1, offset=offset)
        return Page(found[:limit], offset, len(found) > limit)

    def namespaces(self, group: Namespace, offset: int = 0, limit: int = PAGE) -> Page:
        """The tenant's namespaces, a page at a time."""
        found = self.store.list_namespaces(prefix=group, limit=limit + 1, offset=offset)
        return Page(found[:limit], offset, len(found) > limit)

    def users(self, group: Namespace, offset: int = 0, limit: int = PAGE) -> Page:
        """The tenant's namespaces cut to three labels: its users in the usual layout."""
        found = self.store.list_namespaces(
            prefix=group, max_depth=GROUP_LABELS + 1, limit=limit + 1, offset=offset
        )
        users = [ns for ns in found if len(ns) > GROUP_LABELS]
        return Page(users[:limit], offset, len(found) > limit)

    def threads(self, group: Namespace, offset: int = 0, limit: int = PAGE) -> Page:
        """The tenant's conversations (the checkpointer's thread registry), a page at a time."""
        ids = self.saver(thread_tenant(group)).threads(limit=offset + limit + 1)
        return Page(ids[offset : offset + limit], offset, len(ids) > offset + limit)

    # Memories

    def memories(
        self,
        group: Namespace,
        namespace: Namespace,
        *,
        offset: int = 0,
        limit: int = PAGE,
        superseded: bool = False,
    ) -> tuple[dict[str, list[Memory]], Page]:
        """The memories at or under `namespace` (of the tenant), newest first, a page at a
        time, grouped by strategy; superseded ones only when asked."""
        within(group, namespace)
        found = self.store.search(
            namespace,
            limit=limit + 1,
            offset=offset,
            refresh_ttl=False,
        )
        page = Page(found[:limit], offset, len(found) > limit)
        grouped: dict[str, list[Memory]] = defaultdict(list)
        for item in page.rows:
            memory = Memory(item)
            if memory.superseded and not superseded:
                continue
            grouped[memory.strategy].append(memory)
        ordered = sorted(grouped.items(), key=lambda kv: (kv[0] == DIRECT, kv[0]))
        return dict(ordered), page

    def memory(self, group: Namespace, namespace: Namespace, key: str) -> Memory | None:
        item = self.store.get(within(group, namespace), key, refresh_ttl=False)
        return None if item is None else Memory(item)

    def chain(self, group: Namespace, namespace: Namespace, key: str) -> list[Memory]:
        """The supersede chain through the memory, oldest first (each member links to the
        one it supersedes and the one that superseded it, in the same namespace)."""
        within(group, namespace)
        members: dict[str, Memory] = {}
        todo = [key]
        while todo and len(members) < MAX_CHAIN:
            found = self.store.batch([GetOp(namespace, k, refresh_ttl=False) for k in todo])
            todo = []
            for item in found:
                if not isinstance(item, Item) or item.key in members:
                    continue
                members[item.key] = Memory(item)
                for link in (members[item.key].supersedes, members[item.key].superseded_by):
                    if link and link not in members and link not in todo:
                        todo.append(link)
        order: list[Memory] = []
        first = [m for m in members.values() if not m.supersedes or m.supersedes not in members]
        current = first[0] if first else None
        while current is not None and current not in order:
            order.append(current)
            after = current.superseded_by
            current = members.get(after) if after else None
        order += [m for m in members.values() if m not in order]
        return order

    def quotes(self, group: Namespace, provenance: Mapping[str, Any]) -> list[Quote]:
        """The messages the provenance names, read back from its thread at its newest
        checkpoint (empty when the thread or the messages are gone)."""
        from langgraph.store.dynamodb.extraction.engine.reader import read_thread

        tenant = str(provenance.get("tenant", ""))
        if tenant != thread_tenant(group):
            return []  # another tenant's thread: never read from this tenant's pages
        thread = str(provenance.get("thread_id", ""))
        checkpoints = [str(c) for c in provenance.get("checkpoint_ids", [])]
        wanted = [str(m) for m in provenance.get("message_ids", [])]
        if not thread or not wanted:
            return []
        state = read_thread(
            self.target.saver("", bound=False),
            tenant,
            thread,
            checkpoints[-1] if checkpoints else None,
        )
        if state is None:
            return []
        by_id = {m.message_id: m for m in state.messages}
        return [Quote(i, by_id[i].role, by_id[i].text) for i in wanted if i in by_id]

    def search(
        self,
        group: Namespace,
        namespace: Namespace,
        *,
        query: str | None,
        filters: dict[str, Any] | None,
        offset: int = 0,
        limit: int = PAGE,
    ) -> Page:
        """The store's answer to a search under the tenant's `namespace`."""
        within(group, namespace)
        store = self.search_store if query else self.store
        found = store.search(
            namespace,
            query=query or None,
            filter=filters,
            limit=limit + 1,
            offset=offset,
            refresh_ttl=False,
        )
        return Page(found[:limit], offset, len(found) > limit)

    # Extraction

    def extraction(self, group: Namespace) -> list[StrategyStatus]:
        return self.extractor().status(thread_tenant(group))

    def dead_letters(self, group: Namespace) -> tuple[list[DeadLetter], str | None]:
        """The tenant's entries in the extraction dead-letter queue (peeked: left in the
        queue), and a note when there is no queue to read."""
        from langgraph.store.dynamodb.handlers.extraction_queue import ExtractionRequest

        sqs = self._sqs()
        url = self.dead_letter_url
        if url is None:
            try:  # the emulation's (testing.auto_extract) name for the table's queue
                url = sqs.get_queue_url(QueueName=f"{self.table}-extraction-dlq")["QueueUrl"]
            except Exception:
                return [], "No dead-letter queue found: pass --dead-letter-url."
        tenant = thread_tenant(group)
        found: dict[str, DeadLetter] = {}
        for _ in range(MAX_DEAD_LETTERS // 10):
            answer = sqs.receive_message(
                QueueUrl=url,
                MaxNumberOfMessages=10,
                VisibilityTimeout=0,
                AttributeNames=["SentTimestamp"],
            )
            messages = answer.get("Messages", [])
            if not messages:
                break
            for message in messages:
                try:
                    request = ExtractionRequest.parse(message["Body"])
                except Exception:
                    continue
                if request.tenant != tenant:
                    continue
                sent = int(message.get("Attributes", {}).get("SentTimestamp", 0)) / 1000
                found[message["MessageId"]] = DeadLetter(
                    request.thread_id, request.checkpoint_id, request.reason or "", _when(sent)
                )
        return list(found.values()), None

    def _sqs(self) -> Any:
        settings = self.target.settings
        return settings.session().client(
            "sqs",
            region_name=self.store.client.meta.region_name,
            endpoint_url=settings.endpoint_url,
        )

    # Usage

    def usage(self, group: Namespace) -> tuple[list[Day], str | None]:
        """The tenant's usage per UTC day, from the usage log (`UsageLogSink`'s lines: the
        memory group's records and its thread tenant's), with extraction's token counts
        kept on the table (today and yesterday) where the log has none."""
        from langgraph.store.dynamodb.extraction.engine.budget import Budget, day_of

        tenant = thread_tenant(group)
        names = {encode(group), f".threads.{tenant}"}
        days: dict[str, Day] = {}
        note = None
        if self.usage_log is None:
            note = "No usage log: pass --usage-log FILE (UsageLogSink's JSON lines)."
        else:
            try:
                for record in _usage_records(self.usage_log):
                    if record.get("tenant") not in names:
                        continue
                    day = day_of(float(record.get("at", 0)))
                    into = days.setdefault(day, Day(day))
                    into.requests += 1
                    into.read_units += float(record.get("read_units", 0))
                    into.write_units += float(record.get("write_units", 0))
                    into.tokens += int(record.get("input_tokens", 0)) + int(
                        record.get("output_tokens", 0)
                    )
            except OSError as error:
                note = f"Cannot read the usage log {self.usage_log}: {error.strerror or error}."
        budget = Budget(self.store.client, self.table)
        now = time.time()
        for back in (1, 0):
            day = day_of(now - back * 86400)
            used = budget.used(tenant, now - back * 86400)
            if used and not days.get(day, Day(day)).tokens:
                days.setdefault(day, Day(day)).tokens = used
        return [days[d] for d in sorted(days)], note

    # Actions: a census first, then the run

    def purge_census(self, group: Namespace, namespace: Namespace) -> Census:
        """What purging `namespace` (the tenant, with its threads, or one of its users)
        would delete, by kind, read as the purge reads it."""
        from langgraph.store.dynamodb.jobs.purge import census

        return census(
            self.store.client,
            self.table,
            within(group, namespace),
            sources=self._sources(group, namespace),
        )

    def purge(self, group: Namespace, namespace: Namespace) -> PurgeResult:
        return self.store.purge(within(group, namespace), sources=self._sources(group, namespace))

    def _sources(self, group: Namespace, namespace: Namespace) -> list[RowSource]:
        """The tenant's threads and what extraction kept for them, for a whole-tenant purge."""
        from langgraph.checkpoint.dynamodb.erasure import tenant_sources

        if namespace != group:
            return []
        return list(tenant_sources(self.store.client, self.table, thread_tenant(group)))

    def forget_census(self, group: Namespace, thread_id: str) -> ForgetCensus:
        """The memories the thread's ledger names, and which of them forgetting deletes."""
        from langgraph.store.dynamodb.extraction.engine.ledger import Ledger

        tenant = thread_tenant(group)
        named = [m for _, m in Ledger(self.store.client, self.table).memories(tenant, thread_id)]
        wanted = list(dict.fromkeys(named))
        found = self.store.batch([GetOp(ns, key, refresh_ttl=False) for ns, key in wanted])
        deleted: list[Memory] = []
        kept: list[Memory] = []
        missing = 0
        for item in found:
            if not isinstance(item, Item):
                missing += 1
                continue
            memory = Memory(item)
            others = [t for t in memory.sources if t != thread_id]
            (kept if others else deleted).append(memory)
        return ForgetCensus(thread_id, deleted, kept, missing)

    def forget(self, group: Namespace, thread_id: str) -> int:
        return self.extractor().forget_thread(thread_tenant(group), thread_id)

    def replay(self, group: Namespace, thread_id: str) -> list[dict[str, Any]]:
        report = self.extractor().replay(thread_tenant(group), thread_id)
        return [run.summary() for run in report.runs]

    def start(self, title: str, group: Namespace, work: Callable[[], dict[str, Any]]) -> Job:
        """Run `work` on a thread of its own; its job records the outcome or the error."""
        job = Job(uuid.uuid4().hex, title, group)
        self.jobs[job.id] = job

        def run() -> None:
            try:
                job.outcome = work()
            except Exception as error:
                job.error = f"{type(error).__name__}: {error}"
            finally:
                job.done = True

        threading.Thread(target=run, name=f"ui-job-{job.id[:8]}", daemon=True).start()
        return job

    def close(self) -> None:
        for store in (self._store, self._search_store):
            if store is not None:
                with contextlib.suppress(Exception):
                    store.close()


def _usage_records(path: Path) -> Iterator[dict[str, Any]]:
    """The usage records of a log of JSON lines (other lines skipped)."""
    with path.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and "operation" in record and "tenant" in record:
                yield record


def _when(epoch: float | None) -> str:
    if not epoch:
        return ""
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def when(epoch: float | None) -> str:
    """Epoch seconds as a UTC time, for the pages."""
    return _when(epoch) or "never"


def bars(days: Sequence[Day]) -> list[dict[str, Any]]:
    """The usage chart's series: per measure, each day's value and its bar height (0..1 of
    the measure's largest day)."""
    measures = (
        ("requests", "requests"),
        ("read_units", "read units"),
        ("write_units", "write units"),
        ("tokens", "model tokens"),
    )
    series = []
    for attribute, label in measures:
        values = [float(getattr(d, attribute)) for d in days]
        top = max(values, default=0.0) or 1.0
        series.append(
            {
                "label": label,
                "points": [
                    {"day": d.day, "value": v, "height": v / top}
                    for d, v in zip(days, values, strict=True)
                ],
            }
        )
    return series
