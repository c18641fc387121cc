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
    app = create_app({"TESTING": True, "PLAYGROUND_DB": str(tmp_path / "links.sqlite3"), **config})
    server = make_playground_server("127.0.0.1", 0, app)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield app, f"http://127.0.0.1:{server.server_port}"
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
