"""The Lambda assets, bundled locally (no Docker): one code asset per function (the stream
consumer's and the extraction worker's), which holds its own handler's folder under
`lambdas/` and the library's layers that handler imports (`Asset`: `EMBEDDER`,
`EXTRACTOR`), and one dependency layer both functions share (`dependency_layer_code`): the
library's runtime dependencies installed by pip as wheels for the Lambda platform, less
what the handlers never import, under `python/` (Lambda puts a layer's `python/` folder on
the path, after the function's code). Everything ships with bytecode compiled for the
runtime's Python.

Why a shared layer rather than two slimmer self-contained assets: the two handlers import
the same dependencies (boto3, Powertools, langchain-core, langchain-aws, pydantic; the
extractor adds langgraph's checkpoint base, a few hundred KB), so per-function dependency
sets would still be two uploads of almost the same 170 MB. The layer is uploaded once and
its hash covers only the requirements and this recipe, so a change to a handler or to the
library rebuilds and redeploys a code asset of a few hundred KB, never the dependencies.

Bytecode: `/var/task` is read-only, so without a `.pyc` for the runtime's Python every cold
start compiles every module it imports. The pycs are hash-based and unchecked: CDK zips
every file with the same date (1980-01-01), so the source mtime a timestamp-based pyc
records would never match and every pyc would be stale. They are compiled by an
interpreter of exactly the runtime's version (`interpreter`): `pythonX.Y` on PATH, else
Pyodide's CPython X.Y under Node (`infra/package.json`, installed by `make install`). With
neither, the asset ships without bytecode and says so (`no_bytecode_warning`).

Two caches under `~/.cache/langgraph-dynamodb-memory/lambda-deps/` (or
`$LAMBDA_BUNDLE_CACHE`): what pip installed, per (requirements, platform, Python version),
so repeated synths copy instead of downloading; and that, slimmed and compiled, keyed also
by this file and the compiling interpreter.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
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
from packaging.markers import Marker
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
# The library's source root: a file's path under it is its path in the asset.
LIBRARY = ROOT / "store"
HANDLERS = ROOT / "lambdas"
PYODIDE_PYTHON = Path(__file__).resolve().with_name("pyodide_python.mjs")
DISTRIBUTION = "langgraph-dynamodb-memory"
PACKAGE_PATH = Path("langgraph", "store", "dynamodb")
SAVER_PATH = Path("langgraph", "checkpoint", "dynamodb")

# The consumer's runtime; its Python version is the one the asset's wheels and bytecode are for.
RUNTIME = lambda_.Runtime.PYTHON_3_14
PYTHON = RUNTIME.name.removeprefix("python")
HOST_PYTHON = "{}.{}".format(*sys.version_info)


@dataclass(frozen=True)
class Asset:
    """What one Lambda's asset holds of this repository: its handler's folder under
    `lambdas/` (`handler`, and nothing else of `lambdas/`) and the library's files and
    layers the handler imports (`layers`: paths under the source root `store/`, each shipped
    at the same path). The bundle tests check `layers` is exactly what the handler loads."""

    handler: str
    layers: tuple[Path, ...]

    @property
    def entry(self) -> str:
        """The function's handler setting (`<folder>.handler.handler`)."""
        return f"{self.handler}.handler.handler"

    def sources(self) -> Iterator[tuple[Path, Path]]:
        """Each file or folder shipped from this repository, and where it lands in the asset."""
        for path in self.layers:
            yield LIBRARY / path, path
        yield HANDLERS / self.handler, Path(self.handler)


def _package(*names: str) -> tuple[Path, ...]:
    """The store package's own files and the layers `names`, as paths in the asset."""
    return tuple(PACKAGE_PATH / name for name in ("__init__.py", "py.typed", *names))


