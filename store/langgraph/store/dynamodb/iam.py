"""IAM for per-tenant access: `dynamodb:LeadingKeys` on a tenant's encoded namespaces.

`tenant_policy(table_arn, ("memories", "acme"))` returns a policy document that lets a
principal read and write items only in the partitions of namespaces at or below that
prefix, encoded exactly as the store encodes them (`table.keys`). `*`, `?` and `$` in
labels are written as IAM's `${*}`, `${?}` and `${$}`, so a label can never widen the
pattern; `.` (the separator) cannot occur in a label, so `<prefix>.*` matches whole labels
only: `("acme",)` never matches `("acmex",)`.

What it cannot cover (DynamoDB offers no finer control):

- `SearchVectors` ignores `dynamodb:LeadingKeys`; it is granted on the index ARN, and its
  HASH condition scopes a search, it does not authorise one. A principal allowed to search
  can search any namespace.
- The registry keeps a group's namespaces (their first two labels) in one partition, which
  the policy grants: with a prefix deeper than two labels, the tenant also sees (and may
  alter) the registry rows of its siblings in that group, e.g. other users of the same
  tenant. The list of groups (`._groups`) and the model pin (`._meta`) are shared by all
  tenants: a tenant can read every group name (the first two labels of every namespace,
  not their items) and, as writing a new namespace updates that list, alter it (hiding a
  group from listing and prefix search until its next write). The model pin it can only
  read (`permissions.SHARED_ROWS`): pin the model once with the application's role
  (its first `setup()`); a tenant's `setup()` on an unpinned table is denied.

So the policy is defence in depth for items; a multi-tenant application must still derive
namespaces from the caller's verified identity, never from request input.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langgraph.store.dynamodb.table.keys import (
    GROUP_LABELS,
    SEPARATOR,
    Namespace,
    encode_namespace,
    registry_partition,
    validate_namespace,
)
from langgraph.store.dynamodb.table.permissions import (
    KEYED_ACTIONS,
    SHARED_ROWS,
    Component,
    On,
    Resources,
    actions,
)
from langgraph.store.dynamodb.table.schema import GROUPS_PK, META_PK, REGISTRY_PREFIX
from langgraph.store.dynamodb.table.thread_keys import registry_pk, run_pk

# The store's actions on the table and its local index that name partition keys, which
# `dynamodb:LeadingKeys` confines; the others (DescribeTable, DescribeTimeToLive) name none.
ITEM_ACTIONS = tuple(
    a for a in actions(Component.STORE, On.TABLE, On.LOCAL_INDEX) if a in KEYED_ACTIONS
)
TABLE_ACTIONS = tuple(a for a in actions(Component.STORE, On.TABLE) if a not in KEYED_ACTIONS)
# The checkpointer's, split the same way.
THREAD_ACTIONS = tuple(a for a in actions(Component.CHECKPOINTER, On.TABLE) if a in KEYED_ACTIONS)
THREAD_TABLE_ACTIONS = tuple(
    a for a in actions(Component.CHECKPOINTER, On.TABLE) if a not in KEYED_ACTIONS
)


def iam_literal(text: str) -> str:
    """`text` as a literal inside an IAM `StringLike` pattern."""
    return "".join("${" + c + "}" if c in "*?$" else c for c in text)


def leading_keys(prefix: Namespace) -> list[str]:
    """`StringLike` patterns matching the partition keys of `prefix` and every namespace
    below it, and nothing else."""
    validate_namespace(prefix)
    encoded = iam_literal(encode_namespace(prefix))
    return [encoded, encoded + SEPARATOR + "*"]


def registry_leading_keys(prefix: Namespace) -> list[str]:
    """`StringLike` patterns matching the registry partitions that hold the rows of the
    namespaces at or below `prefix` (the whole group when `prefix` is deeper than one)."""
    validate_namespace(prefix)
    if len(prefix) >= GROUP_LABELS:
        return [iam_literal(registry_partition(prefix))]
    encoded = iam_literal(REGISTRY_PREFIX + encode_namespace(prefix))
    return [encoded, encoded + SEPARATOR + "*"]


def thread_leading_keys(tenant: str) -> list[str]:
    """`StringLike` patterns matching the partitions of a tenant's threads (a
    `DynamoDBSaver` with `tenant_key`): its threads, its thread registry and its runs'
    indexes, and no other tenant's (the tenant is escaped so it cannot contain `/`)."""
    if not isinstance(tenant, str) or not tenant:
        raise ValueError(f"thread_tenant must be a non-empty string, got {tenant!r}")
    return [
        iam_literal(registry_pk(tenant)),
        iam_literal(registry_pk(tenant)) + "/*",
        iam_literal(run_pk(tenant, "")) + "*",
    ]


def tenant_policy(
    table_arn: str,
    prefix: Namespace,
    *,
    index_name: str | None = None,
    model_arns: Sequence[str] = (),
    thread_tenant: str | None = None,
) -> dict[str, Any]:
    """An IAM policy document giving a tenant's store what it needs (`permissions.NEEDS`,
    the read-write store), with item access confined to namespaces at or below `prefix`
    (see the module docstring for what it cannot confine). With `index_name`, also grants
    `SearchVectors` on that vector index, which no condition can narrow; with
    `model_arns`, `bedrock:InvokeModel` on them (the app embeds queries and puts). With
    `thread_tenant`, also what a `DynamoDBSaver(tenant_key=...)` needs (`Component.
    CHECKPOINTER`) on that tenant's threads only."""
    table = Resources(table_arn=table_arn, vector_index=index_name or "")
    statements: list[dict[str, Any]] = [
        {
            "Sid": "TenantItems",
            "Effect": "Allow",
            "Action": list(ITEM_ACTIONS),
            "Resource": [*table.of(On.TABLE), *table.of(On.LOCAL_INDEX)],
            "Condition": {
                "ForAllValues:StringLike": {
                    "dynamodb:LeadingKeys": leading_keys(prefix) + registry_leading_keys(prefix)
                }
            },
        },
        *(
            {
                "Sid": f"Shared{sid}",
                "Effect": "Allow",
                "Action": sorted(SHARED_ROWS[partition]),
                "Resource": [table_arn],
                "Condition": {"ForAllValues:StringEquals": {"dynamodb:LeadingKeys": [partition]}},
            }
            for sid, partition in (("GroupList", GROUPS_PK), ("ModelPin", META_PK))
        ),
        {
            "Sid": "DescribeTheTable",
            "Effect": "Allow",
            "Action": sorted({*TABLE_ACTIONS, *(THREAD_TABLE_ACTIONS if thread_tenant else ())}),
            "Resource": [table_arn],
        },
    ]
    if thread_tenant is not None:
        statements.append(
            {
                "Sid": "TenantThreads",
                "Effect": "Allow",
                "Action": list(THREAD_ACTIONS),
                "Resource": [table_arn],
                "Condition": {
                    "ForAllValues:StringLike": {
                        "dynamodb:LeadingKeys": thread_leading_keys(thread_tenant)
                    }
                },
            }
        )
    if index_name is not None:
        statements.append(
            {
                "Sid": "SearchVectorsNotTenantScoped",
                "Effect": "Allow",
                "Action": actions(Component.STORE, On.VECTOR_INDEX),
                "Resource": table.of(On.VECTOR_INDEX),
            }
        )
    if model_arns:
        statements.append(
            {
                "Sid": "EmbeddingModel",
                "Effect": "Allow",
                "Action": actions(Component.STORE, On.MODEL),
                "Resource": list(model_arns),
            }
        )
    return {"Version": "2012-10-17", "Statement": statements}
