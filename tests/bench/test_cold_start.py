"""The cold-start benchmark runs end to end (one import per asset), so `make bench` cannot
rot. No timing is asserted: only that both assets are built, measured and told apart."""

from __future__ import annotations

import sys

import pytest

from bench import cold_start


def test_reports_both_assets_with_bytecode_only_in_the_slim_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["cold_start", "--runs", "1"])
    cold_start.main()
    rows = [line.split("|")[1:-1] for line in capsys.readouterr().out.splitlines()]
    measured = {cells[0].strip(): cells[1:] for cells in rows if len(cells) == 5}
    before = measured["before: all pip installs, no bytecode"]
    slim = measured["slim, with bytecode"]
    assert float(before[0]) > 0 and float(slim[0]) > 0
    assert int(before[3]) == 0 and int(slim[3]) > 1000
    assert int(slim[2]) - int(slim[3]) < int(before[2])  # fewer files besides the pycs
