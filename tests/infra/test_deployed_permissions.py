"""The stack, run end to end on the emulation with its own roles (issue 19).

The synthesized template, plus app roles granted by `grant_memory_access` (read-write and
read-only) and a tenant role with `iam.tenant_policy`, is deployed into the emulation:
its table, and its IAM roles and policies with their intrinsics resolved
(`emulated_stack`). Then, with IAM enforced (the emulation authorizes DynamoDB, Streams
and Bedrock requests against the resources AWS authorizes), each principal works with its
own credentials from STS:

- the app: `setup()` on the deployed table, then every store operation, sync and async,
  with the deployed config (`store_config()`, Bedrock embeddings), and every saver call
  (threads on the same table: `grant_memory_access` covers both);
- the stream consumer: the Lambda handler with the function's environment and its role's
  credentials embeds inserts, overwrites and multi-vector items and forgets the
  namespaces the TTL sweep empties, without a failed record; Lambda's stream poller's
  calls work under that role;
- a read-only app: reads work, every write raises `AccessDeniedError`;
- a tenant: every operation works on its own namespaces, and every saver call on its own
  threads (`tenant_policy(..., thread_tenant=...)`).

moto evaluates no IAM condition, so `dynamodb:LeadingKeys` is not enforced here: that a
tenant cannot reach another tenant's namespaces is not provable on the emulation; the
property tests in tests/hardening/test_isolation.py cover the policy's patterns.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from aws_cdk import aws_iam as iam
from botocore.exceptions import ClientError
from langchain_aws import BedrockEmbeddings
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.base import GetOp, ListNamespacesOp, PutOp, SearchOp
from langgraph.store.dynamodb import AccessDeniedError, DynamoDBStore
from langgraph.store.dynamodb.iam import tenant_policy
from langgraph.store.dynamodb.items.rows import key_of
from langgraph.store.dynamodb.testing import drain_stream, expire_ttl_items, mock_aws
from moto.core.authorization import enable_iam_authentication

from infra.stack import MemoryStack
from lambdas.embedder import handler as lambda_handler
from tests.checkpoint.workload import TENANT as THREADS_TENANT
from tests.checkpoint.workload import use_threads
from tests.support import FakeClock

from .conftest import synthesize
from .emulated_stack import ACCOUNT, REGION, EmulatedStack, deploy

APP, READER, TENANT_ROLE = "memory-app", "memory-reader", "memory-tenant"
TENANT = ("memories", "acme")
NS = ("memories", "globex", "user-1")
TTL_NS = ("memories", "globex", "session-9")
TENANT_NS = (*TENANT, "user-7")
THREAD_TENANT = THREADS_TENANT  # the saver's tenant key value of the tenant role
PROXY = {"text": "The proxy closes idle sockets after 60 seconds", "summary": "proxy timeout"}
EMAIL = {"text": "Prefers email over phone calls", "summary": "contact by email"}
Handler = Callable[[dict[str, Any], Any], Any]
WRITES = r"dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem)"


def add_principals(stack: MemoryStack) -> None:
    """The app's roles, granted as an app grants them: read-write, read-only, a tenant."""
    backend = stack.backend
    account = iam.AccountRootPrincipal()
    for name, read_only in ((APP, False), (READER, True)):
        role = iam.Role(stack, name, role_name=name, assumed_by=account)
        backend.grant_memory_access(role, read_only=read_only)
    tenant = iam.Role(stack, TENANT_ROLE, role_name=TENANT_ROLE, assumed_by=account)
    document = tenant_policy(
        backend.table_arn,
        TENANT,
        index_name=backend.index_name,
        model_arns=backend.model_arns(),
        thread_tenant=THREAD_TENANT,
    )
    tenant.attach_inline_policy(
        iam.Policy(stack, "TenantPolicy", document=iam.PolicyDocument.from_json(document))
    )


@pytest.fixture
def handler() -> Iterator[Handler]:
    """The Lambda's handler, its cached consumer cleared before and after."""
    lambda_handler._consumer.cache_clear()
    yield lambda_handler.handler
    lambda_handler._consumer.cache_clear()