# The stream consumer: the stream layer and the layers below it, never the store's paths
# and jobs, the checkpointer, extraction, the CLI, the demo or the emulation.
EMBEDDER = Asset("embedder", _package("table", "embedders", "items", "handlers", "stream"))
# The extraction worker: the extraction layer and every layer below it (it reads threads
# through the checkpointer and writes memories through the store), never the stream
# consumer, the CLI, the demo or the emulation.
EXTRACTOR = Asset(
    "extractor",
    (
        *_package(
            "table",
            "embedders",
            "items",
            "jobs",
            "basestore",
            "handlers",
            "recall",
            "extraction",
        ),
        SAVER_PATH,
    ),
)
# Where Lambda looks for Python modules in a layer (unzipped at /opt: /opt/python).
LAYER_FOLDER = "python"
# Never shipped: this machine's bytecode.
NOT_SHIPPED = ("__pycache__", "*.pyc")
# The library's extra that holds what only the Lambda adds (Powertools' X-Ray tracer).
LAMBDA_EXTRA = "lambda"
# What the slim asset leaves out of every dependency: test suites, console scripts, stubs.
DEPENDENCY_LEFT_OUT = ("tests", "test", "bin", "*.pyi")


@dataclass(frozen=True)
class Target:
    """Where the bundle runs: pip platform tags and a Python version, or none for this
    machine's (tests import a host bundle)."""

    platforms: tuple[str, ...]
    python_version: str | None

    @property
    def python(self) -> str:
        """The Python version ("3.14") the bundle runs on."""
        return self.python_version or HOST_PYTHON


# Lambda's Python runtimes run Amazon Linux 2023 (glibc 2.34): manylinux_2_28 wheels run
# there, and some dependencies (numpy) publish no manylinux2014 wheel for 3.14.
LAMBDA_ARM64 = Target(("manylinux_2_28_aarch64", "manylinux2014_aarch64"), PYTHON)
HOST = Target((), None)


@dataclass(frozen=True)
class Interpreter:
    """A command that runs Python as `python -c`/`-m` would, and the version it reports."""

    command: tuple[str, ...]
    version: str


@functools.cache
def interpreter(version: str) -> Interpreter | None:
    """An interpreter of Python `version` ("3.14") to compile bytecode with: this one,
    `python<version>` on PATH, or Pyodide's under Node; None if none runs that version."""
    if version == HOST_PYTHON:
        return Interpreter((sys.executable,), platform.python_version())
    native, node = shutil.which(f"python{version}"), shutil.which("node")
    candidates: list[tuple[str, ...]] = [(native,)] if native else []
    if node:
        candidates.append((node, str(PYODIDE_PYTHON)))
    for command in candidates:
        probe = subprocess.run(
            [*command, "-c", "import platform; print(platform.python_version())"],
            capture_output=True,
            text=True,
            check=False,
        )
        reported = probe.stdout.strip()
        if probe.returncode == 0 and reported.startswith(f"{version}."):
            return Interpreter(command, reported)
    return None


def no_bytecode_warning(version: str) -> str:
    """What an asset built without an interpreter of `version` costs, and what to install."""
    return (
        f"No Python {version} to compile the stream consumer's bytecode with: its asset ships "
        "without .pyc files, so every cold start compiles every module it imports (about "
        f"1.4 s). Put python{version} on PATH, or install Node.js and run `make install` "
        f"(Pyodide's CPython {version}, infra/package.json), then synthesize again."
    )


def runtime_requirements() -> list[str]:
    """What the asset installs: the library's requirements without an extra and those of
    its `lambda` extra, as installed metadata lists them (platform markers kept)."""
    requires = importlib.metadata.requires(DISTRIBUTION) or []
    return sorted(
        str(_without_extra(r)) for r in map(Requirement, requires) if _for_lambda(r.marker)
    )


@dataclass(frozen=True)
class Built:
    """A function as Lambda runs it: its code asset (`code`, Lambda's /var/task) and the
    dependency layer (`layer`, unzipped at /opt); `path`, what the runtime puts first on
    `sys.path`: the code, then the layer's `python/` folder."""

    code: Path
    layer: Path

    @property
    def path(self) -> tuple[Path, ...]:
        return (self.code, self.layer / LAYER_FOLDER)

    def files(self) -> list[Path]:
        """Every file of the code asset and of the layer."""
        return [p for root in (self.code, self.layer) for p in root.rglob("*") if p.is_file()]


