"""The command line's start-up benchmark runs end to end (one run per command), so
`make bench` cannot rot. No timing is asserted: only that every command is measured, and
measured doing what it says (`ls` reaches no endpoint and fails as documented)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bench import cli_startup


def test_reports_the_interpreter_and_each_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["cli_startup", "--runs", "1"])
    cli_startup.main()
    rows = [line.split("|")[1:-1] for line in capsys.readouterr().out.splitlines()]
    measured = {cells[0].strip(): cells[1:] for cells in rows if len(cells) == 6}
    titles = [title for title, _, _ in cli_startup.CASES]
    assert [t for t in measured if t in titles] == titles
    assert all(float(measured[t][0]) > 0 and float(measured[t][2]) > 0 for t in titles)


def test_ls_goes_to_an_endpoint_nothing_listens_on() -> None:
    (ls,) = [command for title, command, _ in cli_startup.CASES if "`dynamodb-memory ls`" in title]
    ran = subprocess.run(ls, env=cli_startup.ENV, capture_output=True, text=True, check=False)
    assert ran.returncode == 3, ran.stderr  # the endpoint is unreachable: exit 3
