"""README's tour of the command line runs as pasted: its second block (what `serve`
tells a user to paste into another terminal), in bash with `set -e`, against `serve`,
with `dynamodb-memory` and `python` on the PATH as a venv puts them there."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import Server

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()
TOUR = README[README.index("## A 60-second tour") : README.index("## What is in the box")]
SERVE_URL = "http://127.0.0.1:8484"  # what the tour's `serve` prints


def test_the_tour_runs_as_pasted(server: Server, tmp_path: Path) -> None:
    (pasted,) = [b for b in re.findall(r"```bash\n(.*?)```", TOUR, re.S) if "export AWS_" in b]
    assert SERVE_URL in pasted
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, command in (
        ("dynamodb-memory", f'exec {sys.executable} -m langgraph.store.dynamodb "$@"'),
        ("python", f'exec {sys.executable} "$@"'),
    ):
        (bin_dir / name).write_text(f"#!/bin/sh\n{command}\n")
        (bin_dir / name).chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "DYNAMODB_MEMORY"))}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    ran = subprocess.run(
        ["bash", "-e", "-c", pasted.replace(SERVE_URL, server.url)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=900,
    )
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    assert "t1" in ran.stdout  # threads ls and show found the thread the tour made
