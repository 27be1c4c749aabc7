"""The README's Python examples run as written, in order, on the emulation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from langgraph.store.dynamodb.testing import mock_aws

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)


def test_the_readme_has_examples() -> None:
    assert len(BLOCKS) >= 5


def test_readme_examples_run_as_written(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A user without a default region configured: every example must name its own.
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    monkeypatch.delenv("AWS_REGION", raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    namespace: dict[str, object] = {}
    with mock_aws():
        for block in BLOCKS:
            exec(compile(block, str(README), "exec"), namespace)
        namespace["test_agent_remembers"]()  # type: ignore[operator]
    printed = capsys.readouterr().out
    assert "{'channel': 'email', 'score': 0.1, 'seats': 42}" in printed
    assert re.search(r"^\d\.\d\d mem-1$", printed, flags=re.MULTILINE)
