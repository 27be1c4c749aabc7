"""The real CDK CLI (npm's aws-cdk) synthesizes the app from cdk.json, as the README says
(`npm install -g aws-cdk`, `make install`, then `cdk synth`/`npx cdk synth`).

Nothing is downloaded at test time: npx runs offline and may not install, so the CLI must
already be installed (globally or in the project) or in npx's cache; otherwise the tests
skip and say so."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from infra.bundling import ROOT

# npx without network or installing: an installed `cdk` (aws-cdk's binary) or a cached one.
NPX_CDK = ["npx", "--offline", "--no-install", "cdk"]
NO_NPX = "npx is not on PATH: install Node.js to run the CDK CLI"
NO_CDK = (
    "the CDK CLI (npm package aws-cdk) is neither installed nor in npx's cache, and this "
    "test does not download it: npm install -g aws-cdk"
)


def cli_env(outdir: Path) -> dict[str, str]:
    """No AWS account (an environment-agnostic synth), no telemetry, notices or update
    checks: nothing leaves the machine but what bundling fetches from the package index."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("AWS_") and not key.startswith("CDK_")
    }
    env.update(
        AWS_CONFIG_FILE="/nonexistent",
        AWS_SHARED_CREDENTIALS_FILE="/nonexistent",
        AWS_EC2_METADATA_DISABLED="true",
        CDK_DISABLE_CLI_TELEMETRY="true",
        CDK_DISABLE_VERSION_CHECK="true",
        JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION="20",
        CDK_OUTDIR=str(outdir),
    )
    return env


@functools.cache
def cdk_version() -> str:
    """The CDK CLI's version, or skip (with the reason) when it cannot run offline."""
    if shutil.which("npx") is None:
        pytest.skip(NO_NPX)
    probe = subprocess.run(
        [*NPX_CDK, "--version"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if probe.returncode != 0:
        pytest.skip(NO_CDK)
    return probe.stdout.strip()


def cdk(*args: str, outdir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*NPX_CDK, *args, "--output", str(outdir), "--no-notices", "--no-color"],
        cwd=ROOT,
        env=cli_env(outdir),
        capture_output=True,
        text=True,
        check=False,
    )


def test_npx_cdk_synth_runs_the_app_from_cdk_json(tmp_path: Path) -> None:
    print(f"CDK CLI {cdk_version()}")
    result = cdk("synth", "--quiet", outdir=tmp_path)
    assert result.returncode == 0, result.stderr[-4000:]
    template = json.loads((tmp_path / "LangGraphMemory.template.json").read_text())
    [function] = [r for r in template["Resources"].values() if r["Type"] == "AWS::Lambda::Function"]
    asset = tmp_path / f"asset.{function['Properties']['Code']['S3Key'].removesuffix('.zip')}"
    assert (asset / "embedder" / "handler.py").is_file()
    report = json.loads((tmp_path / "validation-report.json").read_text())
    assert [r["conclusion"] for r in report["pluginReports"]] == ["success"]  # cdk-nag ran
    assert "Alarms reach nobody." in result.stderr  # the CLI shows the synth warning


def test_npx_cdk_synth_refuses_a_bad_context_value_in_one_line(tmp_path: Path) -> None:
    cdk_version()
    result = cdk("synth", "--quiet", "-c", "dims=5000", outdir=tmp_path)
    assert result.returncode != 0
    assert (
        "CDK context dims=5000 is invalid: dims must be the embedding model's dimension "
        "count, an int from 1 to 4096 (DynamoDB's limit)."
    ) in result.stderr.splitlines()
    assert "Traceback" not in result.stderr
