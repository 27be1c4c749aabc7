"""The Lambdas' init time: the cold import of each handler (`embedder.handler`,
`extractor.handler`) as Lambda runs it, from its code asset with the dependency layer both
share after it on the path (`infra.bundling.build(out, asset, HOST)`), built as before
issue 19 (everything pip installs, no bytecode) and as shipped (slim, with bytecode); what
the first call then adds (the modules the handlers load when they first call a model:
`langchain_aws`, and for the extractor LangChain's chat model base with LangSmith's
tracing); and the size of each code asset and of the layer.

Each import runs in a fresh `python -I -S -B`: only the standard library, the code asset
and the layer on the path, and nothing written into either (Lambda's /var/task and /opt
are read-only, so a module without a .pyc is compiled on every cold start). One
unmeasured import first warms the page cache: "cold" is a new interpreter, not a cold
disk. Median of `--runs`, the builds taking turns.

    python -m bench.cold_start [--runs 9]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from infra.bundling import EMBEDDER, EXTRACTOR, HOST, Asset, Built, build, build_layer

# The goal of issue 43, for each handler's import on this machine.
GOAL_SECONDS = 0.5
# What each handler's first call loads that its import does not: its Bedrock client's
# LangChain integration, and for the extractor the chat model stack (model_call).
FIRST_CALL = {
    "embedder": ("langchain_aws",),
    "extractor": (
        "langchain_aws",
        "langchain_core.language_models.chat_models",
        "langchain_core.tracers.context",
    ),
}

# Run as `python -I -S -B -c IMPORT_HANDLER PATH MODULE [FIRST_CALL...]`, PATH the code
# asset and the layer's python/ folder joined by os.pathsep: prints the seconds `import
# MODULE` took, then those the FIRST_CALL modules took after it, after checking that the
# handler, the library and boto3 came from the asset and the layer.
IMPORT_HANDLER = """
import importlib, os, sys, time
code, layer = sys.argv[1].split(os.pathsep)
sys.path[:0] = [code, layer]
started = time.perf_counter()
handler = importlib.import_module(sys.argv[2])
elapsed = time.perf_counter() - started
started = time.perf_counter()
for name in sys.argv[3:]:
    importlib.import_module(name)
first_call = time.perf_counter() - started
import boto3, langgraph.store.dynamodb
assert handler.__file__.startswith(code), handler.__file__
assert langgraph.store.dynamodb.__file__.startswith(code), langgraph.store.dynamodb.__file__
assert boto3.__file__.startswith(layer), boto3.__file__
print(f"{elapsed:.3f} {first_call:.3f}")
"""
VARIANTS = (
    ("before: all pip installs, no bytecode", False),
    ("shipped: slim, with bytecode", True),
)


def import_seconds(built: Built, handler: str) -> tuple[float, float]:
    """Seconds a fresh interpreter takes to import `handler`'s module from `built` alone,
    and those its first call's modules take after it."""
    result = subprocess.run(
        [
            sys.executable,
            "-I",
            "-S",
            "-B",
            "-c",
            IMPORT_HANDLER,
            os.pathsep.join(map(str, built.path)),
            f"{handler}.handler",
            *FIRST_CALL[handler],
        ],
        capture_output=True,
        text=True,
        env={"PATH": os.environ.get("PATH", ""), "AWS_DEFAULT_REGION": "us-east-1"},
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"importing {handler}.handler from {built} failed:\n{result.stderr}")
    elapsed, first_call = map(float, result.stdout.split()[-2:])
    return elapsed, first_call


def megabytes(root: Path) -> float:
    return sum(path.stat().st_size for path in root.rglob("*") if path.is_file()) / 1e6


def measure(
    builds: dict[tuple[str, str], tuple[Built, str]], runs: int
) -> dict[tuple[str, str], dict[str, float]]:
    """For each build: median and fastest import seconds and median first-call seconds (of
    `runs`), sizes in MB of the code asset and the layer, files and pycs of both. The
    builds take turns, one import each per round, so a burst of load on the machine falls
    on every row alike."""
    for built, handler in builds.values():
        import_seconds(built, handler)  # warms the page cache
    timed: dict[tuple[str, str], list[tuple[float, float]]] = {key: [] for key in builds}
    for _ in range(runs):
        for key, (built, handler) in builds.items():
            timed[key].append(import_seconds(built, handler))
    measured = {}
    for key, (built, _) in builds.items():
        files = built.files()
        measured[key] = {
            "seconds": statistics.median(seconds for seconds, _ in timed[key]),
            "fastest": min(seconds for seconds, _ in timed[key]),
            "first_call": statistics.median(first for _, first in timed[key]),
            "code_mb": megabytes(built.code),
            "layer_mb": megabytes(built.layer),
            "files": len(files),
            "pycs": sum(path.suffix == ".pyc" for path in files),
        }
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="imports measured per asset")
    args = parser.parse_args()
    print(
        f"Cold import of each handler from its code asset and the shared dependency layer, "
        f"built for this machine (Python {platform.python_version()}, {platform.machine()}), "
        f"median (and fastest) of {args.runs} fresh `python -I -S -B`, the four builds in "
        f'turn; goal: at most {GOAL_SECONDS} s shipped. "First call adds": the modules the '
        "handler loads when it first calls a model (not on import), timed after the import "
        "(median).\n"
    )
    print(
        "| function | asset | import (s) | fastest (s) | first call adds (s) | code (MB) "
        "| layer (MB) | files | of which .pyc |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    assets: tuple[Asset, ...] = (EMBEDDER, EXTRACTOR)
    with tempfile.TemporaryDirectory() as scratch:
        builds = {}
        for title, slim in VARIANTS:
            layer = Path(scratch, f"layer-{slim}")
            build_layer(layer, HOST, slim=slim)
            for asset in assets:
                out = Path(scratch, f"{asset.handler}-{slim}")
                built = build(out, asset, HOST, slim=slim, layer=layer)
                builds[asset.handler, title] = (built, asset.handler)
        load = os.getloadavg()[0]
        measured = measure(builds, args.runs)
        for (handler, title), m in measured.items():
            print(
                f"| {handler} | {title} | {m['seconds']:.2f} | {m['fastest']:.2f} "
                f"| {m['first_call']:.2f} | {m['code_mb']:.1f} | {m['layer_mb']:.0f} "
                f"| {m['files']:.0f} | {m['pycs']:.0f} |"
            )
    print(
        "\nThe layer is one asset, uploaded once and shared by both functions; each "
        "function's own upload is its code asset. The machine's load average (1 min) was "
        f"{load:.1f} before the imports and {os.getloadavg()[0]:.1f} after, on "
        f"{os.cpu_count()} CPUs: other work on the machine slows every row alike."
    )


if __name__ == "__main__":
    main()
