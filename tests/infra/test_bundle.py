"""The consumer's code asset and the dependency layer: built locally by pip, the two hold
the handler and everything it imports, with bytecode for the runtime's Python, and
nothing the handler never imports; the code asset holds no dependency, the layer nothing
of this repository; `cdk.json` synthesizes the app offline (no AWS credentials)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from langchain_aws import BedrockEmbeddings
from langgraph.store.dynamodb import DynamoDBStore
from langgraph.store.dynamodb.stream.consumer import FILTER_PATTERNS, consumer_env
from langgraph.store.dynamodb.table.table_spec import DEFAULT_INDEX_NAME
from langgraph.store.dynamodb.testing import drain_stream, local_endpoint
from langgraph.store.dynamodb.testing.mock import fake_credentials_env

from bench.cold_start import IMPORT_HANDLER
from infra.bundling import (
    EMBEDDER,
    EXTRACTOR,
    HANDLERS,
    HOST,
    LAYER_FOLDER,
    LIBRARY,
    PACKAGE_PATH,
    PYTHON,
    ROOT,
    RUNTIME,
    SAVER_PATH,
    Asset,
    Built,
    build,
    interpreter,
    no_bytecode_warning,
)

MODEL = "amazon.titan-embed-text-v2:0"


def run_handler(function: str, module: str, timeout_ms: int) -> str:
    """A script running one invocation of the Lambda `function` (handler `module`) in the
    asset: the event on stdin, the response as the last line."""
    return f"""
import json, os, sys
sys.path[:0] = sys.argv[1].split(os.pathsep)
import {module}.handler

class Context:
    function_name = "{function}"
    function_version = "$LATEST"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:{function}"
    aws_request_id = "asset"
    log_group_name = "/aws/lambda/{function}"
    log_stream_name = "asset"

    def get_remaining_time_in_millis(self):
        return {timeout_ms}