def build(
    out: Path,
    asset: Asset,
    target: Target = LAMBDA_ARM64,
    *,
    slim: bool = True,
    layer: Path | None = None,
) -> Built:
    """Write `asset`'s code into `out/code` and the dependency layer into `out/layer`
    (or reuse the layer already built at `layer`). With `slim=False`, dependencies as
    before issue 19 (all pip installed, no bytecode): the bench's baseline."""
    if layer is None:
        layer = out / "layer"
        build_layer(layer, target, slim=slim)
    build_code(out / "code", asset, target, slim=slim)
    return Built(out / "code", layer)


def build_layer(out: Path, target: Target = LAMBDA_ARM64, *, slim: bool = True) -> None:
    """Write the dependency layer into `out`: the dependencies under `python/`."""
    python = _compiler(target) if slim else None
    dependencies = _slim_dependencies(target, python) if slim else _installed(target)
    shutil.copytree(dependencies, out / LAYER_FOLDER, dirs_exist_ok=True)


def build_code(
    out: Path, asset: Asset, target: Target = LAMBDA_ARM64, *, slim: bool = True
) -> None:
    """Write `asset`'s code into `out`: the library's layers and the handler's folder."""
    python = _compiler(target) if slim else None
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        own = Path(scratch)
        for source, placed in asset.sources():
            (own / placed).parent.mkdir(parents=True, exist_ok=True)
            if source.is_dir():
                shutil.copytree(source, own / placed, ignore=shutil.ignore_patterns(*NOT_SHIPPED))
            else:
                shutil.copy2(source, own / placed)
        if python is not None:
            _compile(own, python)
        shutil.copytree(own, out, dirs_exist_ok=True)


def source_hash(asset: Asset, target: Target = LAMBDA_ARM64) -> str:
    """Changes whenever `asset`'s code would: its own library or handler sources (each by
    where it lands in the asset, so another handler's change leaves it alone), target,
    this recipe, the interpreter compiling the bytecode. Not the requirements: they are
    the layer's."""
    digest = hashlib.sha256(_recipe(target, "code", asset))
    for placed, path in sorted(_sources(asset)):
        digest.update(str(placed).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def layer_hash(target: Target = LAMBDA_ARM64) -> str:
    """Changes whenever the dependency layer would: requirements, target, this recipe, the
    interpreter compiling the bytecode. No source of the library or of a handler."""
    return hashlib.sha256(_recipe(target, "layer", runtime_requirements())).hexdigest()


def lambda_code(asset: Asset, target: Target = LAMBDA_ARM64) -> lambda_.Code:
    """A Lambda code asset holding `asset`'s code (`EMBEDDER`, `EXTRACTOR`), bundled
    locally; its dependencies are the layer's (`dependency_layer_code`)."""
    return _local_asset(
        HANDLERS / asset.handler,
        source_hash(asset, target),
        functools.partial(build_code, asset=asset, target=target),
    )


def dependency_layer_code(target: Target = LAMBDA_ARM64) -> lambda_.Code:
    """The code of the layer both functions share: the runtime dependencies, bundled
    locally (cached), under `python/`."""
    return _local_asset(
        Path(__file__).parent,
        layer_hash(target),
        functools.partial(build_layer, target=target),
    )


def _local_asset(source: Path, asset_hash: str, bundle: Callable[[Path], None]) -> lambda_.Code:
    """A code asset keyed by `asset_hash` and written by `bundle(output_dir)`. `source` is
    never read (the hash is custom) and the image never pulled: local bundling always
    succeeds or raises."""
    return lambda_.Code.from_asset(
        str(source),
        asset_hash_type=AssetHashType.CUSTOM,
        asset_hash=asset_hash,
        bundling=BundlingOptions(
            image=DockerImage.from_registry("local-bundling-only"),
            local=LocalBundling(bundle),
        ),
    )


@jsii.implements(ILocalBundling)
class LocalBundling:
    """CDK's local bundling hook: runs `bundle` into the asset's output directory."""

    def __init__(self, bundle: Callable[[Path], None]) -> None:
        self.bundle = bundle

    def try_bundle(self, output_dir: str, *args: Any, **kwargs: Any) -> bool:
        self.bundle(Path(output_dir))
        return True


def _compiler(target: Target) -> Interpreter | None:
    """The interpreter compiling `target`'s bytecode; None, with a warning, if none."""
    python = interpreter(target.python)
    if python is None:
        print(f"warning: {no_bytecode_warning(target.python)}", file=sys.stderr)
    return python


def _for_lambda(marker: Marker | None) -> bool:
    """Whether a requirement with this marker is the Lambda's: no extra, or the `lambda`
    one (other markers are left to pip, for the target's platform)."""
    return (
        marker is None
        or "extra" not in str(marker)
        or str(marker) == (f'extra == "{LAMBDA_EXTRA}"')
    )


def _without_extra(requirement: Requirement) -> Requirement:
    if requirement.marker is not None and "extra" in str(requirement.marker):
        requirement.marker = None
    return requirement


def _recipe(target: Target, *inputs: object) -> bytes:
    """What the slim asset for `target` is made from, as bytes to hash: `inputs`, the
    target, the interpreter compiling its bytecode, and this file."""
    made_with = (target, interpreter(target.python), *inputs)
    return repr(made_with).encode() + Path(__file__).read_bytes()


def _sources(asset: Asset) -> Iterator[tuple[Path, Path]]:
    """Each source file `asset` ships: where it lands in the asset, and its path here."""
    for source, placed in asset.sources():
        if source.is_dir():
            for path in source.rglob("*.py"):
                yield placed / path.relative_to(source), path
        else:
            yield placed, source


def _compile(root: Path, python: Interpreter) -> None:
    """Compile every module under `root` into unchecked hash-based pycs."""
    options = ["-q", "-j0", "--invalidation-mode", "unchecked-hash"]
    result = subprocess.run(
        [*python.command, "-m", "compileall", *options, str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"Compiling the stream consumer's bytecode with Python {python.version} "
            f"({' '.join(python.command)}) failed:\n{result.stdout}{result.stderr}"
        )


def _cache_root() -> Path:
    return Path(
        os.environ.get("LAMBDA_BUNDLE_CACHE")
        or Path.home() / ".cache" / "langgraph-dynamodb-memory" / "lambda-deps"
    )


def _cached(cached: Path, fill: Callable[[Path], None]) -> Path:
    """`cached`, filled by `fill(staging)` first if missing (a concurrent filler may win)."""
    if cached.is_dir():
        return cached
    cached.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=cached.parent, prefix=f".{cached.name}-"))
    try:
        fill(staging)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    try:
        staging.rename(cached)
    except OSError:  # another synth cached the same dependencies first
        shutil.rmtree(staging, ignore_errors=True)
    return cached


