"""Key codec of the extraction's rows (the layout, and why no row of another kind shares
a key, is in `schema`): a tenant's cursors and daily token counts in `.x/<tenant>`, the
ledger of the memories formed from a thread in `.x/<tenant>/<thread_id>`, the config in
`._meta`. The tenant is escaped as in thread keys, sort-key parts `%`/`#`-escaped."""

from __future__ import annotations

from langgraph.store.dynamodb.table.schema import (
    CURSOR,
    DAY,
    EXTRACTION_CONFIG,
    EXTRACTION_KIND,
    EXTRACTION_TENANT,
    LEDGER,
    META_PK,
    PK,
    SK,
)
from langgraph.store.dynamodb.table.thread_keys import SEP, escape, escape_tenant, unescape

Key = dict[str, str]


def tenant_pk(tenant: str) -> str:
    """The partition of a tenant's cursors and daily token counts."""
    return EXTRACTION_KIND + escape_tenant(tenant)


def ledger_pk(tenant: str, thread_id: str) -> str:
    """The partition listing the memories formed from one thread."""
    return f"{tenant_pk(tenant)}/{thread_id}"


def cursor_key(tenant: str, thread_id: str, strategy: str) -> Key:
    """The cursor of one strategy on one thread."""
    return {PK: tenant_pk(tenant), SK: CURSOR + escape(thread_id) + SEP + escape(strategy)}


def cursors_prefix(thread_id: str | None) -> str:
    """The sort-key prefix of a thread's cursors (every thread's for None)."""
    return CURSOR if thread_id is None else CURSOR + escape(thread_id) + SEP


def parse_cursor_sk(sk: str) -> tuple[str, str]:
    """Inverse of `cursor_key`'s sort key: thread id, strategy."""
    thread_id, strategy = sk[len(CURSOR) :].split(SEP)
    return unescape(thread_id), unescape(strategy)


def day_key(tenant: str, day: str) -> Key:
    """A tenant's token count of one UTC day (`yyyy-mm-dd`)."""
    return {PK: tenant_pk(tenant), SK: DAY + day}


def ledger_key(tenant: str, thread_id: str, strategy: str, memory_key: str) -> Key:
    """The ledger row of one memory formed from a thread."""
    return {
        PK: ledger_pk(tenant, thread_id),
        SK: LEDGER + escape(strategy) + SEP + escape(memory_key),
    }


def config_key(tenant: str | None) -> Key:
    """The table's extraction config (None) or a tenant's override."""
    suffix = "" if tenant is None else EXTRACTION_TENANT + tenant
    return {PK: META_PK, SK: EXTRACTION_CONFIG + suffix}
