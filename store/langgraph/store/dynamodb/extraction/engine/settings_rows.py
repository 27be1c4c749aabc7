"""The extraction config on the table: the table's row and tenants' overrides in `._meta`,
as JSON, read together in one request."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langgraph.store.dynamodb.extraction.engine.config import (
    ExtractionConfig,
    TenantOverride,
    parse,
)
from langgraph.store.dynamodb.extraction.engine.keys import config_key
from langgraph.store.dynamodb.table import dynamo
from langgraph.store.dynamodb.table.schema import EXTRACTION_SETTINGS, SK


class SettingsRows:
    """Reads and writes the config rows of one table."""

    def __init__(self, client: Any, table: str) -> None:
        self._client = client
        self._table = table

    def load(self, tenant: str | None) -> tuple[ExtractionConfig, TenantOverride | None]:
        """The table's config (the default when none was saved) and `tenant`'s override."""
        config, overrides = self.load_many([tenant] if tenant is not None else [])
        return config, overrides.get(tenant) if tenant is not None else None

    def load_many(
        self, tenants: Sequence[str]
    ) -> tuple[ExtractionConfig, dict[str, TenantOverride | None]]:
        """The table's config and each tenant's override, in one request (up to 99
        tenants)."""
        keys = [config_key(None), *(config_key(t) for t in tenants)]
        rows = {
            row[SK]: json.loads(row[EXTRACTION_SETTINGS])
            for row in dynamo.batch_get(self._client, self._table, keys, consistent=True)
        }
        table_data = rows.get(config_key(None)[SK])
        config = (
            ExtractionConfig()
            if table_data is None
            else parse(ExtractionConfig, table_data, "extraction config")
        )
        overrides: dict[str, TenantOverride | None] = {}
        for tenant in tenants:
            data = rows.get(config_key(tenant)[SK])
            overrides[tenant] = (
                None if data is None else parse(TenantOverride, data, f"tenant {tenant!r}")
            )
        return config, overrides

    def save(self, tenant: str | None, settings: ExtractionConfig | TenantOverride | None) -> None:
        """Write (or, for None, delete) the table's config or a tenant's override."""
        key = dynamo.serialize(config_key(tenant))
        if settings is None:
            self._client.delete_item(TableName=self._table, Key=key)
            return
        data = json.dumps(settings.model_dump(mode="json", exclude_unset=tenant is not None))
        item = {**key, EXTRACTION_SETTINGS: {"S": data}}
        self._client.put_item(TableName=self._table, Item=item)