def _installed(target: Target) -> Path:
    """A directory holding the runtime dependencies pip installs for `target` (cached)."""
    key = hashlib.sha256(repr((runtime_requirements(), target)).encode()).hexdigest()[:16]
    return _cached(_cache_root() / key, functools.partial(_pip_install, target))


def _pip_install(target: Target, staging: Path) -> None:
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    command += ["--target", str(staging), "--only-binary=:all:"]
    for platform_tag in target.platforms:
        command += ["--platform", platform_tag]
    if target.platforms:
        command += ["--implementation", "cp"]
    if target.python_version:
        command += ["--python-version", target.python_version]
    result = subprocess.run(
        [*command, *runtime_requirements()], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"Bundling the stream consumer failed: pip could not install the library's "
            f"runtime dependencies for {target}. pip said:\n{result.stderr}\nCheck network "
            "access to the package index (or a pip config pointing at a mirror)."
        )
    for pycache in staging.rglob("__pycache__"):
        shutil.rmtree(pycache, ignore_errors=True)


def _slim_dependencies(target: Target, python: Interpreter | None) -> Path:
    """The installed dependencies less what the handler never imports, compiled by
    `python` (cached per installed set, recipe and interpreter)."""
    installed = _installed(target)
    key = hashlib.sha256(_recipe(target, installed.name)).hexdigest()[:16]
    return _cached(
        installed.with_name(f"{installed.name}-slim-{key}"),
        functools.partial(_slim, installed, python),
    )


def _slim(installed: Path, python: Interpreter | None, staging: Path) -> None:
    ignore = shutil.ignore_patterns(*DEPENDENCY_LEFT_OUT)
    shutil.copytree(installed, staging, ignore=ignore, dirs_exist_ok=True)
    if python is not None:
        _compile(staging, python)
