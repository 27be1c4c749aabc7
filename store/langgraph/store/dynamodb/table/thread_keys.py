"""Key codec of the checkpointer's rows: threads, their rows, the thread registry and the
run index, on the store's table, injectively and apart from every store row (the
layout, and why no row of another kind shares a key, is in `schema`).

A thread's rows all live in its partition, so a thread is one item collection and
`delete_thread`/`copy_thread` are Queries of one partition; a run's index partition
lists the checkpoints the run wrote, which `delete_for_runs` reads instead of scanning;
the thread's run links name those rows from the thread's side (`run_link_sk`).

The tenant is `%`/`/`-escaped in partition keys (empty for a saver without a tenant key),
so the first `/` after the kind ends it, and `.t/<tenant>/*` is an exact IAM
`LeadingKeys` pattern for one tenant. Sort-key parts are `%`/`#`-escaped so `#`
separates parts.
"""

from __future__ import annotations

from dataclasses import dataclass

from langgraph.store.dynamodb.table.keys import MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES
from langgraph.store.dynamodb.table.schema import (
    BLOB,
    CHECKPOINT,
    CHUNK,
    EXTRACTION_KIND,
    RUN_KIND,
    RUN_LINK,
    THREAD_KIND,
    WRITE_PREFIX,
    WRITES_SUFFIX,
)

SEP = "#"


def escape(part: str) -> str:
    """`part` with `%` and `#` percent-escaped: a sort-key part without `#`."""
    return part.replace("%", "%25").replace("#", "%23")


def unescape(part: str) -> str:
    """Inverse of `escape`."""
    return part.replace("%23", "#").replace("%25", "%")


def escape_tenant(tenant: str) -> str:
    """`tenant` with `%` and `/` percent-escaped: a partition-key part without `/`."""
    return tenant.replace("%", "%25").replace("/", "%2F")


def unescape_tenant(part: str) -> str:
    """Inverse of `escape_tenant`."""
    return part.replace("%2F", "/").replace("%25", "%")


@dataclass(frozen=True)
class Thread:
    """One thread of one tenant (`""` when the saver has no tenant key)."""

    tenant: str
    thread_id: str

    @property
    def pk(self) -> str:
        """The partition holding every row of the thread."""
        return f"{registry_pk(self.tenant)}/{self.thread_id}"

    def __str__(self) -> str:
        return f"thread {self.thread_id!r}" + (f" of tenant {self.tenant!r}" if self.tenant else "")


def registry_pk(tenant: str) -> str:
    """The partition listing a tenant's threads (sort key: thread id)."""
    return THREAD_KIND + escape_tenant(tenant)


def thread_of_pk(pk: str) -> Thread:
    """Inverse of `Thread.pk`."""
    tenant, _, thread_id = pk[len(THREAD_KIND) :].partition("/")
    return Thread(unescape_tenant(tenant), thread_id)


def tenant_of_partition(pk: str) -> str | None:
    """The tenant whose thread, thread registry, run index or extraction rows `pk` is
    (None for any other partition)."""
    for kind in (THREAD_KIND, RUN_KIND, EXTRACTION_KIND):
        if pk.startswith(kind):
            return unescape_tenant(pk[len(kind) :].partition("/")[0])
    return None


def run_pk(tenant: str, run_id: str) -> str:
    """The partition indexing the checkpoints a run wrote."""
    return f"{RUN_KIND}{escape_tenant(tenant)}/{run_id}"


def run_sk(thread_id: str, checkpoint_ns: str, checkpoint_id: str | None = None) -> str:
    """A run index row: which thread and namespace the run wrote checkpoints in (rows of
    earlier versions also name the checkpoint, one row per checkpoint)."""
    parts = (thread_id, checkpoint_ns) + ((checkpoint_id,) if checkpoint_id else ())
    return SEP.join(escape(part) for part in parts)


