"""Concurrent writers against a `serve` endpoint, and what a state file holds."""

from __future__ import annotations

import itertools
import json
import threading
from pathlib import Path
from typing import Any

import boto3
from botocore.config import Config
from langgraph.store.dynamodb import DynamoDBStore

STOP_SECONDS = 60
# One attempt per request: a refused or failed put is simply not acknowledged.
NO_RETRIES = Config(retries={"total_max_attempts": 1}, connect_timeout=5, read_timeout=30)


def endpoint_client(url: str) -> Any:
    """A raw DynamoDB client on the endpoint."""
    return boto3.client(
        "dynamodb",
        endpoint_url=url,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def endpoint_store(url: str, table: str, **kwargs: Any) -> DynamoDBStore:
    """A store on the endpoint that never retries."""
    session = boto3.Session(aws_access_key_id="testing", aws_secret_access_key="testing")
    return DynamoDBStore(
        table,
        region_name="us-east-1",
        endpoint_url=url,
        boto3_session=session,
        boto_config=NO_RETRIES,
        **kwargs,
    )


class Writers:
    """Threads putting new memories (`("load", "w<n>")`, key `<tag>w<n>-<i>`) through the
    store until told to stop or the endpoint stops answering; `acknowledged` holds the key
    of every put that returned."""

    def __init__(self, url: str, table: str, threads: int = 4, tag: str = "") -> None:
        self.url = url
        self.table = table
        self.tag = tag
        self.acknowledged: list[str] = []
        self.refused = 0
        self._progress = threading.Condition()
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._write, args=(n,), daemon=True) for n in range(threads)
        ]

    def __enter__(self) -> Writers:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(STOP_SECONDS)
            assert not thread.is_alive(), "a writer hangs"

    def _write(self, n: int) -> None:
        with endpoint_store(self.url, self.table) as store:
            for i in itertools.count():
                if self._stop.is_set():
                    return
                key = f"{self.tag}w{n}-{i}"
                try:
                    store.put(("load", f"w{n}"), key, {"i": i})
                except Exception:
                    with self._progress:
                        self.refused += 1
                        self._progress.notify_all()
                    return  # refused, or the endpoint is gone: not acknowledged
                with self._progress:
                    self.acknowledged.append(key)
                    self._progress.notify_all()

    def wait_for(self, count: int) -> None:
        """Block until `count` puts were acknowledged (fails if every writer stopped)."""
        with self._progress:
            while len(self.acknowledged) < count:
                assert any(t.is_alive() for t in self._threads), "every writer stopped"
                self._progress.wait(STOP_SECONDS)


def saved_rows(state: Path, table: str) -> list[dict[str, Any]]:
    """The rows of `table` a state file holds (DynamoDB JSON)."""
    snapshot = json.loads(state.read_text())
    return [
        item
        for saved in snapshot["tables"]
        if saved["create"]["TableName"] == table
        for item in saved["items"]
    ]


def saved_keys(state: Path, table: str) -> set[str]:
    """The item keys of `table` a state file holds."""
    return {
        row["SK"]["S"].removeprefix("k#")
        for row in saved_rows(state, table)
        if row["SK"]["S"].startswith("k#")
    }
