"""The threads of a saver without a `tenant_key` are tenant "" (a saver with one refuses
""), so a namespace label that is `{tenant}` alone fills with "" for them, which no
namespace may hold: not one of their memories would form. The config they run with
(the table's, with tenant ""'s override) is refused when set instead, on one line naming
the strategy, its template and the fix."""

from __future__ import annotations

from typing import Any

from langgraph.store.dynamodb.extraction.engine.config import (
    ExtractionConfig,
    ExtractionConfigError,
)
from langgraph.store.dynamodb.extraction.strategies.strategy import TENANT_VALUE
from langgraph.store.dynamodb.table.schema import PK
from langgraph.store.dynamodb.table.thread_keys import registry_pk

# The tenant of every thread of a saver without a tenant key.
NO_TENANT = ""


def holds_untenanted_threads(client: Any, table: str) -> bool:
    """Whether `table` lists threads of a saver without a tenant key (one Query)."""
    response = client.query(
        TableName=table,
        KeyConditionExpression="#pk = :pk",
        ExpressionAttributeNames={"#pk": PK},
        ExpressionAttributeValues={":pk": {"S": registry_pk(NO_TENANT)}},
        ProjectionExpression="#pk",
        Limit=1,
    )
    return bool(response.get("Items"))


def check_untenanted(config: ExtractionConfig) -> None:
    """Refuse `config` as the one threads without a tenant run with when a strategy's
    namespace would hold an empty label for them."""
    for i, strategy in enumerate(config.strategies):
        values = {name: name for name in strategy.placeholders()} | {TENANT_VALUE: NO_TENANT}
        filled = strategy.namespace_for(values)
        if all(filled):
            continue
        fixed = [label for label, value in zip(strategy.namespace, filled, strict=True) if value]
        raise ExtractionConfigError(
            f"strategies[{i}] ({strategy.name}).namespace: {list(strategy.namespace)} puts "
            "{tenant} in a label of its own, which is empty for the threads of a saver "
            f"without tenant_key: set the namespace to e.g. {fixed or ['memories']}, or give "
            "the saver a tenant_key"
        )
