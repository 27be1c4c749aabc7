"""The extraction Lambda's asset, checked as the consumer's is (`test_bundle.py`): built
locally (`EXTRACTOR`: its handler's folder and layers, on the dependency layer both
functions share), its handler imports and runs a real batch from the asset alone, the
import leaves the chat model stack for the first model call, and the code asset ships
exactly the layers the handler imports and no other handler, with bytecode for the
runtime's Python."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from langchain_aws import BedrockEmbeddings
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.dynamodb import DynamoDBSaver
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.extraction import Extractor
from langgraph.store.dynamodb.extraction.worker.queue_worker import worker_env
from langgraph.store.dynamodb.stream.consumer import StreamConsumer
from langgraph.store.dynamodb.stream.router import CHECKPOINT_PATTERN
from langgraph.store.dynamodb.table.table_spec import DEFAULT_INDEX_NAME
from langgraph.store.dynamodb.testing import drain_stream, local_endpoint
from langgraph.store.dynamodb.testing.auto_extract import extraction_queues
from langgraph.store.dynamodb.testing.mock import fake_credentials_env
from langgraph.store.dynamodb.testing.queues import drain_queue

from infra.bundling import (
    EXTRACTOR,
    HOST,
    LIBRARY,
    PACKAGE_PATH,
    SAVER_PATH,
    Built,
    build,
)
from tests.checkpoint.graphs import chat_graph
from tests.extraction.conftest import NAMESPACE, TABLE, TENANT, USER, facts_config

from .test_bundle import (
    AssetHandler,
    assert_holds_no_dependency,
    assert_ships_only_its_handler,
    layers_imported,
    loaded_on_import,
    run_handler,
)

MODEL = "amazon.titan-embed-text-v2:0"
DIMS = 256
REGION = "us-east-1"

RUN_HANDLER = run_handler("memory-extractor", "extractor", 300_000)


@pytest.fixture(scope="module")
def asset(tmp_path_factory: pytest.TempPathFactory, host_layer: Path) -> Built:
    """The extractor's slim code asset built for this machine, with the dependency layer."""
    return build(tmp_path_factory.mktemp("extractor-asset"), EXTRACTOR, HOST, layer=host_layer)


@pytest.fixture
def url() -> Iterator[str]:
    with local_endpoint(embed_stream=False, extraction=False) as running:
        yield running


def test_the_handler_extracts_a_thread_from_the_asset_alone(asset: Built, url: str) -> None:
    """A real invocation: a turn's checkpoint routed to the emulated extraction queue,
    delivered as Lambda's SQS event source would; the handler (the checkpointer, the
    store, ChatBedrockConverse, Powertools' batch processor) runs from the asset and forms
    the memory, through the emulated Converse."""
    embed = BedrockEmbeddings(model_id=MODEL, dimensions=DIMS, region_name=REGION, endpoint_url=url)
    index = {"dims": DIMS, "embed": embed, "fields": ["text"], "embed_on": "stream"}
    store = DynamoDBStore(TABLE, region_name=REGION, endpoint_url=url, index=index)  # type: ignore[arg-type]
    store.setup()
    saver = DynamoDBSaver(TABLE, region_name=REGION, endpoint_url=url, tenant_key="tenant")
    extractor = Extractor(store, saver, bedrock_endpoint_url=url)
    extractor.set_config(facts_config())
    config = {"configurable": {"thread_id": "t1", "tenant": TENANT, "user_id": USER}}
    chat_graph(saver).invoke({"messages": [HumanMessage("I prefer green tea.")]}, config)
    sqs = boto3.client("sqs", region_name=REGION, endpoint_url=url)
    queue, dead = extraction_queues(sqs, TABLE)
    router = StreamConsumer(TABLE, endpoint_url=url, region_name=REGION, extraction_queue_url=queue)
    assert drain_stream(TABLE, router.handle, filter_patterns=[CHECKPOINT_PATTERN]).ok
    env = {
        **fake_credentials_env(),
        **worker_env(
            TABLE,
            queue_url=queue,
            dead_letter_url=dead,
            index_name=DEFAULT_INDEX_NAME,
            embedding_model_id=MODEL,
            dims=DIMS,
            normalize=False,
            fields=("text",),
            tenant_key="tenant",
        ),
        "AWS_ENDPOINT_URL": url,
    }
    handler = AssetHandler(asset, RUN_HANDLER, env)
    report = drain_queue(queue, handler, client=sqs)
    assert report.delivered == 1 and not report.errors, report
    assert handler.responses == [{"batchItemFailures": []}]
    (status,) = extractor.status(TENANT, "t1")
    assert (status.memories, status.lag_messages, status.last_error) == (1, 0, None)
    (item,) = store.search(NAMESPACE)
    assert item.value["text"] == "User prefers green tea"
    assert not sqs.receive_message(QueueUrl=dead).get("Messages")


# What the handler's import leaves for the first model call (`model_call`): LangChain's
# chat model base with LangSmith's tracing, and langchain-aws; and what Powertools loads
# only when pydantic comes first (the handler imports Powertools' batch module first).
NOT_ON_IMPORT = (
    "langsmith",
    "langchain_core.language_models.chat_models",
    "langchain_core.tracers.context",
    "langchain_aws",
    "aws_lambda_powertools.utilities.parser",
)


def test_the_import_leaves_the_chat_model_stack_for_the_first_model_call(asset: Built) -> None:
    assert loaded_on_import(asset, "extractor.handler", NOT_ON_IMPORT) == []


def test_the_asset_ships_exactly_the_layers_the_handler_imports(asset: Built) -> None:
    folders = {path for path in EXTRACTOR.layers if (LIBRARY / path).is_dir()}
    assert layers_imported(asset, EXTRACTOR.layers, "extractor.handler") == folders


def test_the_asset_leaves_out_what_the_extractor_never_imports(asset: Built) -> None:
    code, dependencies = asset.path
    assert_ships_only_its_handler(code, EXTRACTOR)
    assert_holds_no_dependency(code)
    library = {path.name for path in (code / PACKAGE_PATH).iterdir()} - {"__pycache__"}
    assert library == {path.name for path in EXTRACTOR.layers if path.parent == PACKAGE_PATH}
    # The checkpointer at its one import path, langgraph-checkpoint's modules beside it
    # in the layer (`langgraph.checkpoint` is a namespace package across the two).
    assert (code / SAVER_PATH / "saver.py").is_file()
    assert (dependencies / SAVER_PATH.parent / "base").is_dir()
    assert not (dependencies / SAVER_PATH.parent / "__init__.py").exists()
    for left_out in ("checkpoint", "stream", "cli", "demo", "testing", "agent_server.py"):
        assert not (code / PACKAGE_PATH / left_out).exists(), left_out
    for name in ("typer", "rich", "moto"):
        assert not (dependencies / name).exists(), name


def test_every_module_of_the_asset_has_bytecode_for_its_python(asset: Built) -> None:
    tag = sys.implementation.cache_tag
    sources = [*(asset.code / PACKAGE_PATH).rglob("*.py"), *(asset.code / SAVER_PATH).rglob("*.py")]
    for source in sources:
        pyc = source.parent / "__pycache__" / f"{source.stem}.{tag}.pyc"
        assert pyc.is_file(), source
    assert (asset.code / "extractor" / "__pycache__").is_dir()
