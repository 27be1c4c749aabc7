"""The README's Python examples run as written: those that start the emulation themselves
(`mock_aws().start()`) each alone in a fresh interpreter, as pasted into `python` in a
shell without AWS settings; the others in order, on the emulation."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from langgraph.store.dynamodb.testing import mock_aws

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
# The blocks that start the offline emulation in their own process: run alone, as pasted.
STARTS_EMULATION = "mock_aws().start()"
PASTED = [block for block in BLOCKS if STARTS_EMULATION in block]
IN_ORDER = [block for block in BLOCKS if STARTS_EMULATION not in block]


def run_pasted(block: str, cwd: Path, observe: tuple[str, str] = ("", "")) -> str:
    """Run `block` as pasted into `python` in a shell with no AWS settings (no credentials,
    region or endpoint), between `observe`'s code before and after it; its stdout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env["AWS_CONFIG_FILE"] = env["AWS_SHARED_CREDENTIALS_FILE"] = str(cwd / "none")
    before, after = observe
    ran = subprocess.run(
        [sys.executable, "-c", before + block + after],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=600,
    )
    assert ran.returncode == 0, ran.stderr
    return ran.stdout


def test_the_readme_has_examples() -> None:
    assert len(IN_ORDER) >= 5 and len(PASTED) == 2


def test_memories_that_form_themselves_runs_as_pasted(tmp_path: Path) -> None:
    (block,) = [b for b in PASTED if "drain_queue(" in b]
    assert run_pasted(block, tmp_path) == "User prefers green tea t1\n"


def test_readme_examples_run_as_written(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A user without a default region configured: every example must name its own.
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    monkeypatch.delenv("AWS_REGION", raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    namespace: dict[str, object] = {}
    with mock_aws():
        for block in IN_ORDER:
            exec(compile(block, str(README), "exec"), namespace)
        namespace["test_agent_remembers"]()  # type: ignore[operator]
    printed = capsys.readouterr().out
    assert "{'channel': 'email', 'score': 0.1, 'seats': 42}" in printed
    assert re.search(r"^\d\.\d\d mem-1$", printed, flags=re.MULTILINE)
    # The pairing: a second saver resumes the thread; the tenant's registry lists it.
    assert re.search(r"^2\n\['ticket-4471'\]$", printed, flags=re.MULTILINE)


# Around the "What gets remembered" block: the model calls it traces (their inputs) and
# the people the custom strategy stored, printed as JSON after the block's own output.
TRACE = (
    "from langchain_core.tracers.context import collect_runs\n"
    "_tracing = collect_runs()\n_collected = _tracing.__enter__()\n",
    "\nimport json as _json\n"
    "def _runs(run):\n    yield run\n    for child in run.child_runs:\n"
    "        yield from _runs(child)\n"
    "_prompts = [str(r.inputs) for root in _collected.traced_runs for r in _runs(root)\n"
    "            if r.name == 'ScriptedChatModel']\n"
    "_people = mem_store.search(('memories', 'acme', 'u1', 'people'), limit=10)\n"
    "print(_json.dumps({'prompts': _prompts,\n"
    "                   'strategies': [m.value['provenance']['strategy'] for m in _people]}))\n",
)


def test_the_readme_agent_recalls_memories_and_its_custom_strategy_forms_them(
    tmp_path: Path,
) -> None:
    """The "What gets remembered" example, as pasted: the `create_agent` agent's second
    turn sees the first thread's memories in its system message (`MemoryRecall`), the
    default consolidation supersedes the contradicted city, and the custom strategy
    writes into its own namespace template."""
    (block,) = [b for b in PASTED if "MemoryRecall(" in b]
    printed, observed = run_pasted(block, tmp_path, TRACE).splitlines()
    assert printed == str(["User's city is Bergen", "User's sister is Ana"])
    prompts, strategies = json.loads(observed)["prompts"], json.loads(observed)["strategies"]
    assert len(prompts) == 2
    assert "User's city is Oslo" not in prompts[0]
    assert "Facts:\\n- User's city is Oslo\\n- User's sister is Ana" in prompts[1]
    assert strategies and set(strategies) == {"people"}


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
