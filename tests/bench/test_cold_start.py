"""The cold-start benchmark runs end to end (one import per asset), so `make bench` cannot
rot. No timing is asserted: only that both functions are built, measured on both builds
and told apart, on one dependency layer."""

from __future__ import annotations

import sys

import pytest

from bench import cold_start


def test_reports_both_functions_on_both_builds_with_bytecode_only_when_shipped(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["cold_start", "--runs", "1"])
    cold_start.main()
    rows = [line.split("|")[1:-1] for line in capsys.readouterr().out.splitlines()]
    measured = {
        (cells[0].strip(), cells[1].strip()): [float(cell) for cell in cells[2:]]
        for cells in rows
        if len(cells) == 9 and cells[2].strip()[:1].isdigit()
    }
    before, shipped = (title for title, _ in cold_start.VARIANTS)
    assert sorted(measured) == sorted(
        (function, build) for function in ("embedder", "extractor") for build in (before, shipped)
    )
    for function in ("embedder", "extractor"):
        old, new = measured[function, before], measured[function, shipped]
        seconds, fastest, first_call, code_mb, layer_mb, files, pycs = new
        assert seconds >= fastest > 0 and first_call > 0
        assert code_mb < 5 < layer_mb  # the code asset is the function's own upload
        assert old[6] == 0 and pycs > 1000
        assert files - pycs < old[5]  # fewer files besides the pycs
    # One layer for both: the same size under each function.
    assert measured["embedder", shipped][4] == measured["extractor", shipped][4]
