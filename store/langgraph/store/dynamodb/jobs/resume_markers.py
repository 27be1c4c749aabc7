"""Resume markers: how far a whole-table job (a purge, a reindex) got, one row per job and
scope in the metadata partition. The job saves its marker as it advances and clears it
once done, so a run stopped at any point resumes from the last marker saved. (Nothing to
do with LangGraph's checkpoints, which the checkpointer keeps in threads.)

Keys (`schema`): a purge of a prefix, `._meta` / `purge#<scope>`; a reindex of a vector
index under a prefix, `._meta` / `reindex#<index name>#<scope>`, where `<scope>` is the
prefix as `keys.registry_prefix` writes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langgraph.store.dynamodb.table import dynamo
from langgraph.store.dynamodb.table.keys import Namespace, registry_prefix
from langgraph.store.dynamodb.table.schema import META_PK, PK, PURGE_PREFIX, REINDEX_PREFIX, SK


@dataclass(frozen=True)
class ResumeMarker:
    """The marker of one job on one table."""

    client: Any
    table: str
    sort_key: str

    @classmethod
    def of_purge(cls, client: Any, table: str, prefix: Namespace) -> ResumeMarker:
        """The marker of a purge of `prefix`."""
        return cls(client, table, PURGE_PREFIX + registry_prefix(prefix))

    @classmethod
    def of_reindex(
        cls, client: Any, table: str, index_name: str, prefix: Namespace
    ) -> ResumeMarker:
        """The marker of a reindex of the vector index `index_name` under `prefix`."""
        return cls(client, table, f"{REINDEX_PREFIX}{index_name}#{registry_prefix(prefix)}")

    @property
    def key(self) -> dict[str, str]:
        """The marker's row."""
        return {PK: META_PK, SK: self.sort_key}

    def load(self) -> dict[str, Any] | None:
        """The saved marker (a strongly consistent read), or None when there is none."""
        response = self.client.get_item(
            TableName=self.table, Key=dynamo.serialize(self.key), ConsistentRead=True
        )
        row = dynamo.deserialize(response.get("Item", {}))
        return row or None

    def save(self, progress: Mapping[str, Any]) -> None:
        """Write the marker: its key and `progress` (replacing what was saved)."""
        item = {**self.key, **progress}
        self.client.put_item(TableName=self.table, Item=dynamo.serialize(item))

    def clear(self) -> None:
        """Delete the marker: the job is done."""
        self.client.delete_item(TableName=self.table, Key=dynamo.serialize(self.key))


def saved(client: Any, table: str, kind: str) -> list[dict[str, Any]]:
    """Every saved marker whose sort key starts with `kind` (`PURGE_PREFIX`,
    `REINDEX_PREFIX`), read strongly consistently."""
    return list(
        dynamo.query(
            client,
            TableName=table,
            KeyConditionExpression=f"{PK} = :pk AND begins_with({SK}, :start)",
            ExpressionAttributeValues={":pk": {"S": META_PK}, ":start": {"S": kind}},
            ConsistentRead=True,
        )
    )


def scope_of(sort_key: str) -> str:
    """The scope (`keys.registry_prefix` of its prefix) a purge's or reindex's marker covers."""
    if sort_key.startswith(REINDEX_PREFIX):
        return sort_key.split("#", 2)[2]  # index names hold no `#`
    return sort_key.removeprefix(PURGE_PREFIX)
