"""`serve` stops cleanly on Ctrl-C and keeps memories across a restart with --state."""

from __future__ import annotations

import signal
import sys
import threading
import time
from pathlib import Path

from langgraph.store.dynamodb.cli import serve

from tests.cli.conftest import Cli, free_port, start_server

WATCHDOG_SECONDS = 20


def _blocked(thread_id: int) -> bool:
    """Whether the thread sits in a `threading` wait called by `serve.run` (until stopped)."""
    frame = sys._current_frames().get(thread_id)
    if frame is None or frame.f_code.co_filename != threading.__file__:
        return False
    while frame is not None and frame.f_code.co_filename == threading.__file__:
        frame = frame.f_back
    return frame is not None and frame.f_code is serve.run.__code__


def test_ctrl_c_saves_state_and_a_restart_loads_it(tmp_path: Path) -> None:
    state = tmp_path / "memory-state.json"
    first = start_server("--port", str(free_port()), "--state", str(state))
    try:
        cli = Cli(first)
        cli.json("setup", "--table", "kept", "--embed", "lexical")
        cli.json(
            "put", "--table", "kept", "--embed", "lexical", "memories.u1", "m", '{"text": "hi"}'
        )
        cli.json("put", "--table", "kept", "--ttl", "60", "memories.u2", "t", '{"text": "later"}')
    finally:
        code, stopped = first.stop(signal.SIGINT)
    assert code == 0
    assert stopped["stopped"] and stopped["saved_items"] >= 4  # 2 items, 2 registry rows, ...
    assert state.exists()

    second = start_server("--port", str(free_port()), "--state", str(state))
    try:
        assert second.ready["loaded_items"] == stopped["saved_items"]
        cli = Cli(second)
        assert cli.json("get", "--table", "kept", "memories.u1", "m")["value"] == {"text": "hi"}
        assert cli.json("ls", "--table", "kept") == [["memories", "u1"], ["memories", "u2"]]
        hits = cli.json("search", "--table", "kept", "--embed", "lexical", "memories", "-q", "hi")
        assert hits[0]["key"] == "m"  # vectors are indexed again on load
        status = cli.json("status", "--table", "kept")
        assert status["ttl"] == "ENABLED on expires_at"
        assert status["vector_indexes"][0]["status"] == "ACTIVE"
    finally:
        code, _ = second.stop(signal.SIGTERM)
    assert code == 0


def test_a_stop_signal_the_kernel_hands_to_another_thread_stops_serve() -> None:
    """A signal sent to a process reaches whichever of its threads the kernel picks, and
    serve runs many (the HTTP server's, the background consumers'). Whichever receives
    SIGTERM, serve stops: it does not sleep on until some later signal wakes its main
    thread. The watchdog sends one to the main thread, so a failure ends the test."""
    main = threading.main_thread().ident
    assert main is not None and threading.get_ident() == main  # where serve runs
    stopped = threading.Event()
    missed: list[str] = []

    def signal_from_another_thread(url: str, loaded: int) -> None:
        def deliver() -> None:
            while not _blocked(main):  # a signal before the block would be seen anyway
                time.sleep(0.01)
            signal.pthread_kill(threading.get_ident(), signal.SIGTERM)
            if not stopped.wait(WATCHDOG_SECONDS):
                missed.append(f"serve still running {WATCHDOG_SECONDS} s after SIGTERM")
                signal.pthread_kill(main, signal.SIGTERM)

        threading.Thread(target=deliver, name="not-main").start()

    serve.run(
        host="127.0.0.1",
        port=0,
        state=None,
        on_ready=signal_from_another_thread,
        on_stop=lambda saved: stopped.set(),
    )
    assert stopped.is_set() and missed == []
