"""Errors that tell the user what went wrong and what to do about it."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator
from typing import Any

from botocore.exceptions import ClientError
from langgraph.store.dynamodb.table.keys import Namespace
from langgraph.store.dynamodb.table.permissions import Component, actions

COLLECTION_FULL = "ItemCollectionSizeLimitExceededException"
ACCESS_DENIED = "AccessDeniedException"
# How AWS words a denial: "User: <arn> is not authorized to perform: <action> on resource:
# <arn> because ...".
_DENIAL = re.compile(
    r"User: (?P<principal>\S+) is not authorized to perform: (?P<action>[\w:-]+)"
    r"(?: on resource: (?P<resource>\S+))?"
)


class InvalidSettingError(ValueError):
    """A setting that cannot work, said on one line: which (`key`), its `value`, and what
    it `must` be (the fix). `label` is how the message names the setting (default `key`)."""

    def __init__(self, key: str, value: Any, must: str, *, label: str | None = None) -> None:
        super().__init__(f"{label or key} {must}, got {value!r}")
        self.key = key
        self.value = value
        self.must = must


class TableNotFoundError(LookupError):
    """The store's (or the saver's) DynamoDB table does not exist where the client looks."""


class KeySchemaError(ValueError):
    """The table exists but with another key schema than `PK`/`SK`: it is not one the
    store or the saver created."""


# What to run offline instead of a backend that is not DynamoDB enough.
OFFLINE_BACKENDS = (
    "For offline runs use langgraph.store.dynamodb.testing.mock_aws (in place of "
    "moto.mock_aws) or langgraph.store.dynamodb.testing.local_endpoint()"
)


class UnsupportedBackendError(RuntimeError):
    """The DynamoDB backend answering the client cannot serve the store or the saver as
    DynamoDB does."""


def plain_moto(owner: str) -> UnsupportedBackendError:
    """The error for `owner` (a class name) whose requests plain moto would answer."""
    return UnsupportedBackendError(
        f"{owner}'s requests are answered by plain moto (moto.mock_aws) without this "
        "package's emulation: plain moto does not serve concurrent requests atomically as "
        f"DynamoDB does, so {owner}'s concurrent calls fail (\"dictionary changed size during "
        f'iteration") or see half-applied writes. {OFFLINE_BACKENDS}.'
    )


class AccessDeniedError(PermissionError):
    """AWS refused one of the store's requests: its credentials lack the IAM permission."""


class NamespaceFullError(RuntimeError):
    """A write was refused because its namespace reached DynamoDB's 10 GB item-collection
    limit (tables with a local secondary index)."""


@contextlib.contextmanager
def table_must_exist(client: Any, table: str, *, owner: str = "store") -> Iterator[None]:
    """Turn DynamoDB's bare "Requested resource not found" into a `TableNotFoundError`
    naming the table, the region and endpoint, and `<owner>.setup()` (the object that
    met it: "store" or "saver"); the original is its cause."""
    try:
        yield
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") != "ResourceNotFoundException":
            raise
        meta = client.meta
        raise TableNotFoundError(
            f"DynamoDB table {table!r} was not found in region {meta.region_name} "
            f"(endpoint {meta.endpoint_url}). Call {owner}.setup() once to create it (or deploy "
            "the CDK stack), or check table_name, region_name and endpoint_url."
        ) from error


@contextlib.contextmanager
def access_must_be_granted(table: str) -> Iterator[None]:
    """Turn AWS's `AccessDeniedException` into an `AccessDeniedError` naming the action,
    the table and the grant that allows it; the original is its cause."""
    try:
        yield
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") != ACCESS_DENIED:
            raise
        raise AccessDeniedError(_denied(error, table)) from error


def _denied(error: ClientError, table: str) -> str:
    found = _DENIAL.search(error.response["Error"].get("Message", ""))
    action = found["action"] if found else error.operation_name
    who = f" to {found['principal']}" if found else ""
    on = f" (resource {found['resource']})" if found and found["resource"] else ""
    if action in set(actions(Component.STORE)) - set(actions(Component.STORE_READ)):
        fix = (
            "It is a write, which a read-only grant does not allow: grant the store's write "
            "actions, with the CDK construct MemoryBackend.grant_memory_access(role) without "
            "read_only=True, or the policy `dynamodb-memory policy store` prints."
        )
    else:
        fix = (
            "Grant the store what it needs: with the CDK construct "
            "MemoryBackend.grant_memory_access(role), or the policy `dynamodb-memory policy "
            "store` (or `store-read-only`) prints."
        )
    return (
        f"AWS denied {action} on the store's table {table!r}{on}{who}. {fix} A role with "
        "iam.tenant_policy is also denied outside its tenant's namespaces."
    )


def raise_if_collection_full(error: ClientError, namespaces: Iterable[Namespace]) -> None:
    """Turn DynamoDB's item-collection limit error into a `NamespaceFullError`."""
    if error.response["Error"]["Code"] != COLLECTION_FULL:
        return
    names = sorted(set(namespaces))
    raise NamespaceFullError(
        f"DynamoDB refused a write to namespace(s) {names}: a namespace reached the 10 GB "
        "item-collection limit (its items, their vectors and their recency index entries), "
        "which DynamoDB enforces per partition key on tables with a local secondary index. "
        "Reads and deletes still work: delete or shrink memories in that namespace, or write "
        "new ones under another namespace (e.g. one per year or per topic). Other writes of "
        "the same batch may have been applied."
    ) from error