@pytest.mark.parametrize(
    "context",
    [pytest.param({}, id="default"), pytest.param({"fields": "text,summary"}, id="two-fields")],
)
def test_every_principal_works_with_its_own_role(
    context: dict[str, str],
    tmp_path: Path,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    handler: Handler,
) -> None:
    synthesized = synthesize(tmp_path, add_principals, **context)
    backend = synthesized.stack.backend
    config = backend.store_config()
    with mock_aws():
        stack = deploy(synthesized.template.to_json())
        table = stack.resolve(synthesized.stack.resolve(config["table_name"]))
        _, function = stack.one("AWS::Lambda::Function", "Embedder")
        _, mapping = stack.one("AWS::Lambda::EventSourceMapping", "EmbedPending")
        sessions = {
            name: stack.session(f"arn:aws:iam::{ACCOUNT}:role/{name}")
            for name in (APP, READER, TENANT_ROLE)
        }
        consumer = stack.session(stack.resolve(function["Role"]))

        def store(name: str, **kwargs: Any) -> DynamoDBStore:
            """The deployed config (`store_config()`) with the role's credentials."""
            session = sessions[name]
            embed = BedrockEmbeddings(
                client=session.client("bedrock-runtime"),
                model_id=backend.settings.embedding_model_id,
                normalize=backend.settings.normalize,
            )
            index = {**config["index"], "embed": embed}
            return DynamoDBStore(table, boto3_session=session, index=index, **kwargs)

        def saver(name: str) -> DynamoDBSaver:
            """Threads on the deployed table with the role's credentials."""
            ttl = {"default_ttl": 60.0, "refresh_on_read": True}
            return DynamoDBSaver(table, boto3_session=sessions[name], ttl=ttl, tenant_key="tenant")

        def drain() -> None:
            """Lambda's delivery of the stream to the handler, filtered as deployed."""
            caplog.clear()
            report = drain_stream(
                table,
                handler,
                filter_patterns=stack.resolve(mapping["FilterCriteria"]),
                batch_size=mapping["BatchSize"],
            )
            errors = sorted({str(r.exc_info[1]) for r in caplog.records if r.exc_info})
            assert report.ok, f"the consumer failed {len(report.failed)} records: {errors}"

        with enable_iam_authentication(), monkeypatch.context() as env:
            for name, value in lambda_environment(stack, function, consumer).items():
                env.setenv(name, value)
            with store(APP, ttl={"refresh_on_read": True}) as app:
                use_every_operation(app, drain, clock)
                expire_ttl_items(table, now=clock.now() + 2 * 3600)
                drain()
                assert app.list_namespaces(prefix=("memories",)) == [NS]  # TTL_NS was swept
            assert poll_stream(consumer, table) > 0
            for role in (APP, TENANT_ROLE):  # the app's threads, then a tenant's own
                with saver(role) as threads:
                    use_threads(threads, clock)
            with store(READER) as reader, store(TENANT_ROLE) as tenant:
                read_but_never_write(reader, table)
                use_own_namespaces(tenant, drain)


def lambda_environment(
    stack: EmulatedStack, function: dict[str, Any], role: boto3.Session
) -> dict[str, str]:
    """The function's environment as Lambda sets it: its variables and its role's keys."""
    credentials = role.get_credentials().get_frozen_credentials()
    return {
        **stack.resolve(function["Environment"]["Variables"]),
        "AWS_ACCESS_KEY_ID": credentials.access_key,
        "AWS_SECRET_ACCESS_KEY": credentials.secret_key,
        "AWS_SESSION_TOKEN": credentials.token,
        "AWS_REGION": REGION,
        "AWS_DEFAULT_REGION": REGION,
    }


def expiry(store: DynamoDBStore, namespace: tuple[str, ...], key: str) -> int:
    """An item's stored expiry."""
    found = store.client.get_item(
        TableName=store.table_name,
        Key={name: {"S": value} for name, value in key_of(namespace, key).items()},
        ProjectionExpression="expires_at",
    )
    return int(found["Item"]["expires_at"]["N"])


