"""The operational paths under load (issue 21): `serve --state` stopped by SIGTERM and
killed by SIGKILL under concurrent writers, and an export while memories change. Prints
the figures (`make test-hardening`)."""

from __future__ import annotations

import io
import itertools
import json
import random
import signal
import threading
from pathlib import Path

import pytest
from langgraph.store.base import PutOp
from langgraph.store.dynamodb.cli.transfer import export_lines

from tests.cli.conftest import Cli, free_port, start_server
from tests.cli.writers import STOP_SECONDS, Writers, endpoint_store, saved_keys

pytestmark = pytest.mark.hardening

ROUNDS = 3


def test_sigterm_under_concurrent_writers_loses_no_acknowledged_write(tmp_path: Path) -> None:
    acknowledged = lost = refused = 0
    for round_number in range(ROUNDS):
        state = tmp_path / f"state-{round_number}.json"
        server = start_server("--port", str(free_port()), "--state", str(state))
        try:
            Cli(server).json("setup", "--table", "mem")
            with Writers(server.url, "mem", threads=6) as writers:
                writers.wait_for(300)
                code, _ = server.stop(signal.SIGTERM)
        finally:
            if server.process.poll() is None:
                server.stop(signal.SIGKILL)
        assert code == 0
        acknowledged += len(writers.acknowledged)
        lost += len(set(writers.acknowledged) - saved_keys(state, "mem"))
        refused += writers.refused
    print(
        f"\nserve SIGTERM: {ROUNDS} rounds, 6 writers each: {acknowledged} puts acknowledged, "
        f"{lost} of them missing from the saved file; {refused} writers stopped by a refused "
        "or unanswered put (never acknowledged)"
    )
    assert lost == 0


def test_sigkill_loses_what_was_written_since_the_last_save_and_keeps_that_save(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state.json"
    first = start_server("--port", str(free_port()), "--state", str(state))
    try:
        Cli(first).json("setup", "--table", "mem")
        with Writers(first.url, "mem") as before:
            before.wait_for(200)
    finally:
        code, stopped = first.stop(signal.SIGTERM)
    assert code == 0
    saved = state.read_bytes()
    second = start_server("--port", str(free_port()), "--state", str(state))
    assert second.ready["loaded_items"] == stopped["saved_items"]
    with Writers(second.url, "mem", tag="after-save-") as during:
        during.wait_for(300)
        second.process.kill()
        second.process.communicate(timeout=STOP_SECONDS)
    kept = saved_keys(state, "mem")
    lost = [key for key in during.acknowledged if key not in kept]
    print(
        f"\nserve SIGKILL: the last save held {len(kept)} memories and is intact "
        f"({state.read_bytes() == saved}); {len(during.acknowledged)} puts acknowledged "
        f"since, {len(lost)} lost: serve saves only when it stops (no periodic saves)"
    )
    assert state.read_bytes() == saved
    assert set(before.acknowledged) <= kept
    assert len(lost) == len(during.acknowledged)


class Updaters:
    """Threads overwriting existing memories (each becomes its namespace's newest) and
    adding new ones, until stopped."""

    def __init__(self, url: str, table: str, keys: list[tuple[tuple[str, ...], str]]) -> None:
        self.updates = self.added = 0
        self._stop = threading.Event()
        self._progress = threading.Condition()
        self._threads = [
            threading.Thread(target=self._run, args=(url, table, keys, n), daemon=True)
            for n in range(4)
        ]

    def __enter__(self) -> Updaters:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(STOP_SECONDS)
            assert not thread.is_alive()

    def _run(self, url: str, table: str, keys: list[tuple[tuple[str, ...], str]], n: int) -> None:
        chosen = random.Random(n)
        with endpoint_store(url, table) as store:
            for i in itertools.count():
                if self._stop.is_set():
                    return
                namespace, key = chosen.choice(keys)
                store.put(namespace, key, {"updated": i})
                store.put(namespace, f"new-{n}-{i}", {"added": i})
                with self._progress:
                    self.updates += 1
                    self.added += 1
                    self._progress.notify_all()

    def wait_for(self, updates: int) -> None:
        with self._progress:
            while self.updates < updates:
                assert all(t.is_alive() for t in self._threads), "an updater failed"
                self._progress.wait(STOP_SECONDS)


def test_an_export_while_memories_change_has_each_memory_exactly_once() -> None:
    server = start_server("--port", str(free_port()))
    text = "x" * 2_000  # 1,000 per namespace: two Query pages of 1 MB each
    keys = [(("t", f"u{n % 4}"), f"k{n:05}") for n in range(4_000)]
    try:
        Cli(server).json("setup", "--table", "mem")
        with endpoint_store(server.url, "mem") as store:
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                store.batch([PutOp(ns, key, {"text": text}) for ns, key in chunk])
            out = io.StringIO()
            with Updaters(server.url, "mem", keys) as changes:
                changes.wait_for(10)
                before = changes.updates
                count = export_lines(store, ("t",), out)
                during = changes.updates - before
    finally:
        server.stop(signal.SIGTERM)
    seen = [
        (tuple(line["namespace"]), line["key"])
        for line in map(json.loads, out.getvalue().splitlines())
    ]
    duplicates = len(seen) - len(set(seen))
    missing = set(keys) - set(seen)
    print(
        f"\nexport during writes: {len(keys)} memories of 2 KB in 4 namespaces; {during} "
        f"updated and {during} added while the export ran; {count} lines, {len(missing)} "
        f"of the existing memories missing, {duplicates} duplicates"
    )
    assert (duplicates, missing, count) == (0, set(), len(seen))
