"""What each component calls on AWS: the one declaration every grant derives from.

`NEEDS` lists, per component, the IAM actions its requests need and on which resource.
The CDK construct's grants (`infra/backend.py`), the tenant policy (`iam.py`) and the
policies in docs/deploy.md (`dynamodb-memory policy <component>`) are all built from
it. The tests record every request each component sends and fail on one that is not
declared here, and on a declaration no request uses.

Resources are kinds (`On`), turned into ARNs by `Resources.of()`: the table, its local
secondary index (`recency`, which `Query` reads through), the vector index, the table's
stream, the embedding model, the chat models extraction calls, the extraction queue and
its dead-letter queue.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from langgraph.store.dynamodb.table.schema import GROUPS_PK, META_PK, RECENCY_INDEX
from langgraph.store.dynamodb.table.table_spec import DEFAULT_INDEX_NAME


class Component(StrEnum):
    """A part of the system that calls AWS with a principal of its own."""

    STORE_READ = "store-read-only"  # an app that only reads memories
    STORE = "store"  # an app that reads and writes memories (`setup()` on a deployed table)
    SETUP = "setup"  # `setup()` creating or retrofitting the table, its index and TTL
    CONSUMER = "consumer"  # the Lambda handler embedding writes in the background
    STREAM_POLLER = "stream-poller"  # Lambda's event source mapping, with the consumer's role
    REINDEX = "reindex"  # `reindex()` / `dynamodb-memory reindex`
    MIGRATION = "migration"  # `migration.copy_table()` from a table without the recency index
    CHECKPOINTER = "checkpointer"  # `DynamoDBSaver`: threads (short-term memory) on the table
    PURGE = "purge"  # `store.purge()` / `dynamodb-memory purge`: erasing a tenant
    EXTRACTOR = "extractor"  # the Lambda forming memories from threads (extraction.worker)
    QUEUE_POLLER = "queue-poller"  # Lambda's SQS event source, with the extractor's role


class On(StrEnum):
    """The kind of resource an action is granted on."""

    TABLE = "table"
    LOCAL_INDEX = "local index"
    VECTOR_INDEX = "vector index"
    STREAM = "stream"
    MODEL = "model"
    CHAT_MODEL = "chat model"
    QUEUE = "extraction queue"
    DEAD_LETTERS = "extraction dead-letter queue"
    ANY = "*"  # actions that accept no resource-level permission


@dataclass(frozen=True, order=True)
class Permission:
    """One IAM action on one kind of resource."""

    action: str
    on: On


def _on(on: On, *actions: str) -> frozenset[Permission]:
    return frozenset(Permission(action, on) for action in actions)


# Reading memories: BatchGetItem (get), Query (prefix search, the registry, the recency
# index), GetItem (the model pin), SearchVectors, the query's embedding, and the checks
# `setup()` makes on a deployed table.
_READ = (
    _on(On.TABLE, "dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query")
    | _on(On.TABLE, "dynamodb:DescribeTable", "dynamodb:DescribeTimeToLive")
    | _on(On.LOCAL_INDEX, "dynamodb:Query")
    | _on(On.VECTOR_INDEX, "dynamodb:SearchVectors")
    | _on(On.MODEL, "bedrock:InvokeModel")
)
_WRITE = _on(
    On.TABLE,
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:DeleteItem",
    "dynamodb:BatchWriteItem",
)

# The extractor's table actions, as its recorded requests show them (tests/permissions)
# and as every path of the deployed Lambda needs them (tests/infra/test_deployed_extraction):
# ConditionCheckItem is a transaction's check that the run still holds the cursor;
# DeleteItem removes the cursor of a thread gone before its run, and what a run wrote
# once a purge landed in it (the store's delete of one item).
EXTRACTOR_TABLE_ACTIONS = (
    "dynamodb:GetItem",
    "dynamodb:BatchGetItem",
    "dynamodb:Query",
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:DeleteItem",
    "dynamodb:ConditionCheckItem",
)

NEEDS: dict[Component, frozenset[Permission]] = {
    Component.STORE_READ: _READ,
    Component.STORE: _READ | _WRITE,
    Component.SETUP: _on(
        On.TABLE,
        "dynamodb:CreateTable",
        "dynamodb:UpdateTable",
        "dynamodb:DescribeTable",
        "dynamodb:DescribeTimeToLive",
        "dynamodb:UpdateTimeToLive",
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:Query",
    )
    | _on(On.VECTOR_INDEX, "dynamodb:SearchVectors"),
    # SendMessage: a thread's new checkpoints, routed to the extraction queue.
    Component.CONSUMER: _on(
        On.TABLE,
        "dynamodb:GetItem",
        "dynamodb:BatchGetItem",
        "dynamodb:Query",
        "dynamodb:UpdateItem",
        "dynamodb:BatchWriteItem",
    )
    | _on(On.MODEL, "bedrock:InvokeModel")
    | _on(On.QUEUE, "sqs:SendMessage"),
    Component.STREAM_POLLER: _on(
        On.STREAM, "dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator"
    )
    | _on(On.ANY, "dynamodb:ListStreams"),
    Component.REINDEX: _on(
        On.TABLE,
        "dynamodb:GetItem",
        "dynamodb:Query",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
        "dynamodb:DeleteItem",
        "dynamodb:BatchWriteItem",
    )
    | _on(On.MODEL, "bedrock:InvokeModel"),
    Component.MIGRATION: _on(On.TABLE, "dynamodb:Scan", "dynamodb:BatchWriteItem"),
    # `setup()` on a deployed table: DescribeTable, DescribeTimeToLive (it checks, as the
    # store's does). Reads: BatchGetItem (a checkpoint and its values), Query (latest, list,
    # whole threads, the thread registry, a run's index); writes: UpdateItem (pending
    # writes), TransactWriteItems (a checkpoint with its values: authorized as its PutItem
    # and UpdateItem operations), BatchWriteItem (chunks, delete, copy, prune).
    Component.CHECKPOINTER: _on(
        On.TABLE,
        "dynamodb:DescribeTable",
        "dynamodb:DescribeTimeToLive",
        "dynamodb:BatchGetItem",
        "dynamodb:Query",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
        "dynamodb:BatchWriteItem",
    ),
    # Query: the registry, each partition, `._meta`; BatchWriteItem: the deletes; PutItem
    # and DeleteItem: its resume marker; Scan: only a purge of every tenant, or one asked
    # to verify by a Scan (`scan=True`, `--verify-scan`).
    Component.PURGE: _on(
        On.TABLE,
        "dynamodb:Scan",
        "dynamodb:Query",
        "dynamodb:BatchWriteItem",
        "dynamodb:PutItem",
        "dynamodb:DeleteItem",
    ),
    # The extraction worker: the thread (Query, BatchGetItem), its config, cursors, ledger
    # and budget rows, the memories (the store's writes); consolidation's search of the
    # nearest memories (SearchVectors, the query's embedding) and its second look at the
    # memories written meanwhile (the recency index); Converse, authorized as
    # InvokeModel on the chat model; the deferred requests back on its queue and the failed
    # ones on the dead-letter queue.
    Component.EXTRACTOR: _on(On.TABLE, *EXTRACTOR_TABLE_ACTIONS)
    | _on(On.LOCAL_INDEX, "dynamodb:Query")
    | _on(On.VECTOR_INDEX, "dynamodb:SearchVectors")
    | _on(On.MODEL, "bedrock:InvokeModel")
    | _on(On.CHAT_MODEL, "bedrock:InvokeModel")
    | _on(On.QUEUE, "sqs:SendMessage")
    | _on(On.DEAD_LETTERS, "sqs:SendMessage"),
    # Lambda's SQS event source polls the queue with the function's role.
    Component.QUEUE_POLLER: _on(
        On.QUEUE, "sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"
    ),
}

# Actions whose requests name partition keys, so `dynamodb:LeadingKeys` can confine them.
KEYED_ACTIONS = frozenset(
    {
        "dynamodb:GetItem",
        "dynamodb:BatchGetItem",
        "dynamodb:Query",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
        "dynamodb:DeleteItem",
        "dynamodb:BatchWriteItem",
    }
)

# What a tenant's store sends to the rows all tenants share, per partition: the list of
# groups (`._groups`: listings read it, a namespace's first put registers its group) and
# the model pin (`._meta`: read before embedding). Writing the pin is the first `setup()`'s
# job, done once with the application's role: a tenant allowed to write it could re-pin
# the model for every tenant.
SHARED_ROWS: dict[str, frozenset[str]] = {
    GROUPS_PK: frozenset({"dynamodb:Query", "dynamodb:UpdateItem"}),
    META_PK: frozenset({"dynamodb:GetItem"}),
}


Components = Component | Iterable[Component]


def _needs(components: Components) -> frozenset[Permission]:
    return NEEDS[components] if isinstance(components, Component) else needed_by(components)


def actions(component: Components, *kinds: On) -> list[str]:
    """The sorted actions `component` (or all of several) needs on any of `kinds` (all
    kinds when none)."""
    return sorted(
        {p.action for p in _needs(component) if not kinds or p.on in kinds},
    )


def kinds(component: Components) -> set[On]:
    """The kinds of resource `component` needs actions on."""
    return {p.on for p in _needs(component)}


@dataclass(frozen=True)
class Resources:
    """The ARNs behind each kind of resource (strings or CDK tokens)."""

    table_arn: str
    vector_index: str
    stream_arn: str | None = None
    model_arns: Sequence[str] = ()
    chat_model_arns: Sequence[str] = ()
    queue_arn: str | None = None
    dead_letter_arn: str | None = None

    def of(self, on: On) -> list[str]:
        """The ARNs of one kind."""
        if on is On.TABLE:
            return [self.table_arn]
        if on is On.LOCAL_INDEX:
            return [f"{self.table_arn}/index/{RECENCY_INDEX}"]
        if on is On.VECTOR_INDEX:
            return [f"{self.table_arn}/index/{self.vector_index}"]
        if on is On.STREAM:
            if self.stream_arn is None:
                raise ValueError("a stream ARN is needed to grant stream actions")
            return [self.stream_arn]
        if on is On.MODEL:
            if not self.model_arns:
                raise ValueError("model ARNs are needed to grant bedrock:InvokeModel")
            return list(self.model_arns)
        if on is On.CHAT_MODEL:
            if not self.chat_model_arns:
                raise ValueError("chat model ARNs are needed to grant extraction's Converse")
            return list(self.chat_model_arns)
        if on is On.QUEUE:
            if self.queue_arn is None:
                raise ValueError("the extraction queue's ARN is needed to grant its actions")
            return [self.queue_arn]
        if on is On.DEAD_LETTERS:
            if self.dead_letter_arn is None:
                raise ValueError("the dead-letter queue's ARN is needed to grant its actions")
            return [self.dead_letter_arn]
        return ["*"]


def statements(component: Components, resources: Resources) -> list[dict[str, Any]]:
    """IAM policy statements granting exactly what `component` needs: one statement per
    distinct action list, on the resources that share it (the table and its local index
    share the item reads), in a stable order."""
    by_actions: dict[tuple[str, ...], list[str]] = {}
    for on in On:
        granted = tuple(actions(component, on))
        if granted:
            by_actions.setdefault(granted, []).extend(resources.of(on))
    return [
        {"Effect": "Allow", "Action": list(granted), "Resource": arns}
        for granted, arns in by_actions.items()
    ]


def policy(component: Components, resources: Resources) -> dict[str, Any]:
    """A whole IAM policy document for `component`."""
    return {"Version": "2012-10-17", "Statement": statements(component, resources)}


def needed_by(components: Iterable[Component]) -> frozenset[Permission]:
    """Everything any of `components` needs."""
    found: frozenset[Permission] = frozenset()
    for component in components:
        found |= NEEDS[component]
    return found


def placeholders(region: str = "REGION") -> Resources:
    """The placeholder ARNs docs/deploy.md and `dynamodb-memory policy` print by default,
    the Bedrock models' in `region` (a placeholder too unless known)."""
    return Resources(
        table_arn="TABLE_ARN",
        vector_index=DEFAULT_INDEX_NAME,
        stream_arn="STREAM_ARN",
        model_arns=(f"arn:aws:bedrock:{region}::foundation-model/amazon.titan-embed-text-v2:0",),
        chat_model_arns=(f"arn:aws:bedrock:{region}::foundation-model/amazon.nova-micro-v1:0",),
        queue_arn="EXTRACTION_QUEUE_ARN",
        dead_letter_arn="EXTRACTION_DLQ_ARN",
    )


PLACEHOLDERS = placeholders()
