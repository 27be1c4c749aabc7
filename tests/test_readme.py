"""The README's Python examples run as written, in order, on the emulation."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.tracers.context import collect_runs
from langchain_core.tracers.schemas import Run
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
    # The pairing: a second saver resumes the thread; the tenant's registry lists it.
    assert re.search(r"^2\n\['ticket-4471'\]$", printed, flags=re.MULTILINE)


def _runs(run: Run) -> Iterator[Run]:
    yield run
    for child in run.child_runs:
        yield from _runs(child)


def test_the_readme_agent_recalls_memories_and_its_custom_strategy_forms_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The "What gets remembered" example, on its own: the `create_agent` agent's second
    turn sees the first thread's memories in its system message (`MemoryRecall`), the
    default consolidation supersedes the contradicted city, and the custom strategy
    writes into its own namespace template."""
    (block,) = [b for b in BLOCKS if "MemoryRecall(" in b]
    namespace: dict[str, Any] = {}
    with mock_aws(), collect_runs() as collected:
        exec(compile(block, str(README), "exec"), namespace)
        people = namespace["mem_store"].search(("memories", "acme", "u1", "people"), limit=10)
    assert capsys.readouterr().out == '["User\'s city is Bergen", "User\'s sister is Ana"]\n'
    prompts = [
        str(run.inputs)
        for root in collected.traced_runs
        for run in _runs(root)
        if run.name == "ScriptedChatModel"
    ]
    assert len(prompts) == 2
    assert "User's city is Oslo" not in prompts[0]
    assert "Facts:\\n- User's city is Oslo\\n- User's sister is Ana" in prompts[1]
    assert people and all(m.value["provenance"]["strategy"] == "people" for m in people)


DOCS = [README, *sorted((README.parent / "docs").glob("*.md"))]


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: doc.name)
def test_files_the_docs_name_are_in_the_repository(doc: Path) -> None:
    """Relative links, and repository paths in backticks (`store/langgraph/store/dynamodb/basestore/config.py`),
    from the repository's top or from the folder the page says its paths are under."""
    text = doc.read_text()
    links = re.findall(r"\]\(([^)#\s]+)", text)
    missing = [t for t in links if "://" not in t and not (doc.parent / t).exists()]
    paths = re.findall(r"`([\w.-]+/[\w./-]*\.(?:py|md|json|toml))`", text)
    base = re.search(r"Paths on this page are\s+under `([\w./-]+)`", text)
    root = README.parent / base[1] if base else README.parent
    missing += [t for t in paths if not (README.parent / t).exists() and not (root / t).exists()]
    assert missing == []


def test_the_docs_name_extra_vector_rows_as_the_code_keys_them() -> None:
    from langgraph.store.dynamodb.items.embedding import vector_sort_key
    from langgraph.store.dynamodb.table.schema import VECTOR_VERSION

    assert vector_sort_key("k#mem-1", "0123456789abcdef", 1) == "v#mem-1#0123456789abcdef#1"
    for doc in (README, README.parent / "docs" / "architecture.md"):
        text = doc.read_text()
        assert "`v#<key>#<version>#<n>`" in text and f"`{VECTOR_VERSION}`" in text
        assert "`v#<key>#<n>`" not in text and "`revision`" not in text
