"""The emulation's HTTP server: moto's app on werkzeug's threaded server, bound before the
constructor returns (a taken port raises at once), with a gate that drains requests so a
stop can save state that no acknowledged write is missing from."""

from __future__ import annotations

import json
import secrets
import socket
import threading
from collections.abc import Callable, Iterable
from typing import Any

from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import make_server

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]

_DRAINED = json.dumps(
    {
        "__type": "com.amazonaws.dynamodb.v20120810#ServiceUnavailable",
        "message": "The local endpoint is shutting down.",
    }
).encode()


class EndpointServer:
    """moto's WSGI app on `host:port` (port 0: a free one), served from a daemon thread.

    Raises `OSError` when the address cannot be bound (werkzeug would print and exit)."""

    def __init__(self, host: str, port: int) -> None:
        # Requests signed with this access key pass the gate after `drain()`: the owner's.
        self.owner_key = "local-endpoint-owner-" + secrets.token_hex(8)
        self._changed = threading.Condition()
        self._open = True
        self._in_flight = 0
        family, _, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.create_server(address[:2], family=family) as listener:
            self._server = make_server(
                host,
                listener.getsockname()[1],
                self._gated(DomainDispatcherApplication(create_backend_app)),
                threaded=True,
                request_handler=MotoRequestHandler,
                fd=listener.fileno(),  # werkzeug serves a duplicate of the bound socket
            )
        self._thread = threading.Thread(
            target=self._server.serve_forever, daemon=True, name="local-endpoint"
        )
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self._server.socket.getsockname()[:2]
        return f"http://{host}:{port}"

    def drain(self) -> None:
        """Refuse every later request but the owner's (503, retryable: never a success),
        then wait until every request already admitted has been applied."""
        with self._changed:
            self._open = False
            self._changed.wait_for(lambda: self._in_flight == 0)

    def stop(self) -> None:
        """Stop serving and release the port."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def _gated(self, app: WsgiApp) -> WsgiApp:
        owner = f"Credential={self.owner_key}/"

        def gated(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
            with self._changed:
                admitted = self._open or owner in environ.get("HTTP_AUTHORIZATION", "")
                self._in_flight += admitted
            if not admitted:
                start_response(
                    "503 Service Unavailable",
                    [
                        ("Content-Type", "application/x-amz-json-1.0"),
                        ("Content-Length", str(len(_DRAINED))),
                    ],
                )
                return [_DRAINED]
            try:
                return app(environ, start_response)
            finally:
                with self._changed:
                    self._in_flight -= 1
                    self._changed.notify_all()

        return gated
