"""A playground server of one's own for a test: a given config, on a free loopback port,
served in a thread of the test process (so that a test can look into the app) by
Werkzeug's threaded server, with the connection bounds `pod-playground` serves with
(webapp/serving.py `bound`; gunicorn itself, a process tree, is tests/web/test_serving.py's).
Also a Socket.IO tab that queues what it receives. Waits have generous timeouts that only
stop a hung test."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import socketio
from flask import Flask
from werkzeug.serving import make_server

from webapp import create_app
from webapp.serving import bound

WAIT = 20.0
ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def serve(tmp_path: Path, **config: Any) -> Iterator[tuple[Flask, str]]:
    with serve_with_server(tmp_path, **config) as (app, url, _):
        yield app, url


@contextmanager
def serve_with_server(tmp_path: Path, **config: Any) -> Iterator[tuple[Flask, str, Any]]:
    app = create_app({"TESTING": True, "PLAYGROUND_DB": str(tmp_path / "links.sqlite3"), **config})
    bound(app)
    server = make_server("127.0.0.1", 0, app, threaded=True)
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


class Served:
    """`python -m webapp --port 0 [args]` (gunicorn, webapp/serving.py) as a process tree:
    its URL, its workers' pids, its stdout lines."""

    def __init__(self, folder: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.lines: list[str] = []
        self.changed = threading.Condition()
        self.stderr_path = folder / f"server-{time.monotonic_ns()}.err"
        self._stderr = open(self.stderr_path, "w")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "webapp", "--port", "0", *args],
            cwd=ROOT,
            env={
                **os.environ,
                "PYTHONUNBUFFERED": "1",
                "PLAYGROUND_DB": str(folder / "playground.sqlite3"),
                **(env or {}),
            },
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()
        url = self.wait_for(r"(http://127\.0\.0\.1:\d+)/")
        self.url = url.group(1)
        self.port = int(self.url.rsplit(":", 1)[1])

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self.changed:
                self.lines.append(line.rstrip("\n"))
                self.changed.notify_all()
        with self.changed:
            self.changed.notify_all()

    def wait_for(self, pattern: str, count: int = 1) -> re.Match[str]:
        deadline = time.monotonic() + 3 * WAIT
        with self.changed:
            while True:
                found = [m for line in self.lines if (m := re.search(pattern, line))]
                if len(found) >= count:
                    return found[count - 1]
                if time.monotonic() > deadline or (
                    self.process.poll() is not None and not self._unread()
                ):
                    raise AssertionError(
                        f"no {pattern!r} in {self.lines}\n{self.stderr_path.read_text()}"
                    )
                self.changed.wait(0.2)

    def _unread(self) -> bool:
        return bool(self.process.stdout and not self.process.stdout.closed)

    def workers(self, count: int) -> list[int]:
        self.wait_for(r"worker (\d+) ready", count)
        return [
            int(m.group(1)) for line in self.lines if (m := re.search(r"worker (\d+) ready", line))
        ]

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(3 * WAIT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self._stderr.close()
        return self.process.returncode
