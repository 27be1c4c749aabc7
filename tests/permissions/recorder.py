"""Record every AWS request any boto3 client in this process sends, as the IAM permission
it needs (`permissions.Permission`), at botocore's boundary: the requests still go to the
emulation unchanged."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from botocore.client import BaseClient
from langgraph.store.dynamodb.table.permissions import On, Permission
from langgraph.store.dynamodb.table.schema import GROUPS_PK, META_PK, PK, RECENCY_INDEX
from langgraph.store.dynamodb.testing._iam import AUTHORIZED_AS, TRANSACT_ACTIONS

SHARED_PARTITIONS = frozenset({GROUPS_PK, META_PK})
# The tests' extraction dead-letter queue ends with this (any other queue is the
# extraction queue).
DEAD_LETTERS = "-dead-letters"


@dataclass(frozen=True)
class Call:
    """One request: the IAM service prefix, the operation and its parameters."""

    prefix: str
    operation: str
    params: dict[str, Any] = field(compare=False)

    @property
    def permission(self) -> Permission:
        action = f"{self.prefix}:{AUTHORIZED_AS.get(self.operation, self.operation)}"
        if self.prefix == "bedrock" and self.operation == "Converse":
            return Permission(action, On.CHAT_MODEL)
        if self.prefix == "bedrock":
            return Permission(action, On.MODEL)
        if self.prefix == "sqs":
            dead = str(self.params.get("QueueUrl", "")).endswith(DEAD_LETTERS)
            return Permission(action, On.DEAD_LETTERS if dead else On.QUEUE)
        if self.operation == "ListStreams":
            return Permission(action, On.ANY)
        if "StreamArn" in self.params or "ShardIterator" in self.params:
            return Permission(action, On.STREAM)
        if self.operation == "SearchVectors":
            return Permission(action, On.VECTOR_INDEX)
        index = self.params.get("IndexName")
        if index is None:
            return Permission(action, On.TABLE)
        assert index == RECENCY_INDEX, f"{self.operation} reads an unknown index {index!r}"
        return Permission(action, On.LOCAL_INDEX)

    @property
    def permissions(self) -> frozenset[Permission]:
        """What AWS authorizes the call as: a transaction as each item operation it holds
        (there is no TransactWriteItems action), any other call as `permission`."""
        if self.operation != "TransactWriteItems":
            return frozenset({self.permission})
        return frozenset(
            Permission(f"dynamodb:{TRANSACT_ACTIONS[kind]}", On.TABLE)
            for item in self.params["TransactItems"]
            for kind in item
        )

    def __str__(self) -> str:
        table = self.params.get("TableName") or ",".join(self.params.get("RequestItems", ()))
        return f"{self.operation} on {table or self.params.get('modelId', '?')} {sorted(self.partitions())}"

    def partitions(self) -> set[str]:
        """The partition keys the request names (keys, items, key-condition values)."""
        found: set[str] = set()
        _partitions(self.params, found)
        return found


def _partitions(value: Any, found: set[str]) -> None:
    if isinstance(value, dict):
        for name, inner in value.items():
            if name == PK and isinstance(inner, dict) and "S" in inner:
                found.add(inner["S"])
            elif name == "ExpressionAttributeValues":
                found.update(v["S"] for v in inner.values() if v.get("S") in SHARED_PARTITIONS)
            else:
                _partitions(inner, found)
    elif isinstance(value, list):
        for inner in value:
            _partitions(inner, found)


class Recorder:
    """The requests sent while `recording()` is active, from any thread."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[Call] = []
        self._on = False
        self._lock = threading.Lock()
        original = BaseClient._make_api_call
        recorder = self

        def make_api_call(client: BaseClient, operation: str, params: dict[str, Any]) -> Any:
            if recorder._on:
                prefix = client.meta.service_model.signing_name
                with recorder._lock:
                    recorder.calls.append(Call(prefix, operation, dict(params)))
            return original(client, operation, params)

        monkeypatch.setattr(BaseClient, "_make_api_call", make_api_call)

    @contextlib.contextmanager
    def recording(self) -> Iterator[list[Call]]:
        """Record the requests sent inside the block (and only those), adding to `calls`."""
        self._on = True
        try:
            yield self.calls
        finally:
            self._on = False
