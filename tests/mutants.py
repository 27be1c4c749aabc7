"""Run a sweep of one-line mutants (docs/mutation-testing.md): for each, apply the
replacement (its old text must occur exactly once in the file), run its test files with
pytest (`-x -q`, 300 s), record killed (pytest failed) or survived, and restore the file.

    python -m tests.mutants tests/mutants_w42.json [ID ...]

The JSON file is a list of {"id", "file", "old", "new", "tests": [...], "what"}; with IDs,
only those run. Prints one line per mutant and the kill rate.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(mutant: dict[str, object]) -> tuple[str, str]:
    """Apply `mutant`, run its tests, restore: ("killed" | "survived", first failure)."""
    path = ROOT / str(mutant["file"])
    original = path.read_text()
    old, new = str(mutant["old"]), str(mutant["new"])
    if original.count(old) != 1:
        raise ValueError(f"{mutant['id']}: old text occurs {original.count(old)} times")
    try:
        path.write_text(original.replace(old, new))
        tests = [str(t) for t in mutant["tests"]]  # type: ignore[attr-defined]
        command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"]
        try:
            done = subprocess.run(
                [*command, "-n", "0", *tests],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=300,
            )
        except subprocess.TimeoutExpired:
            return "timeout", ""
        failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
        outcome = "killed" if done.returncode == 1 else "survived"
        if done.returncode not in (0, 1):
            outcome = f"error {done.returncode}"
        return outcome, failed[0].split(" ")[1] if failed else ""
    finally:
        path.write_text(original)


def main(argv: list[str]) -> int:
    mutants = json.loads(Path(argv[0]).read_text())
    wanted = set(argv[1:])
    outcomes = []
    for mutant in mutants:
        if wanted and mutant["id"] not in wanted:
            continue
        start = time.monotonic()
        outcome, first = run(mutant)
        outcomes.append(outcome)
        print(f"{mutant['id']}\t{outcome}\t{time.monotonic() - start:.0f}s\t{first}", flush=True)
    killed = outcomes.count("killed")
    print(f"killed {killed}/{len(outcomes)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
