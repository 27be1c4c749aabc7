"""The shape every background worker of the emulation shares: a daemon thread that calls
`poll()` every `interval` seconds until stopped. The stream consumer (`streams`), the
queue consumer (`queues`) and the endpoint's embedder and extraction (`auto_embed`,
`auto_extract`) are pollers."""

from __future__ import annotations

import threading


class Poller:
    """Calls `poll()` every `interval` seconds in a daemon thread named `name`, from
    `start()` until `stop()`. An exception `poll()` raises is kept in `loop_errors`
    (for a test to surface) and polling goes on."""

    def __init__(self, interval: float, name: str) -> None:
        self.interval = interval
        self.loop_errors: list[BaseException] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name=name)

    def poll(self) -> None:
        """One round of work (subclasses)."""
        raise NotImplementedError

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.poll()
            except Exception as error:  # keep polling; surface it to the caller
                self.loop_errors.append(error)
            self._stop.wait(self.interval)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
