"""Key codec of the extraction's rows (the layout, and why no row of another kind shares
a key, is in `schema`): a tenant's cursors and daily token counts in `.x/<tenant>`, the
ledger of the memories formed from a thread in `.x/<tenant>/<thread_id>`, the config in
`._meta`. The tenant is escaped as in thread keys, sort-key parts `%`/`#`-escaped. The
partitions, the ledger index and the config's keys are `table.extraction_rows`', where a
purge finds them."""

from __future__ import annotations

from langgraph.store.dynamodb.table.extraction_rows import (
    config_key as config_key,
)
from langgraph.store.dynamodb.table.extraction_rows import (
    ledger_index_key as ledger_index_key,
)
from langgraph.store.dynamodb.table.extraction_rows import ledger_pk as ledger_pk
from langgraph.store.dynamodb.table.extraction_rows import tenant_pk as tenant_pk
from langgraph.store.dynamodb.table.schema import CURSOR, DAY, LEDGER, PK, SK
from langgraph.store.dynamodb.table.thread_keys import SEP, escape, unescape

Key = dict[str, str]


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
