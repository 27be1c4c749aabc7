"""A replaying DynamoDB endpoint: the service as a client sees it, without the emulator's
CPU on the clock.

The proxy runs in its own process in front of the local endpoint. In `record` mode it
forwards each request and keeps the emulator's answer, keyed by the operation and the
request body (timestamps masked, so a request repeated a second later matches). In
`replay` mode it answers a recorded request itself after `latency` seconds of
`asyncio.sleep`: every request in flight waits concurrently, as on a network, and the
proxy spends well under a millisecond of CPU on each. A request never recorded is
forwarded (and counted as a miss), so an answer is always the emulator's. In `forward`
mode (the default) it only forwards.

Control: `POST /__replay` with `{"mode": ..., "latency": seconds}` sets the mode and
answers the hit and miss counts since the previous switch.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

CONTROL = "/__replay"
# ISO-8601 instants and epoch seconds (2020-2049): the parts of a request that name "now".
_INSTANT = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?")
_EPOCH = re.compile(rb"(?<![\d.])1[6-9]\d{8}(?:\.\d+)?(?![\d.])")
_KEEP = {b"content-type", b"x-amz-crc32", b"x-amzn-requestid"}


def request_key(target: bytes, body: bytes) -> bytes:
    """What identifies a request for replay: its operation and body, instants masked."""
    return target + b"\n" + _EPOCH.sub(b"<epoch>", _INSTANT.sub(b"<instant>", body))


@dataclass
class Answer:
    status: bytes
    headers: list[tuple[bytes, bytes]]
    body: bytes


@dataclass
class Proxy:
    upstream: tuple[str, int]
    mode: str = "forward"
    latency: float = 0.0
    recorded: dict[bytes, Answer] = field(default_factory=dict)
    hits: int = 0
    misses: int = 0

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while request := await _read_request(reader):
                path, headers, body = request
                if path == CONTROL:
                    answer = self.control(json.loads(body))
                else:
                    answer = await self.answer(headers, body)
                writer.write(_encode(answer))
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # the client hung up, or the proxy is shutting down
        finally:
            writer.close()

    def control(self, command: dict[str, Any]) -> Answer:
        counts = json.dumps({"hits": self.hits, "misses": self.misses}).encode()
        self.mode = command["mode"]
        self.latency = float(command.get("latency", 0.0))
        self.hits = self.misses = 0
        return Answer(b"200 OK", [(b"content-type", b"application/json")], counts)

    async def answer(self, headers: dict[bytes, bytes], body: bytes) -> Answer:
        key = request_key(headers.get(b"x-amz-target", b""), body)
        if self.mode == "replay":
            await asyncio.sleep(self.latency)
            if (recorded := self.recorded.get(key)) is not None:
                self.hits += 1
                return recorded
            self.misses += 1
        answer = await self.forward(headers, body)
        if self.mode == "record":
            self.recorded[key] = answer
        return answer

    async def forward(self, headers: dict[bytes, bytes], body: bytes) -> Answer:
        reader, writer = await asyncio.open_connection(*self.upstream)
        head = b"".join(
            name + b": " + value + b"\r\n"
            for name, value in headers.items()
            if name not in (b"connection", b"content-length")
        )
        writer.write(
            b"POST / HTTP/1.1\r\n"
            + head
            + b"content-length: %d\r\n" % len(body)
            + b"connection: close\r\n\r\n"
            + body
        )
        await writer.drain()
        status_line = await reader.readline()
        response_headers = await _read_headers(reader)
        length = int(response_headers.get(b"content-length", b"0"))
        response_body = await reader.readexactly(length)
        writer.close()
        kept = [(name, value) for name, value in response_headers.items() if name in _KEEP]
        return Answer(status_line.split(b" ", 1)[1].strip(), kept, response_body)


async def _read_headers(reader: asyncio.StreamReader) -> dict[bytes, bytes]:
    headers: dict[bytes, bytes] = {}
    while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
        name, _, value = line.partition(b":")
        headers[name.strip().lower()] = value.strip()
    return headers


async def _read_request(
    reader: asyncio.StreamReader,
) -> tuple[str, dict[bytes, bytes], bytes] | None:
    request_line = await reader.readline()
    if not request_line:
        return None
    headers = await _read_headers(reader)
    body = await reader.readexactly(int(headers.get(b"content-length", b"0")))
    return request_line.split(b" ")[1].decode(), headers, body


def _encode(answer: Answer) -> bytes:
    head = b"".join(name + b": " + value + b"\r\n" for name, value in answer.headers)
    return (
        b"HTTP/1.1 "
        + answer.status
        + b"\r\n"
        + head
        + b"content-length: %d\r\n\r\n" % len(answer.body)
        + answer.body
    )


async def _main(upstream: str) -> None:
    parts = urlsplit(upstream)
    proxy = Proxy((parts.hostname or "127.0.0.1", parts.port or 80))
    server = await asyncio.start_server(proxy.serve, "127.0.0.1", 0, backlog=1024)
    host, port = server.sockets[0].getsockname()[:2]
    print(f"http://{host}:{port}", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)


class ReplayEndpoint:
    """The proxy process and its control."""

    def __init__(self, url: str) -> None:
        self.url = url

    def switch(self, mode: str, latency: float = 0.0) -> dict[str, int]:
        """Set the mode; the hit and miss counts of the mode being left."""
        request = urllib.request.Request(
            self.url + CONTROL, data=json.dumps({"mode": mode, "latency": latency}).encode()
        )
        with urllib.request.urlopen(request) as response:
            counts: dict[str, int] = json.loads(response.read())
        return counts


@contextmanager
def replay_endpoint(upstream: str) -> Iterator[ReplayEndpoint]:
    """Run the proxy in front of `upstream` in another process."""
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.replay", upstream],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdin is not None
    try:
        yield ReplayEndpoint(process.stdout.readline().strip())
    finally:
        process.stdin.close()
        process.wait(30)


if __name__ == "__main__":
    asyncio.run(_main(sys.argv[1]))
