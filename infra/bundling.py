"""The stream consumer's Lambda asset, bundled locally (no Docker): the handlers under
`lambdas/`, the library from `store/`, and the library's runtime dependencies installed by
pip as wheels for the Lambda platform.

Installed dependencies are cached per (requirements, platform, Python version) under
`~/.cache/langgraph-dynamodb-memory/` (or `$LAMBDA_BUNDLE_CACHE`), so repeated synths copy
instead of downloading.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsii
from aws_cdk import (
    AssetHashType,
    BundlingOptions,
    DockerImage,
    ILocalBundling,
)
from aws_cdk import aws_lambda as lambda_

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "store"
HANDLERS = ROOT / "lambdas"
DISTRIBUTION = "langgraph-dynamodb-memory"
PACKAGE_PATH = Path("langgraph", "store", "dynamodb")
# Not needed at run time: the emulation (needs moto) and byte code.
LEFT_OUT = shutil.ignore_patterns("testing", "__pycache__", "*.pyc")


@dataclass(frozen=True)
class Target:
    """Where the bundle runs: pip platform tags and a Python version, or none for this
    machine's (tests import a host bundle)."""

    platforms: tuple[str, ...]
    python_version: str | None


# Lambda's python3.14 runtime runs Amazon Linux 2023 (glibc 2.34): manylinux_2_28 wheels
# run there, and some dependencies (numpy) publish no manylinux2014 wheel for 3.14.
LAMBDA_ARM64 = Target(("manylinux_2_28_aarch64", "manylinux2014_aarch64"), "3.14")
HOST = Target((), None)


def runtime_requirements() -> list[str]:
    """The library's runtime dependencies, as installed metadata lists them (extras left
    out)."""
    requires = importlib.metadata.requires(DISTRIBUTION) or []
    return sorted(r for r in requires if "extra ==" not in r)


def build(out: Path, target: Target = LAMBDA_ARM64) -> None:
    """Write the asset into `out`: dependencies, the library, and the handlers."""
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(_dependencies(target), out, dirs_exist_ok=True)
    shutil.copytree(LIBRARY, out / PACKAGE_PATH, ignore=LEFT_OUT, dirs_exist_ok=True)
    shutil.copytree(HANDLERS, out, ignore=LEFT_OUT, dirs_exist_ok=True)


def source_hash(target: Target = LAMBDA_ARM64) -> str:
    """Changes whenever the asset would: library or handler sources, requirements, target."""
    digest = hashlib.sha256(repr((runtime_requirements(), target)).encode())
    for path in sorted(_sources()):
        digest.update(str(path.relative_to(ROOT)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def consumer_code(target: Target = LAMBDA_ARM64) -> lambda_.Code:
    """The Lambda code asset, bundled locally. The image is never pulled: local bundling
    always succeeds or raises."""
    return lambda_.Code.from_asset(
        str(HANDLERS),
        asset_hash_type=AssetHashType.CUSTOM,
        asset_hash=source_hash(target),
        bundling=BundlingOptions(
            image=DockerImage.from_registry("local-bundling-only"),
            local=LocalBundling(target),
        ),
    )


@jsii.implements(ILocalBundling)
class LocalBundling:
    """CDK's local bundling hook: runs `build` into the asset's output directory."""

    def __init__(self, target: Target) -> None:
        self.target = target

    def try_bundle(self, output_dir: str, *args: Any, **kwargs: Any) -> bool:
        build(Path(output_dir), self.target)
        return True


def _sources() -> Iterator[Path]:
    for root in (LIBRARY, HANDLERS):
        for path in root.rglob("*.py"):
            if "testing" not in path.relative_to(root).parts:
                yield path


def _dependencies(target: Target) -> Path:
    """A directory holding the runtime dependencies installed for `target` (cached)."""
    key = hashlib.sha256(repr((runtime_requirements(), target)).encode()).hexdigest()[:16]
    cache_root = Path(
        os.environ.get("LAMBDA_BUNDLE_CACHE")
        or Path.home() / ".cache" / "langgraph-dynamodb-memory" / "lambda-deps"
    )
    cached = cache_root / key
    if cached.is_dir():
        return cached
    cache_root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=cache_root, prefix=f".{key}-"))
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    command += ["--target", str(staging), "--only-binary=:all:"]
    for platform in target.platforms:
        command += ["--platform", platform]
    if target.platforms:
        command += ["--implementation", "cp"]
    if target.python_version:
        command += ["--python-version", target.python_version]
    result = subprocess.run(
        [*command, *runtime_requirements()], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise RuntimeError(
            f"Bundling the stream consumer failed: pip could not install the library's "
            f"runtime dependencies for {target}. pip said:\n{result.stderr}\nCheck network "
            "access to the package index (or a pip config pointing at a mirror)."
        )
    for pycache in staging.rglob("__pycache__"):
        shutil.rmtree(pycache, ignore_errors=True)
    try:
        staging.rename(cached)
    except OSError:  # another synth cached the same dependencies first
        shutil.rmtree(staging, ignore_errors=True)
    return cached