def use_every_operation(store: DynamoDBStore, drain: Callable[[], None], clock: FakeClock) -> None:
    """setup() on the deployed table, then every operation, sync and async; the consumer
    embeds single and multi-vector items, inserted and overwritten."""
    store.setup()
    store.put(NS, "proxy", PROXY)
    store.put(NS, "email", EMAIL, index=["text", "summary"])
    store.put(NS, "raw", {"text": "not embedded"}, index=False)
    store.put(TTL_NS, "session", PROXY, ttl=60.0, index=["text", "summary"])
    drain()
    assert {i.key for i in store.search(NS, query="proxy idle sockets", limit=2)} == {
        "proxy",
        "email",
    }
    assert store.search(NS, query="proxy idle sockets", limit=1)[0].key == "proxy"
    assert [i.key for i in store.search(("memories",), filter={"summary": "proxy timeout"})] == [
        "session",
        "proxy",
    ]
    assert store.list_namespaces(prefix=("memories",)) == [TTL_NS, NS]
    before = expiry(store, TTL_NS, "session")
    clock.advance(600)  # a tenth of the TTL: the next read refreshes it
    assert store.get(TTL_NS, "session") is not None
    assert expiry(store, TTL_NS, "session") == before + 600
    store.put(NS, "proxy", {"text": "The proxy was replaced by a load balancer"})  # overwrite
    store.delete(NS, "raw")
    _, get, search, listing = store.batch(
        [
            PutOp(NS, "batched", {"text": "Invoices go to the finance mailbox"}),
            GetOp(NS, "email"),
            SearchOp(NS, query="phone calls", limit=1),
            ListNamespacesOp(),
        ]
    )
    assert get is not None and get.value == EMAIL  # type: ignore[union-attr]
    assert [i.key for i in search] == ["email"]  # type: ignore[union-attr]
    assert listing == [TTL_NS, NS]
    asyncio.run(use_async_twins(store))
    drain()
    found = store.search(NS, query="load balancer", limit=1)
    assert [i.key for i in found] == ["proxy"]
    assert store.search(NS, query="finance mailbox invoices", limit=1)[0].key == "batched"
    assert store.get(NS, "raw") is None


async def use_async_twins(store: DynamoDBStore) -> None:
    await store.asetup()
    await store.aput(NS, "async", {"text": "Escalations go to the night shift"})
    assert (await store.aget(NS, "email")) is not None
    assert [i.key for i in await store.asearch(NS, query="phone calls", limit=1)] == ["email"]
    assert await store.alist_namespaces(prefix=("memories",)) == [TTL_NS, NS]
    await store.adelete(NS, "async")
    [found] = await store.abatch([GetOp(NS, "batched")])
    assert found is not None


def poll_stream(role: boto3.Session, table: str) -> int:
    """What Lambda's stream poller calls, under the consumer's role; the records read."""
    streams = role.client("dynamodbstreams")
    [stream] = streams.list_streams(TableName=table)["Streams"]
    arn = stream["StreamArn"]
    read = 0
    for shard in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
        iterator = streams.get_shard_iterator(
            StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]
        read += len(streams.get_records(ShardIterator=iterator)["Records"])
    return read


def read_but_never_write(store: DynamoDBStore, table: str) -> None:
    """A read-only grant: setup's checks and every read work; each write is denied with
    the action, the table and the grant that allows it."""
    store.setup()
    assert store.get(NS, "email") is not None
    assert store.search(NS, query="phone calls", limit=1)[0].key == "email"
    assert {i.key for i in store.search(NS)} == {"proxy", "email", "batched"}
    assert store.list_namespaces(prefix=("memories",)) == [NS]
    writes: list[Callable[[], object]] = [
        lambda: store.put(NS, "new", {"text": "x"}),
        lambda: store.delete(NS, "email"),
        lambda: store.batch([GetOp(NS, "email"), PutOp(NS, "new", {"text": "x"})]),
        lambda: asyncio.run(store.aput(NS, "new", {"text": "x"})),
    ]
    for write in writes:
        with pytest.raises(AccessDeniedError) as denied:
            write()
        message = str(denied.value)
        assert re.search(f"AWS denied {WRITES} on the store's table {table!r}", message), message
        assert "grant_memory_access(role) without read_only=True" in message
        assert "dynamodb-memory policy store" in message
        assert isinstance(denied.value.__cause__, ClientError)
    assert store.get(NS, "new") is None


def use_own_namespaces(store: DynamoDBStore, drain: Callable[[], None]) -> None:
    """A tenant's role: every operation on its own namespaces."""
    store.setup()
    store.put(TENANT_NS, "proxy", PROXY)
    store.put(TENANT_NS, "email", EMAIL, index=["text", "summary"])
    drain()
    assert store.get(TENANT_NS, "proxy") is not None
    assert [i.key for i in store.search(TENANT_NS, query="phone calls", limit=1)] == ["email"]
    assert {i.key for i in store.search(TENANT)} == {"proxy", "email"}
    assert store.list_namespaces(prefix=TENANT) == [TENANT_NS]
    store.delete(TENANT_NS, "proxy")
    [_, found] = store.batch([PutOp(TENANT_NS, "new", {"text": "x"}), GetOp(TENANT_NS, "email")])
    assert found is not None
    assert asyncio.run(store.aget(TENANT_NS, "proxy")) is None
