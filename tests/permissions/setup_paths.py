"""How the principal of each component `dynamodb-memory policy` prints runs `setup()`
(`SETUP_OF`), on a table as the CDK stack deploys it: shared by the recorder's test
(test_declared_calls.py) and the enforced-IAM test (test_setup_grants.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import boto3
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.cli.app import app
from langgraph.store.dynamodb.items.index_config import parse_index_shape
from langgraph.store.dynamodb.table.permissions import Component
from langgraph.store.dynamodb.table.table_spec import table_spec, ttl_spec
from langgraph.store.dynamodb.testing import LexicalEmbeddings
from typer.testing import CliRunner

TABLE = "memory"
REGION = "us-east-1"
ACCOUNT = "123456789012"
TABLE_ARN = f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{TABLE}"
MODEL_ARN = f"arn:aws:bedrock:{REGION}::foundation-model/amazon.titan-embed-text-v2:0"
DIMS = 16
NS = ("memories", "acme", "u1")


def index() -> dict[str, Any]:
    return {"dims": DIMS, "embed": LexicalEmbeddings(dims=DIMS), "fields": ["text"]}


def printed_policy(component: Component) -> dict[str, Any]:
    """What `dynamodb-memory policy <component>` prints for this table."""
    result = CliRunner().invoke(
        app, ["policy", component.value, "--table-arn", TABLE_ARN, "--model-arn", MODEL_ARN]
    )
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = json.loads(result.output)
    return document


def role_with(document: dict[str, Any], name: str) -> boto3.Session:
    """An assumed-role session of a new role holding exactly `document`."""
    iam = boto3.client("iam", region_name=REGION)
    trust = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"},
                "Action": "sts:AssumeRole",
            }
        ],
    }
    role = iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(trust))["Role"]
    iam.put_role_policy(RoleName=name, PolicyName="printed", PolicyDocument=json.dumps(document))
    sts = boto3.client("sts", region_name=REGION)
    keys = sts.assume_role(RoleArn=role["Arn"], RoleSessionName=name)["Credentials"]
    return boto3.Session(
        aws_access_key_id=keys["AccessKeyId"],
        aws_secret_access_key=keys["SecretAccessKey"],
        aws_session_token=keys["SessionToken"],
        region_name=REGION,
    )


def deployed_table() -> None:
    """The table as the CDK stack deploys it, its model pinned by the app's first
    `setup()` (done with admin credentials, outside the role under test)."""
    client = boto3.client("dynamodb", region_name=REGION)
    client.create_table(TableName=TABLE, **table_spec(parse_index_shape({"dims": DIMS})))
    client.update_time_to_live(TableName=TABLE, TimeToLiveSpecification=ttl_spec())
    with DynamoDBStore(TABLE, region_name=REGION, index=index()) as admin:  # type: ignore[arg-type]
        admin.setup()
        admin.put(NS, "seed", {"text": "the proxy closes idle sockets"})


def store_setup(session: boto3.Session, *, read_only: bool = False) -> None:
    with DynamoDBStore(TABLE, boto3_session=session, index=index()) as store:  # type: ignore[arg-type]
        store.setup()
        assert store.get(NS, "seed") is not None
        assert [i.key for i in store.search(NS, query="idle sockets")] == ["seed"]
        if not read_only:
            store.put(NS, "new", {"text": "a put after setup"})


def first_setup(session: boto3.Session) -> None:
    """`setup()` creating the table, its indexes and TTL, and pinning the model."""
    with DynamoDBStore(TABLE, boto3_session=session, index=index()) as store:  # type: ignore[arg-type]
        store.setup()
        store.setup()  # and checking it, idempotent


def saver_setup(session: boto3.Session) -> None:
    with DynamoDBSaver(TABLE, boto3_session=session, tenant_key="tenant") as saver:
        saver.setup()
        config = {"configurable": {"thread_id": "t", "tenant": "acme", "checkpoint_ns": ""}}
        written = saver.put(config, empty_checkpoint(), {"source": "input", "step": -1}, {})
        found = saver.get_tuple(written)
        assert found is not None and found.config == written


# How each printed component's principal runs `setup()`, or None: it never does (it is
# handed a table some `setup()` already prepared). All but `setup` run it on the deployed
# table; `setup` creates the table.
SETUP_OF: dict[Component, Callable[[boto3.Session], None] | None] = {
    Component.STORE: store_setup,
    Component.STORE_READ: lambda session: store_setup(session, read_only=True),
    Component.SETUP: first_setup,
    Component.CHECKPOINTER: saver_setup,
    Component.CONSUMER: None,  # the Lambda handler: no setup()
    Component.STREAM_POLLER: None,  # Lambda's own poller
    Component.REINDEX: None,  # `reindex(store)`: the app's store, set up by the app
    Component.MIGRATION: None,  # `copy_table(client, ...)`: tables set up beforehand
    Component.PURGE: None,  # `store.purge` / `dynamodb-memory purge`: never calls setup()
    Component.EXTRACTOR: None,  # the Lambda handler: no setup()
    Component.QUEUE_POLLER: None,  # Lambda's own poller
}
