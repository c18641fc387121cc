"""HTTP keep-alive on our server (webapp/http_keepalive.py, webapp/server.py): plain
requests share a connection, an idle connection waits in the gate without a thread and is
closed after SERVER_KEEPALIVE_SECONDS, and anything that cannot stay open is closed."""

from __future__ import annotations

import http.client
import math
import socket
import threading
from pathlib import Path

import pytest

from tests.web.fake_engine import FakeSimulation
from tests.web.live import WAIT, serve_with_server
from tests.web.test_server import until
from webapp.server import PlaygroundServer, ServerLimits, keepalive_seconds


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


_leftover: dict[int, bytes] = {}


def _read_response(sock: socket.socket) -> tuple[bytes, bytes]:
    """One response with a Content-Length: (head, body). What arrived after it (the next
    pipelined response) is kept for the next call."""
    data = _leftover.pop(sock.fileno(), b"")
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length")
    )
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk, body
        body += chunk
    if len(body) > length:
        _leftover[sock.fileno()] = body[length:]
    return head, body[:length]


def test_requests_share_one_connection_that_waits_without_a_thread(tmp_path: Path) -> None:
    with serve_with_server(tmp_path, SESSION_ENGINE=FakeSimulation) as (_, url, server):
        connection = http.client.HTTPConnection("127.0.0.1", _port(url), timeout=WAIT)
        connection.request("GET", "/healthz")
        response = connection.getresponse()
        assert response.read() == b'{"status":"ok"}\n'
        assert response.headers["Connection"] == "keep-alive"
        assert response.headers["Keep-Alive"] == "timeout=15"
        sock = connection.sock
        assert sock is not None
        # Between requests the connection waits in the gate; no request thread holds it.
        # (The thread that served it may take a moment to end after handing it back.)
        until(
            lambda: (
                len(server.gate) == 1
                and server.served == 0
                and not [t for t in threading.enumerate() if t.name == "request"]
            )
        )
        (waiting,) = server.gate._waiting.values()
        assert waiting.idle
        assert waiting.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
        for path in ("/api/scenarios", "/", "/healthz"):
            connection.request("GET", path)
            again = connection.getresponse()
            again.read()
            assert again.status == 200, path
            assert connection.sock is sock, "the same TCP connection"
        connection.close()
        until(lambda: len(server.gate) == 0)


def test_an_idle_connection_is_closed_after_the_keepalive_time(tmp_path: Path) -> None:
    config = {"SESSION_ENGINE": FakeSimulation, "SERVER_KEEPALIVE_SECONDS": 0.3}
    with serve_with_server(tmp_path, **config) as (_, url, server):
        sock = socket.create_connection(("127.0.0.1", _port(url)), timeout=WAIT)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        head, _ = _read_response(sock)
        assert b"Keep-Alive: timeout=0" in head
        assert sock.recv(1) == b"", "closed silently (no 408) once idle too long"
        until(lambda: len(server.gate) == 0)
        sock.close()


def test_an_unread_body_is_drained_and_pipelined_requests_are_answered(tmp_path: Path) -> None:
    with serve_with_server(tmp_path, SESSION_ENGINE=FakeSimulation) as (_, url, _server):
        sock = socket.create_connection(("127.0.0.1", _port(url)), timeout=WAIT)
        body = b"x" * 5000  # /healthz takes no POST: the body is never read by the app
        sock.sendall(
            b"POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
        )
        head, _ = _read_response(sock)
        assert head.startswith(b"HTTP/1.1 405")
        assert b"Connection: keep-alive" in head
        # Two requests in one write: both answered, in order, on this connection.
        sock.sendall(
            b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /nothing HTTP/1.1\r\nHost: x\r\n\r\n"
        )
        assert _read_response(sock)[0].startswith(b"HTTP/1.1 200")
        assert _read_response(sock)[0].startswith(b"HTTP/1.1 404")
        sock.close()


@pytest.mark.parametrize(
    ("request_bytes", "config"),
    [
        (b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", {}),
        (b"GET /healthz HTTP/1.0\r\n\r\n", {}),
        (b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", {"SERVER_KEEPALIVE_SECONDS": 0}),
        (
            b"POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 200000\r\n\r\n" + b"x" * 200000,
            {},
        ),
    ],
    ids=["client-close", "http-1.0", "keepalive-off", "large-unread-body"],
)
def test_connections_that_cannot_stay_open_are_closed(
    tmp_path: Path, request_bytes: bytes, config: dict[str, float]
) -> None:
    with serve_with_server(tmp_path, SESSION_ENGINE=FakeSimulation, **config) as (_, url, server):
        sock = socket.create_connection(("127.0.0.1", _port(url)), timeout=WAIT)
        sock.sendall(request_bytes)
        head, _ = _read_response(sock)
        assert b"Connection: close" in head
        assert sock.recv(1) == b""
        assert len(server.gate) == 0
        sock.close()


@pytest.mark.parametrize("value", [-1, 301, math.nan, "soon"])
def test_the_keepalive_setting_is_bounded(value: object) -> None:
    with pytest.raises(ValueError):
        keepalive_seconds(value)
    assert keepalive_seconds(300) == 300.0
    assert keepalive_seconds("0") == 0.0
    with pytest.raises(ValueError):
        ServerLimits.from_config(
            {
                "SERVER_REQUEST_TIMEOUT_SECONDS": 10,
                "SERVER_MAX_PENDING": 1,
                "SERVER_MAX_PENDING_PER_CLIENT": 1,
                "SERVER_MAX_CONNECTIONS": 1,
                "SERVER_MAX_CONNECTIONS_PER_CLIENT": 1,
                "SERVER_KEEPALIVE_SECONDS": value,
            }
        )


def _raw_server(app: object) -> tuple[PlaygroundServer, threading.Thread]:
    limits = ServerLimits(request_timeout=5.0, keepalive=15.0)
    server = PlaygroundServer("127.0.0.1", 0, app, limits)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, thread


def test_unsized_bodies_are_chunked_and_a_crash_closes_the_connection() -> None:
    def app(environ: dict[str, object], start_response: object) -> list[bytes]:
        if environ["PATH_INFO"] == "/boom":
            raise RuntimeError("boom")
        start_response("200 OK", [("Content-Type", "text/plain")])  # type: ignore[operator]
        return [b"hello ", b"world"]

    server, _ = _raw_server(app)
    try:
        sock = socket.create_connection(("127.0.0.1", server.server_port), timeout=WAIT)
        sock.sendall(b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
        data = b""
        while not data.endswith(b"0\r\n\r\n"):
            chunk = sock.recv(65536)
            assert chunk, data
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        assert b"Transfer-Encoding: chunked" in head
        assert b"Connection: keep-alive" in head
        assert body == b"6\r\nhello \r\n5\r\nworld\r\n0\r\n\r\n"
        sock.sendall(b"GET /boom HTTP/1.1\r\nHost: x\r\n\r\n")
        head, _ = _read_response(sock)
        assert head.startswith(b"HTTP/1.1 500")
        assert sock.recv(1) == b"", "a crashed request's connection is not kept"
        sock.close()
    finally:
        server.shutdown()
        server.server_close()