def parse_run_sk(sk: str) -> tuple[str, str, str | None]:
    """Inverse of `run_sk`: thread id, namespace, checkpoint id (None for a row naming
    every checkpoint of the run in the thread's namespace)."""
    thread_id, ns, *checkpoint_id = (unescape(part) for part in sk.split(SEP))
    return thread_id, ns, checkpoint_id[0] if checkpoint_id else None


def run_link_sk(run_id: str, checkpoint_ns: str) -> str:
    """A thread's run link: the run index row `run_pk(tenant, run_id)` /
    `run_sk(thread_id, checkpoint_ns)`, named in the thread's own partition."""
    return RUN_LINK + SEP.join(escape(part) for part in (run_id, checkpoint_ns))


def parse_run_link_sk(sk: str) -> tuple[str, str]:
    """Inverse of `run_link_sk`: run id, namespace."""
    run_id, ns = (unescape(part) for part in sk[len(RUN_LINK) :].split(SEP))
    return run_id, ns


def checkpoints_prefix(checkpoint_ns: str | None) -> str:
    """The sort-key prefix of a namespace's checkpoints (every namespace's for None)."""
    if checkpoint_ns is None:
        return CHECKPOINT
    return CHECKPOINT + escape(checkpoint_ns) + SEP


def checkpoint_sk(checkpoint_ns: str, checkpoint_id: str) -> str:
    """A checkpoint row."""
    return checkpoints_prefix(checkpoint_ns) + escape(checkpoint_id)


def writes_sk(checkpoint_sk: str) -> str:
    """The writes row of the checkpoint row `checkpoint_sk` (sorts right after it)."""
    return checkpoint_sk + WRITES_SUFFIX


def is_writes_sk(sk: str) -> bool:
    """Whether `sk` is a writes row's (checkpoint ids and namespaces are `#`-escaped)."""
    return sk.startswith(CHECKPOINT) and sk.endswith(WRITES_SUFFIX)


def owner_of_writes(sk: str) -> str:
    """The checkpoint row of the writes row `sk`."""
    return sk[: -len(WRITES_SUFFIX)]


def parse_checkpoint_sk(sk: str) -> tuple[str, str]:
    """Inverse of `checkpoint_sk`: namespace, checkpoint id."""
    ns, checkpoint_id = sk[len(CHECKPOINT) :].split(SEP)
    return unescape(ns), unescape(checkpoint_id)


def blob_sk(checkpoint_ns: str, channel: str, version: object) -> str:
    """The row of one version of one channel's value."""
    parts = (escape(checkpoint_ns), escape(channel), escape(str(version)))
    return BLOB + SEP.join(parts)


def chunk_sk(owner_sk: str, field: str, index: int) -> str:
    """The `index`-th chunk of the value `field` of the row `owner_sk`."""
    return f"{CHUNK}{owner_sk}{SEP}{field}{SEP}{index:05d}"


def write_field(task_id: str, idx: int) -> str:
    """The key of a pending write in its checkpoint's map (and its chunks' field)."""
    return f"{WRITE_PREFIX}{escape(task_id)}:{idx}"


class KeyTooLongError(ValueError):
    """A thread, namespace, channel or task id too long for DynamoDB's key limits."""


def check_keys(pk: str, sort_keys: list[str], what: str) -> None:
    """Raise `KeyTooLongError` before any write when a key exceeds DynamoDB's limits."""
    size = len(pk.encode())
    if size > MAX_PARTITION_KEY_BYTES:
        raise KeyTooLongError(
            f"{what}: its partition key is {size} bytes; DynamoDB allows "
            f"{MAX_PARTITION_KEY_BYTES}. Use a shorter thread id or tenant."
        )
    for sk in sort_keys:
        size = len(sk.encode())
        if size > MAX_SORT_KEY_BYTES:
            raise KeyTooLongError(
                f"{what}: the row key {sk[:80]!r}... is {size} bytes; DynamoDB allows "
                f"{MAX_SORT_KEY_BYTES}. Use shorter checkpoint namespaces, channel names, "
                "versions or task ids."
            )
