"""The LangGraph Agent Server store factory: point `langgraph.json` at `generate_store`.

```json
{"store": {"path": "langgraph.store.dynamodb.agent_server:generate_store"}}
```

The store is built from the `DYNAMODB_MEMORY_*` environment variables or the config file
named by `DYNAMODB_MEMORY_CONFIG` (see `langgraph.store.dynamodb.config`). With
`DYNAMODB_MEMORY_SETUP=1` the table and index are created at start when missing (handy
locally; in AWS the CDK stack creates them).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator

from .config import ENV_PREFIX, load_settings
from .store import DynamoDBStore

SETUP_ENV = ENV_PREFIX + "SETUP"


@contextlib.asynccontextmanager
async def generate_store() -> AsyncIterator[DynamoDBStore]:
    """Yield a `DynamoDBStore` configured from the environment; close it on exit."""
    settings = load_settings()
    setup = os.environ.get(SETUP_ENV, "").lower() in ("1", "true", "yes")
    async with DynamoDBStore.afrom_table(
        settings.table, setup=setup, **settings.store_kwargs()
    ) as store:
        yield store
