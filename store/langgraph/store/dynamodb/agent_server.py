"""The LangGraph Agent Server factories: point `langgraph.json` at `generate_store` (the
store, long-term memory) and `generate_checkpointer` (the threads, short-term memory),
both on the same table.

```json
{
  "store": {"path": "langgraph.store.dynamodb.agent_server:generate_store"},
  "checkpointer": {"path": "langgraph.store.dynamodb.agent_server:generate_checkpointer"}
}
```

Both are built from the `DYNAMODB_MEMORY_*` environment variables or the config file
named by `DYNAMODB_MEMORY_CONFIG` (see `langgraph.store.dynamodb.basestore.config`). With
`DYNAMODB_MEMORY_SETUP=1` the table and index are created at start when missing (handy
locally; in AWS the CDK stack creates them).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator

from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb.basestore.config import ENV_PREFIX, load_settings
from langgraph.store.dynamodb.basestore.store import DynamoDBStore

SETUP_ENV = ENV_PREFIX + "SETUP"


@contextlib.asynccontextmanager
async def generate_store() -> AsyncIterator[DynamoDBStore]:
    """Yield a `DynamoDBStore` configured from the environment; close it on exit."""
    settings = load_settings()
    async with DynamoDBStore.afrom_table(
        settings.table, setup=_setup(), **settings.store_kwargs()
    ) as store:
        yield store


@contextlib.asynccontextmanager
async def generate_checkpointer() -> AsyncIterator[DynamoDBSaver]:
    """Yield a `DynamoDBSaver` on the store's table (the same `DYNAMODB_MEMORY_*` table,
    region and endpoint; the store's TTL is for memories, not threads); close it on exit."""
    settings = load_settings()
    saver = DynamoDBSaver(
        settings.table,
        region_name=settings.region,
        endpoint_url=settings.endpoint_url,
        boto3_session=settings.session(),
    )
    async with saver:
        if _setup():
            await saver.asetup()
        yield saver


def _setup() -> bool:
    return os.environ.get(SETUP_ENV, "").lower() in ("1", "true", "yes")
