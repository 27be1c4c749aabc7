"""The consumer's asset: built locally by pip, it holds the handler and everything it
imports; `cdk.json` synthesizes the app offline (no AWS credentials)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from infra.bundling import HOST, ROOT, build

IMPORT_HANDLER = """
import sys, time
sys.path.insert(0, sys.argv[1])
started = time.perf_counter()
import embedder.handler
elapsed = time.perf_counter() - started
import boto3, langgraph.store.dynamodb
assert embedder.handler.__file__.startswith(sys.argv[1]), embedder.handler.__file__
assert boto3.__file__.startswith(sys.argv[1]), boto3.__file__
assert langgraph.store.dynamodb.__file__.startswith(sys.argv[1])
print(f"{elapsed:.3f}")
"""


def test_handler_imports_from_the_asset_alone(tmp_path: Path) -> None:
    """Built for this machine (the Lambda build's wheels are aarch64): `-I -S` leaves only
    the standard library, so every import must come from the asset."""
    asset = tmp_path / "asset"
    build(asset, HOST)
    assert (asset / "embedder" / "handler.py").is_file()
    assert not (asset / "langgraph" / "store" / "dynamodb" / "testing").exists()
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", IMPORT_HANDLER, str(asset)],
        capture_output=True,
        text=True,
        env={"PATH": os.environ.get("PATH", ""), "AWS_DEFAULT_REGION": "us-east-1"},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    print(f"cold import of embedder.handler: {float(result.stdout.split()[-1]):.2f} s")


@pytest.mark.skipif(
    not os.access(ROOT / ".venv" / "bin" / "python", os.X_OK),
    reason="cdk.json runs the app from the project venv, which `make install` creates",
)
def test_cdk_json_synthesizes_offline_with_the_arm64_asset(tmp_path: Path) -> None:
    app = json.loads((ROOT / "cdk.json").read_text())["app"]
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("AWS_") and not key.startswith("CDK_")
    }
    env.update(
        CDK_OUTDIR=str(tmp_path),
        JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION="20",
        AWS_CONFIG_FILE="/nonexistent",
        AWS_SHARED_CREDENTIALS_FILE="/nonexistent",
        AWS_EC2_METADATA_DISABLED="true",
    )
    result = subprocess.run(
        shlex.split(app), cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr[-4000:]
    template = json.loads((tmp_path / "LangGraphMemory.template.json").read_text())
    function = next(
        r for r in template["Resources"].values() if r["Type"] == "AWS::Lambda::Function"
    )
    key = function["Properties"]["Code"]["S3Key"]
    asset = tmp_path / f"asset.{key.removesuffix('.zip')}"
    assert (asset / "embedder" / "handler.py").is_file()
    assert (asset / "langgraph" / "store" / "dynamodb" / "consumer.py").is_file()
    native = list(asset.glob("pydantic_core/*.so"))
    assert native and all("aarch64" in path.name for path in native), native
