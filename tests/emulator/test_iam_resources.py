"""IAM enforced on the emulation: DynamoDB, Streams and Bedrock runtime requests are
authorized against the resource AWS authorizes (the table, the index a request names, the
stream, the model), and a denial is AWS's `AccessDeniedException` naming that resource."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from langgraph.store.dynamodb.testing import mock_aws
from langgraph.store.dynamodb.testing.mock import fake_credentials_env, patched_env
from moto.core.authorization import enable_iam_authentication

from tests.emulator.conftest import INDEX, TABLE, create_table, index_spec, local_index, qvec

OTHER = "other-memories"
ARN = "arn:aws:dynamodb:us-east-1:123456789012:table/"
MODEL = "amazon.titan-embed-text-v2:0"
MODEL_ARN = f"arn:aws:bedrock:us-east-1::foundation-model/{MODEL}"
KEY = {"PK": {"S": "a"}, "SK": {"S": "1"}}


@pytest.fixture
def stream_arns() -> Iterator[dict[str, str]]:
    """Two tables with a local index, a vector index and a stream; their stream ARNs."""
    with patched_env(fake_credentials_env("us-east-1")), mock_aws():
        ddb = boto3.client("dynamodb")
        found = {}
        for name in (TABLE, OTHER):
            created = create_table(
                ddb,
                name=name,
                indexes=[index_spec()],
                extra_attrs=["n"],
                LocalSecondaryIndexes=[local_index("by_n", "n", {"ProjectionType": "ALL"})],
                StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
            )
            ddb.put_item(TableName=name, Item=KEY)
            found[name] = created["TableDescription"]["LatestStreamArn"]
        yield found


def principal(*statements: tuple[list[str], list[str]], name: str = "app") -> boto3.Session:
    """A role allowed `(actions, resources)` pairs, as an assumed-role session."""
    iam = boto3.client("iam")
    trust = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"AWS": "arn:aws:iam::123456789012:root"},
                "Action": "sts:AssumeRole",
            }
        ],
    }
    role = iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(trust))["Role"]
    policy = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": actions, "Resource": resources}
            for actions, resources in statements
        ],
    }
    iam.put_role_policy(RoleName=name, PolicyName="grant", PolicyDocument=json.dumps(policy))
    keys = boto3.client("sts").assume_role(RoleArn=role["Arn"], RoleSessionName="test")
    credentials = keys["Credentials"]
    return boto3.Session(
        aws_access_key_id=credentials["AccessKeyId"],
        aws_secret_access_key=credentials["SecretAccessKey"],
        aws_session_token=credentials["SessionToken"],
        region_name="us-east-1",
    )


def denied_on(call: Any, status: int = 400, **kwargs: Any) -> str:
    """The resource a denied request names, checking the denial is worded as AWS words it:
    `AccessDeniedException` with HTTP `status` (DynamoDB's 400, Bedrock's 403), naming
    the principal, the action and the resource."""
    with pytest.raises(ClientError) as error:
        call(**kwargs)
    assert error.value.response["Error"]["Code"] == "AccessDeniedException"
    assert error.value.response["ResponseMetadata"]["HTTPStatusCode"] == status
    message: str = error.value.response["Error"]["Message"]
    found = re.fullmatch(
        r"User: \S+ is not authorized to perform: (\S+) on resource: (\S+) because no "
        r"identity-based policy allows the (\S+) action",
        message,
    )
    assert found and found[1] == found[3], message
    return found[2]


def search(ddb: Any, table: str = TABLE) -> Any:
    return ddb.search_vectors(
        TableName=table,
        IndexName=INDEX,
        SearchVector=qvec([1, 0, 0, 0]),
        TopK=1,
        SearchConditionExpression="PK = :p",
        ExpressionAttributeValues={":p": {"S": "a"}},
    )


def by_n(ddb: Any) -> Any:
    return ddb.query(
        TableName=TABLE,
        IndexName="by_n",
        KeyConditionExpression="PK = :p",
        ExpressionAttributeValues={":p": {"S": "a"}},
    )


def test_a_table_grant_covers_that_table_and_not_its_indexes(stream_arns: dict[str, str]) -> None:
    actions = [
        "dynamodb:GetItem",
        "dynamodb:BatchGetItem",
        "dynamodb:Query",
        "dynamodb:SearchVectors",
    ]
    session = principal((actions, [ARN + TABLE]))
    with enable_iam_authentication():
        ddb = session.client("dynamodb")
        assert ddb.get_item(TableName=TABLE, Key=KEY)["Item"] == KEY
        assert ddb.get_item(TableName=ARN + TABLE, Key=KEY)["Item"] == KEY
        assert ddb.batch_get_item(RequestItems={TABLE: {"Keys": [KEY]}})["Responses"][TABLE]
        assert denied_on(ddb.get_item, TableName=OTHER, Key=KEY) == ARN + OTHER
        both = {TABLE: {"Keys": [KEY]}, OTHER: {"Keys": [KEY]}}
        assert denied_on(ddb.batch_get_item, RequestItems=both) == ARN + OTHER
        assert denied_on(by_n, ddb=ddb) == f"{ARN}{TABLE}/index/by_n"
        assert denied_on(search, ddb=ddb) == f"{ARN}{TABLE}/index/{INDEX}"


def test_an_index_grant_covers_that_index_and_not_its_table(stream_arns: dict[str, str]) -> None:
    session = principal(
        (["dynamodb:Query"], [f"{ARN}{TABLE}/index/by_n"]),
        (["dynamodb:SearchVectors"], [f"{ARN}{TABLE}/index/{INDEX}"]),
    )
    with enable_iam_authentication():
        ddb = session.client("dynamodb")
        assert by_n(ddb)["Count"] == 0  # the item has no `n`: not in the sparse index
        assert search(ddb)["SearchResults"] == []
        query = {
            "KeyConditionExpression": "PK = :p",
            "ExpressionAttributeValues": {":p": {"S": "a"}},
        }
        assert denied_on(ddb.query, TableName=TABLE, **query) == ARN + TABLE


def test_stream_and_model_grants(stream_arns: dict[str, str]) -> None:
    reads = ["dynamodb:DescribeStream", "dynamodb:GetShardIterator", "dynamodb:GetRecords"]
    session = principal((reads, [stream_arns[TABLE]]), (["bedrock:InvokeModel"], [MODEL_ARN]))
    with enable_iam_authentication():
        reader = session.client("dynamodbstreams")
        arn = stream_arns[TABLE]
        [shard] = reader.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
        iterator = reader.get_shard_iterator(
            StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]
        assert len(reader.get_records(ShardIterator=iterator)["Records"]) == 1
        assert denied_on(reader.describe_stream, StreamArn=stream_arns[OTHER]) == stream_arns[OTHER]
        assert denied_on(reader.list_streams) == "*"
        bedrock = session.client("bedrock-runtime")
        body = json.dumps({"inputText": "hello", "dimensions": 256})
        for model in (MODEL, MODEL_ARN):
            assert bedrock.invoke_model(modelId=model, body=body)["body"].read()
        v1 = "amazon.titan-embed-text-v1"
        assert denied_on(
            bedrock.invoke_model, status=403, modelId=v1, body=body
        ) == MODEL_ARN.replace(MODEL, v1)


# What AWS authorizes each operation of a TransactWriteItems as ("Using IAM with DynamoDB
# transactions"): there is no TransactWriteItems action.
TRANSACTION_ACTIONS = {
    "Put": "dynamodb:PutItem",
    "Update": "dynamodb:UpdateItem",
    "Delete": "dynamodb:DeleteItem",
    "ConditionCheck": "dynamodb:ConditionCheckItem",
}


def transaction_of(kind: str, table: str = TABLE) -> list[dict[str, Any]]:
    """A transaction of one `kind` operation on `table` (on the item the fixture put)."""
    operation: dict[str, Any] = {"TableName": table}
    if kind == "Put":
        operation["Item"] = {**KEY, "v": {"S": "put"}}
    else:
        operation["Key"] = KEY
    if kind == "Update":
        operation["UpdateExpression"] = "SET v = :v"
        operation["ExpressionAttributeValues"] = {":v": {"S": "updated"}}
    if kind == "ConditionCheck":
        operation["ConditionExpression"] = "attribute_exists(PK)"
    return [{kind: operation}]


@pytest.mark.parametrize("kind", list(TRANSACTION_ACTIONS))
def test_a_transaction_is_authorized_as_each_item_operation(
    stream_arns: dict[str, str], kind: str
) -> None:
    """Each operation needs its own item action on its table: granted alone it suffices;
    every other item action without it is denied, naming it."""
    needed = TRANSACTION_ACTIONS[kind]
    others = [a for a in TRANSACTION_ACTIONS.values() if a != needed]
    alone = principal(([needed], [ARN + TABLE]), name="alone")
    without = principal((others, [ARN + TABLE, ARN + OTHER]), name="without")
    elsewhere = principal(([needed], [ARN + OTHER]), name="elsewhere")
    with enable_iam_authentication():
        alone.client("dynamodb").transact_write_items(TransactItems=transaction_of(kind))
        for session in (without, elsewhere):
            with pytest.raises(ClientError) as error:
                session.client("dynamodb").transact_write_items(TransactItems=transaction_of(kind))
            message = error.value.response["Error"]["Message"]
            assert error.value.response["Error"]["Code"] == "AccessDeniedException"
            assert f"perform: {needed} on resource: {ARN + TABLE} " in message, message


def test_a_mixed_transaction_needs_every_operations_action(stream_arns: dict[str, str]) -> None:
    """A transaction over two tables is denied unless each operation's action is granted on
    its own table."""
    items = [*transaction_of("Update"), *transaction_of("Put", OTHER)]
    both = principal(
        (["dynamodb:UpdateItem"], [ARN + TABLE]), (["dynamodb:PutItem"], [ARN + OTHER]), name="both"
    )
    crossed = principal(
        (["dynamodb:PutItem"], [ARN + TABLE]), (["dynamodb:UpdateItem"], [ARN + OTHER]), name="x"
    )
    first_only = principal((["dynamodb:UpdateItem"], [ARN + TABLE, ARN + OTHER]), name="first")
    with enable_iam_authentication():
        both.client("dynamodb").transact_write_items(TransactItems=items)
        for session, action, table in (
            (crossed, "dynamodb:UpdateItem", TABLE),
            (first_only, "dynamodb:PutItem", OTHER),
        ):
            call = session.client("dynamodb").transact_write_items
            with pytest.raises(ClientError, match=f"perform: {action} on resource: {ARN}{table} "):
                call(TransactItems=items)
