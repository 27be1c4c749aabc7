"""The command line's start-up: how long `dynamodb-memory` takes before it does anything,
against the interpreter's own start. Each command runs in a fresh interpreter (as the
console script does), after one unmeasured run that warms the page cache and the bytecode
cache (in a temporary directory: with `PYTHONDONTWRITEBYTECODE` in the caller's
environment every run would compile the library's sources again, which no installed copy
does); median of `--runs`. `ls` goes to an endpoint nothing listens on, so it times
start-up, its imports and one refused connection (it exits 3, as documented). Targets
(issue 41): `--help` within 0.3 s and a simple command within 0.6 s of the interpreter's
start. The CPU seconds (user + system) are reported too: on shared cores they vary less
than the wall.

    python -m bench.cli_startup [--runs 7]   (make bench: bench/results/cli-startup.md)
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time

CLI = (sys.executable, "-m", "langgraph.store.dynamodb")
UNREACHABLE = "http://127.0.0.1:9"  # the discard port: refused at once
# What no command line on these libraries can avoid: Typer's help (Rich, Markdown,
# Pygments: typer.rich_utils imports them all), and for a command that sends a request,
# Typer's parameter parsing (since Typer 0.26 pydantic's TypeAdapters) with boto3 and one
# DynamoDB client (botocore reads its endpoint and service models, ~1 MB of JSON).
HELP_FLOOR = "import typer.rich_utils"
REQUEST_FLOOR = (
    "import typer, typer._adapters, boto3; boto3.client('dynamodb', region_name='us-east-1')"
)
# (what runs, its command line, the target above the interpreter's start in seconds; None
# for the interpreter and the floors)
CASES: tuple[tuple[str, tuple[str, ...], float | None], ...] = (
    ("the interpreter alone (`python -c pass`)", (sys.executable, "-c", "pass"), None),
    ("floor of `--help`: Typer's Rich help alone", (sys.executable, "-c", HELP_FLOOR), None),
    (
        "floor of a request: Typer's parsing, boto3 and a DynamoDB client alone",
        (sys.executable, "-c", REQUEST_FLOOR),
        None,
    ),
    ("`dynamodb-memory --help`", (*CLI, "--help"), 0.3),
    ("`dynamodb-memory --version`", (*CLI, "--version"), 0.6),
    (
        "`dynamodb-memory ls` (unreachable endpoint)",
        (*CLI, "ls", "--endpoint-url", UNREACHABLE, "--table", "t", "--region", "us-east-1"),
        0.6,
    ),
)
ENV = {
    **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
}


def seconds(command: tuple[str, ...], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of `command` (its output discarded)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def median(command: tuple[str, ...], runs: int, env: dict[str, str]) -> tuple[float, float]:
    """Median wall and CPU seconds of `runs` runs, after one that warms the caches."""
    seconds(command, env)
    measured = [seconds(command, env) for _ in range(runs)]
    return statistics.median(w for w, _ in measured), statistics.median(c for _, c in measured)


def report(runs: int) -> str:
    """The results as a markdown page."""
    with tempfile.TemporaryDirectory(prefix="cli-startup-pyc-") as cache:
        env = {**ENV, "PYTHONPYCACHEPREFIX": cache}
        measured = [(title, median(command, runs, env), target) for title, command, target in CASES]
    wall0, cpu0 = measured[0][1]
    lines = [
        "# Command-line start-up",
        "",
        f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores "
        f"(shared), median of {runs} fresh runs (`python -m bench.cli_startup`).",
        "",
        "| command | wall (s) | wall above the interpreter (s) | CPU (s) | CPU above (s) "
        "| target above (s) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for title, (wall, cpu), target in measured:
        above = f"| {wall - wall0:.3f} | {cpu:.3f} | {cpu - cpu0:.3f} |"
        if title == measured[0][0]:
            above = f"| | {cpu:.3f} | |"
        lines.append(f"| {title} | {wall:.3f} {above} {target or ''} |")
    return "\n".join([*lines, "", *NOTE]) + "\n"


NOTE = (
    "The floors are what any command line on these libraries pays: `--help` renders with "
    "`typer.rich_utils`, which imports Rich's Markdown, Pygments and tracebacks; a command "
    "that sends a request parses its options with Typer's pydantic TypeAdapters and builds a "
    "boto3 DynamoDB client (botocore reads its endpoint and service models). `ls` lists from "
    "the namespace registry on a client alone: neither the store nor LangGraph's base (which "
    "imports langchain_core, about 0.3 s) loads (`tests/cli/test_startup.py`). Commands that "
    "build the store (`get`, `put`, `search`, `status`, ...) still load them.",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs measured per command")
    args = parser.parse_args()
    print(report(args.runs), end="")


if __name__ == "__main__":
    main()