print(json.dumps({module}.handler.handler(json.load(sys.stdin), Context())))
"""


RUN_HANDLER = run_handler("memory-embedder", "embedder", 60_000)


@pytest.fixture(scope="module")
def asset(tmp_path_factory: pytest.TempPathFactory, host_layer: Path) -> Built:
    """The slim code asset built for this machine, with the dependency layer (the Lambda
    build's wheels are aarch64)."""
    return build(tmp_path_factory.mktemp("asset"), EMBEDDER, HOST, layer=host_layer)


def handler_folders(asset: Path) -> set[str]:
    """The handler folders of `lambdas/` that `asset` holds."""
    return {path.parent.name for path in HANDLERS.glob("*/handler.py")} & {
        path.name for path in asset.iterdir()
    }


def assert_ships_only_its_handler(asset: Path, shipped: Asset) -> None:
    """`asset` holds `shipped`'s handler folder and nothing else of `lambdas/`."""
    assert handler_folders(asset) == {shipped.handler}
    assert not (asset / "__init__.py").exists()


def assert_holds_no_dependency(code: Path) -> None:
    """The code asset holds the library and the handler, and no dependency: those are the
    layer's."""
    assert {path.name for path in code.iterdir()} - {"__pycache__"} <= {"langgraph"} | {
        path.name for path in HANDLERS.iterdir()
    }
    assert not list(code.glob("*.dist-info"))
    assert not (code / "langgraph" / "store" / "base").exists()


def assert_holds_nothing_of_this_repository(layer: Path) -> None:
    """The layer holds the dependencies under python/, and no file of the library or of a
    handler (their changes must never rebuild it)."""
    assert [path.name for path in layer.iterdir()] == [LAYER_FOLDER]
    python = layer / LAYER_FOLDER
    assert not (python / PACKAGE_PATH).exists() and not (python / SAVER_PATH).exists()
    assert not {path.name for path in python.iterdir()} & {path.name for path in HANDLERS.iterdir()}


def path_of(asset: Built) -> str:
    """`asset.path` as one argument: the code, then the layer's python/ folder."""
    return os.pathsep.join(map(str, asset.path))


def in_asset(
    asset: Built, script: str, env: dict[str, str], stdin: str = "", args: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """Run `script` on `asset` alone (its code, then its layer, as Lambda's path has them;
    the script reads them from argv[1]): `-I -S` leaves only the standard library on the
    path, `-B` writes nothing into the asset (Lambda's /var/task and /opt are read-only)."""
    return subprocess.run(
        [sys.executable, "-I", "-S", "-B", "-c", script, path_of(asset), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={"PATH": os.environ.get("PATH", ""), **env},
        check=False,
    )


class AssetHandler:
    """A Lambda handler run from `asset` as Lambda invokes it: `script` (`run_handler`)
    with `env` and the event on stdin, one process per event; `responses` in order."""

    def __init__(self, asset: Built, script: str, env: dict[str, str]) -> None:
        self.asset, self.script, self.env = asset, script, env
        self.responses: list[Any] = []

    def __call__(self, event: dict[str, Any], context: Any) -> Any:
        result = in_asset(self.asset, self.script, self.env, json.dumps(event))
        assert result.returncode == 0, result.stderr[-4000:]
        self.responses.append(json.loads(result.stdout.splitlines()[-1]))
        return self.responses[-1]


def test_handler_imports_from_the_asset_alone(asset: Built) -> None:
    assert (asset.code / "embedder" / "handler.py").is_file()
    assert not (asset.code / PACKAGE_PATH / "testing").exists()
    result = in_asset(
        asset, IMPORT_HANDLER, {"AWS_DEFAULT_REGION": "us-east-1"}, args=("embedder.handler",)
    )
    assert result.returncode == 0, result.stderr
    print(f"cold import of embedder.handler: {float(result.stdout.split()[-2]):.2f} s")


# Prints which of the modules named in argv[3:] the handler argv[2] loaded on import.
LOADED = """
import importlib, json, os, sys
sys.path[:0] = sys.argv[1].split(os.pathsep)
importlib.import_module(sys.argv[2])
print(json.dumps([name for name in sys.argv[3:] if name in sys.modules]))
"""


def loaded_on_import(asset: Built, handler: str, modules: tuple[str, ...]) -> list[str]:
    """Which of `modules` importing `handler` from `asset` loads."""
    result = in_asset(asset, LOADED, {"AWS_DEFAULT_REGION": "us-east-1"}, args=(handler, *modules))
    assert result.returncode == 0, result.stderr
    loaded: list[str] = json.loads(result.stdout.splitlines()[-1])
    return loaded


def test_the_import_leaves_langchain_aws_for_the_first_batch(asset: Built) -> None:
    """The Bedrock client's integration (and LangSmith under it) loads with the consumer,
    on the first batch; Powertools' parser models never (Powertools comes before pydantic)."""
    modules = ("langchain_aws", "langsmith", "aws_lambda_powertools.utilities.parser")
    assert loaded_on_import(asset, "embedder.handler", modules) == []


def test_handler_embeds_a_stream_batch_from_the_asset_alone(asset: Built) -> None:
    """A real invocation: the records a put left on the emulated table's stream, delivered
    as Lambda would; the handler (Bedrock through langchain_aws, DynamoDB, Powertools'
    batch processor) runs from the asset and embeds the item."""
    with local_endpoint(embed_stream=False) as url:
        embed = BedrockEmbeddings(
            model_id=MODEL, dimensions=256, region_name="us-east-1", endpoint_url=url
        )
        store = DynamoDBStore(
            "memory",
            region_name="us-east-1",
            endpoint_url=url,
            index={"dims": 256, "embed": embed, "fields": ["text"], "embed_on": "stream"},
        )
        store.setup()
        store.put(("acme", "user-1"), "mem-1", {"text": "the proxy closes idle sockets"})
        env = {
            **fake_credentials_env(),
            **consumer_env(
                "memory", index_name=DEFAULT_INDEX_NAME, model_id=MODEL, dims=256, normalize=False
            ),
            "AWS_ENDPOINT_URL": url,
        }
        handler = AssetHandler(asset, RUN_HANDLER, env)
        report = drain_stream("memory", handler, filter_patterns=FILTER_PATTERNS)
        assert report.ok and report.delivered == 1, report
        assert handler.responses == [{"batchItemFailures": []}]
        found = store.search(("acme",), query="idle sockets", limit=1)
        assert [item.key for item in found] == ["mem-1"]


def test_asset_leaves_out_what_the_handler_never_imports(asset: Built) -> None:
    code, dependencies = asset.path
    assert_ships_only_its_handler(code, EMBEDDER)
    assert_holds_no_dependency(code)
    assert_holds_nothing_of_this_repository(asset.layer)
    for name in ("typer", "rich", "pygments", "markdown_it", "mdurl", "shellingham", "bin"):
        assert not (dependencies / name).exists(), name
    assert not list(dependencies.glob("typer-*.dist-info"))
    assert not list(dependencies.rglob("tests")) and not list(dependencies.rglob("*.pyi"))
    library = {path.name for path in (code / PACKAGE_PATH).iterdir()} - {"__pycache__"}
    assert library == {path.name for path in EMBEDDER.layers}
    assert not (code / SAVER_PATH).exists()
    for left_out in ("cli", "demo", "testing", "basestore", "jobs", "extraction", "recall"):
        assert not (code / PACKAGE_PATH / left_out).exists(), left_out
    # Read at import time through importlib.metadata: kept.
    assert list(dependencies.glob("langchain_aws-*.dist-info/METADATA"))


# Prints, for each module of the library the handler has loaded, its file in the asset.
FILES_IMPORTED = """
import importlib, json, os, sys
sys.path[:0] = sys.argv[1].split(os.pathsep)
importlib.import_module(sys.argv[2])
print(json.dumps(sorted(module.__file__ for name, module in sys.modules.items()
      if name.startswith(("langgraph.store.dynamodb", "langgraph.checkpoint.dynamodb"))
      and getattr(module, "__file__", None))))
"""


def layers_imported(asset: Built, layers: tuple[Path, ...], handler: str) -> set[Path]:
    """The shipped folders (`layers`) that hold a module the handler loads on import;
    every module it loads must lie in a shipped file or folder."""
    result = in_asset(asset, FILES_IMPORTED, {"AWS_DEFAULT_REGION": "us-east-1"}, args=(handler,))
    assert result.returncode == 0, result.stderr
    files = json.loads(result.stdout.splitlines()[-1])
    loaded = [Path(file).relative_to(asset.code) for file in files]
    for file in loaded:
        assert any(file == path or path in file.parents for path in layers), file
    return {path for path in layers if any(path in file.parents for file in loaded)}


def test_the_asset_ships_exactly_the_layers_the_handler_imports(asset: Built) -> None:
    """Built by including folders: every layer shipped is imported, and nothing the handler
    imports is missing (it would fail to import above)."""
    folders = {path for path in EMBEDDER.layers if (LIBRARY / path).is_dir()}
    assert layers_imported(asset, EMBEDDER.layers, "embedder.handler") == folders


def test_every_module_of_the_asset_has_bytecode_for_its_python(asset: Built) -> None:
    """Unchecked hash-based pycs (flags 0b01): valid whatever dates the zip gives sources."""
    tag = sys.implementation.cache_tag
    sources = [*asset.code.rglob("*.py"), *asset.layer.rglob("*.py")]
    assert len(sources) > 1000
    for source in sources:
        pyc = source.parent / "__pycache__" / f"{source.stem}.{tag}.pyc"
        assert pyc.is_file(), source
        assert pyc.read_bytes()[4:8] == (1).to_bytes(4, "little"), pyc


def synthesize_with_cdk_json(outdir: Path, **env: str) -> tuple[Built, str]:
    """Run the app as `cdk.json` does, with no AWS credentials; the stream consumer's asset
    directories (its code and the layer) and the app's stderr (each function's code asset
    holds its own handler alone, and both functions use the one layer)."""
    app = json.loads((ROOT / "cdk.json").read_text())["app"]
    python = ROOT / shlex.split(app)[0]
    assert os.access(python, os.X_OK), f"cdk.json runs the app from {python}: make install"
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("AWS_") and not key.startswith("CDK_")
    }
    environment.update(
        CDK_OUTDIR=str(outdir),
        JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION="20",
        AWS_CONFIG_FILE="/nonexistent",
        AWS_SHARED_CREDENTIALS_FILE="/nonexistent",
        AWS_EC2_METADATA_DISABLED="true",
        **env,
    )
    result = subprocess.run(
        shlex.split(app), cwd=ROOT, env=environment, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr[-4000:]
    template = json.loads((outdir / "LangGraphMemory.template.json").read_text())
    functions = {
        r["Properties"]["Handler"]: r["Properties"]
        for r in template["Resources"].values()
        if r["Type"] == "AWS::Lambda::Function"
    }
    [(layer_id, layer)] = [
        (name, r["Properties"])
        for name, r in template["Resources"].items()
        if r["Type"] == "AWS::Lambda::LayerVersion"
    ]
    assert layer["CompatibleRuntimes"] == [RUNTIME.name]
    assert layer["CompatibleArchitectures"] == ["arm64"]
    layer_folder = outdir / f"asset.{layer['Content']['S3Key'].removesuffix('.zip')}"
    assert_holds_nothing_of_this_repository(layer_folder)
    assets = {}
    for shipped in (EMBEDDER, EXTRACTOR):
        function = functions[shipped.entry]
        assert function["Runtime"] == RUNTIME.name
        assert function["Layers"] == [{"Ref": layer_id}]
        code = outdir / f"asset.{function['Code']['S3Key'].removesuffix('.zip')}"
        assets[shipped] = Built(code, layer_folder)
        assert (code / shipped.handler / "handler.py").is_file()
        assert_ships_only_its_handler(code, shipped)
        assert_holds_no_dependency(code)
    asset = assets[EMBEDDER]
    code, dependencies = asset.path
    assert (code / PACKAGE_PATH / "stream" / "consumer.py").is_file()
    native = list(dependencies.glob("pydantic_core/*.so"))
    assert native and all("aarch64" in path.name for path in native), native
    assert not (dependencies / "typer").exists() and not (code / PACKAGE_PATH / "cli").exists()
    return asset, result.stderr


def warnings(outdir: Path) -> list[tuple[str, str]]:
    """(construct path, message) of each warning annotation of the synthesized app."""
    manifest = json.loads((outdir / "manifest.json").read_text())
    found = []
    for artifact in manifest["artifacts"].values():
        metadata = artifact.get("metadata", {})
        if "additionalMetadataFile" in artifact:
            metadata = json.loads((outdir / artifact["additionalMetadataFile"]).read_text())
        found += [
            (path, entry["data"])
            for path, entries in metadata.items()
            for entry in entries
            if entry["type"] == "aws:cdk:warning"
        ]
    return found


def test_cdk_json_synthesizes_offline_with_the_arm64_asset(tmp_path: Path) -> None:
    """With bytecode for the runtime's Python: `make install` brings an interpreter of that
    version (Pyodide's, under Node); the next test takes it away."""
    assert interpreter(PYTHON) is not None, f"no Python {PYTHON}: make install (Pyodide)"
    asset, _ = synthesize_with_cdk_json(tmp_path)
    code, dependencies = asset.path
    tag = f"cpython-{PYTHON.replace('.', '')}"
    compiled = [
        code / PACKAGE_PATH / "stream" / "__pycache__" / f"consumer.{tag}.pyc",
        code / "embedder" / "__pycache__" / f"handler.{tag}.pyc",
        dependencies / "botocore" / "__pycache__" / f"client.{tag}.pyc",
        dependencies / "langchain_aws" / "__pycache__" / f"__init__.{tag}.pyc",
    ]
    assert all(pyc.is_file() for pyc in compiled), compiled
    assert not [w for w in warnings(tmp_path) if no_bytecode_warning(PYTHON) in w[1]]


def test_without_an_interpreter_of_the_runtime_python_the_asset_has_no_bytecode_and_says_so(
    tmp_path: Path,
) -> None:
    """Neither `python<version>` nor Node on PATH (jsii finds Node through JSII_NODE): the
    asset still builds, without pycs, and a warning on the function names what to install."""
    node = shutil.which("node")
    assert node is not None
    asset, stderr = synthesize_with_cdk_json(tmp_path, PATH=str(tmp_path / "empty"), JSII_NODE=node)
    assert not [path for path in asset.files() if path.suffix == ".pyc"]
    message = no_bytecode_warning(PYTHON)
    assert message in stderr
    assert [path for path, text in warnings(tmp_path) if message in text] == [
        "/LangGraphMemory/Memory/Embedder",
        "/LangGraphMemory/Memory/Extractor",
    ], warnings(tmp_path)
