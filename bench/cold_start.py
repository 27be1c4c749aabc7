"""The stream consumer's init time: the cold import of `embedder.handler` from its asset,
built for this machine (`infra.bundling.build(out, EMBEDDER, HOST)`) as before issue 19 (everything
pip installs, no bytecode) and as shipped (slim, with bytecode), and each asset's size.

Each import runs in a fresh `python -I -S -B`: only the standard library and the asset on
the path, and nothing written into the asset (Lambda's /var/task is read-only, so a module
without a .pyc is compiled on every cold start). One unmeasured import first warms the page
cache: "cold" is a new interpreter, not a cold disk. Median of `--runs`.

    python -m bench.cold_start [--runs 7]
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

from infra.bundling import EMBEDDER, HOST, build

# Run as `python -I -S -B -c IMPORT_HANDLER ASSET`: prints the seconds `import
# embedder.handler` took, after checking that the handler and what it imports came from the
# asset.
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
VARIANTS = (
    ("before: all pip installs, no bytecode", False),
    ("slim, with bytecode", True),
)


def import_seconds(asset: Path) -> float:
    """Seconds a fresh interpreter takes to import the handler from `asset` alone."""
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-B", "-c", IMPORT_HANDLER, str(asset)],
        capture_output=True,
        text=True,
        env={"PATH": os.environ.get("PATH", ""), "AWS_DEFAULT_REGION": "us-east-1"},
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"importing the handler from {asset} failed:\n{result.stderr}")
    return float(result.stdout.split()[-1])


def measure(asset: Path, runs: int) -> dict[str, float]:
    """Median import seconds (of `runs`), size in MB, files and pycs of `asset`."""
    import_seconds(asset)
    seconds = statistics.median(import_seconds(asset) for _ in range(runs))
    files = [path for path in asset.rglob("*") if path.is_file()]
    return {
        "seconds": seconds,
        "mb": sum(path.stat().st_size for path in files) / 1e6,
        "files": len(files),
        "pycs": sum(path.suffix == ".pyc" for path in files),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="imports measured per asset")
    args = parser.parse_args()
    print(
        f"Cold import of embedder.handler, asset built for this machine (Python "
        f"{platform.python_version()}, {platform.machine()}), median of {args.runs} fresh "
        "`python -I -S -B`:\n"
    )
    print("| asset | import (s) | size (MB) | files | of which .pyc |")
    print("|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as scratch:
        for title, slim in VARIANTS:
            asset = Path(scratch, "slim" if slim else "before")
            build(asset, EMBEDDER, HOST, slim=slim)
            m = measure(asset, args.runs)
            print(
                f"| {title} | {m['seconds']:.2f} | {m['mb']:.0f} | {m['files']:.0f} "
                f"| {m['pycs']:.0f} |"
            )


if __name__ == "__main__":
    main()
