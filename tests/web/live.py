"""A playground server of one's own for a test: a given config, on a free loopback port,
served in a thread by the same Werkzeug server `pod-playground` uses. Also a Socket.IO tab
that queues what it receives. Waits have generous timeouts that only stop a hung test."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import socketio
from flask import Flask

from webapp import create_app
from webapp.cli import make_playground_server

WAIT = 20.0


@contextmanager
def serve(tmp_path: Path, **config: Any) -> Iterator[tuple[Flask, str]]:
    with serve_with_server(tmp_path, **config) as (app, url, _):
        yield app, url


@contextmanager
def serve_with_server(tmp_path: Path, **config: Any) -> Iterator[tuple[Flask, str, Any]]:
    app = create_app({"TESTING": True, "PLAYGROUND_DB": str(tmp_path / "links.sqlite3"), **config})
    server = make_playground_server("127.0.0.1", 0, app)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield app, f"http://127.0.0.1:{server.server_port}", server
    finally:
        from webapp.realtime import realtime_of

        realtime_of(app).scheduler.stop()
        server.shutdown()
        server.server_close()


class Tab:
    """A python-socketio client that queues every snapshot, tick and error it receives."""

    def __init__(self, url: str, **connect: Any) -> None:
        self.messages: queue.Queue[tuple[str, dict[str, Any]]] = queue.Queue()
        self.client = socketio.Client(reconnection=False)
        for name in ("snapshot", "tick", "error"):
            self.client.on(name, self._keep(name))
        self.client.connect(url, transports=["websocket"], **connect)

    def _keep(self, name: str) -> Any:
        def handler(payload: dict[str, Any]) -> None:
            self.messages.put((name, payload))

        return handler

    def next(self, name: str | None = None) -> dict[str, Any]:
        """The next message, which must be a `name` event (any event when None)."""
        got, payload = self.messages.get(timeout=WAIT)
        assert name is None or got == name, (got, payload)
        return payload

    def next_of(self, name: str) -> dict[str, Any]:
        """The next `name` event, skipping others."""
        while True:
            got, payload = self.messages.get(timeout=WAIT)
            if got == name:
                return payload

    def until(self, predicate: Any) -> list[dict[str, Any]]:
        """Ticks up to and including the first one for which `predicate` holds."""
        ticks = []
        while True:
            ticks.append(self.next_of("tick"))
            if predicate(ticks[-1]):
                return ticks

    def close(self) -> None:
        if self.client.connected:
            self.client.disconnect()


class RawTab:
    """A Socket.IO client spoken by hand over websocket-client, which reads only when told
    to: with a tiny receive buffer, a tab that stops reading is a silent client."""

    def __init__(self, url: str, *, receive_buffer: int = 4096) -> None:
        import socket

        import websocket

        port = url.rsplit(":", 1)[1]
        self.ws = websocket.create_connection(
            f"ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket",
            origin=f"http://127.0.0.1:{port}",
            timeout=WAIT,
            skip_utf8_validation=True,
            sockopt=[(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)],
        )
        self.ws.recv()  # Engine.IO open packet
        self.ws.send("40")  # Socket.IO connect, default namespace
        while not self.ws.recv().startswith("40"):
            pass

    def emit(self, event: str, payload: Any) -> None:
        import json

        self.ws.send("42" + json.dumps([event, payload]))

    def receive(self) -> tuple[str, Any] | None:
        """The next Socket.IO event `(name, payload)`; None once the server closed."""
        import json

        import websocket

        while True:
            try:
                text = self.ws.recv()
            except (OSError, websocket.WebSocketException):
                return None
            if not text:
                return None
            if text == "2":
                self.ws.send("3")  # Engine.IO pong
            elif text.startswith("42"):
                name, payload = json.loads(text[2:])
                return name, payload

    def close(self) -> None:
        import contextlib

        with contextlib.suppress(Exception):
            self.ws.close()
