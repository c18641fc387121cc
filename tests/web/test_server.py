"""The HTTP server's bounds (issue 12 item 10): a request gets a thread only once it has
arrived, half-open requests time out, and connections are capped per client and in all;
a WebSocket costs three threads. Real sockets against the server `pod-playground` runs
(webapp/server.py), started in the test process so its threads can be counted."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.web.fake_engine import FakeSimulation
from tests.web.live import WAIT, Tab, serve_with_server
from webapp.server import Pinger

HALF_OPEN = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


def connect_from(port: int, source: str) -> socket.socket:
    """A TCP connection to the server from loopback address `source` (127.x.y.z)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.settimeout(WAIT)
    sock.connect(("127.0.0.1", port))
    return sock


@contextlib.contextmanager
def half_open(port: int, count: int, source: str | None = None) -> Iterator[list[socket.socket]]:
    """`count` connections that send the start of a request and never finish it, each from
    its own address (or all from `source`)."""
    sockets = []
    try:
        for i in range(count):
            sock = connect_from(port, source or f"127.0.{1 + i // 250}.{2 + i % 250}")
            sock.sendall(HALF_OPEN)
            sockets.append(sock)
        yield sockets
    finally:
        for sock in sockets:
            sock.close()


def until(condition: Any) -> Any:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if value := condition():
            return value
        time.sleep(0.02)
    raise AssertionError("condition not reached")


def answer(sock: socket.socket) -> tuple[int, dict[str, Any]]:
    """Read a whole HTTP response the server sent before closing: (status, JSON body)."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def healthz(port: int, source: str = "127.0.0.1") -> int:
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=WAIT, source_address=(source, 0)
    )
    try:
        connection.request("GET", "/healthz")
        return connection.getresponse().status
    finally:
        connection.close()


def test_half_open_requests_hold_no_thread_and_nobody_waits_for_them(tmp_path: Path) -> None:
    with serve_with_server(tmp_path, SESSION_ENGINE=FakeSimulation) as (_, url, server):
        port = server.server_port
        assert healthz(port) == 200
        baseline = threading.active_count()
        with half_open(port, 300):
            until(lambda: len(server.gate) == 300)
            assert threading.active_count() <= baseline + 2
            assert healthz(port) == 200  # answered at once, next to them
            player = Tab(url)
            try:
                player.client.emit("join", {"yaml": "x"})  # an error is an answer too
                assert player.next("error")["code"] == "invalid_scenario"
            finally:
                player.close()


def test_a_request_that_does_not_arrive_in_time_is_answered_408_and_closed(
    tmp_path: Path,
) -> None:
    with serve_with_server(tmp_path, SERVER_REQUEST_TIMEOUT_SECONDS=0.5) as (_, _url, server):
        with half_open(server.server_port, 3) as sockets:
            for sock in sockets:
                status, body = answer(sock)
                assert status == 408 and body["code"] == "request_timeout"
        until(lambda: len(server.gate) == 0)


def test_a_head_that_never_ends_is_refused_431(tmp_path: Path) -> None:
    with serve_with_server(tmp_path) as (_, _url, server):
        sock = connect_from(server.server_port, "127.0.0.1")
        try:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n" + b"X-Pad: " + b"a" * 20_000)
            status, body = answer(sock)
            assert status == 431 and body["code"] == "request_head_too_large"
        finally:
            sock.close()


def test_one_address_cannot_fill_the_waiting_room(tmp_path: Path) -> None:
    with serve_with_server(tmp_path, SERVER_MAX_PENDING_PER_CLIENT=5) as (_, _url, server):
        port = server.server_port
        with half_open(port, 5, source="127.0.0.7"):
            until(lambda: len(server.gate) == 5)
            extra = connect_from(port, "127.0.0.7")
            try:
                status, body = answer(extra)
                assert status == 503 and body["code"] == "too_many_connections"
            finally:
                extra.close()
            assert healthz(port, source="127.0.0.8") == 200


def raw_websocket(port: int, source: str) -> socket.socket:
    """A WebSocket opened by hand from `source`, held open (engine.io answers 101)."""
    sock = connect_from(port, source)
    sock.sendall(
        b"GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Upgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    head = b""
    while b"\r\n\r\n" not in head and (chunk := sock.recv(4096)):
        head += chunk  # a loaded machine may deliver the answer in pieces
    assert head.startswith(b"HTTP/1.1 101"), head[:200]
    return sock


def status_of(port: int, source: str) -> tuple[int, dict[str, Any]]:
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=WAIT, source_address=(source, 0)
    )
    try:
        connection.request("GET", "/healthz", headers={"Accept-Language": "zh-CN"})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def test_connections_served_at_once_are_capped_per_client_and_in_all(tmp_path: Path) -> None:
    config = {
        "SESSION_ENGINE": FakeSimulation,
        "SERVER_MAX_CONNECTIONS_PER_CLIENT": 2,
        "SERVER_MAX_CONNECTIONS": 3,
    }
    with serve_with_server(tmp_path, **config) as (_, _url, server):
        port = server.server_port
        held = [raw_websocket(port, "127.0.0.5") for _ in range(2)]
        try:
            until(lambda: server.served == 2)
            status, body = status_of(port, "127.0.0.5")  # a third from the same client
            assert status == 503 and body["code"] == "too_many_connections"
            assert "服务器" in body["message"]
            assert status_of(port, "127.0.0.6")[0] == 200  # another client: room left
            until(lambda: server.served == 2)  # that request's connection has been let go
            held.append(raw_websocket(port, "127.0.0.6"))
            until(lambda: server.served == 3)
            assert status_of(port, "127.0.0.7")[0] == 503  # the server is full
        finally:
            for sock in held:
                sock.close()
        until(lambda: server.served == 0)
        assert status_of(port, "127.0.0.7")[0] == 200


# Per connection; engine.io's one shared ping thread ("(_send_ping)") and the server's one
# "request-gate" thread are per process and may start at any moment, so they are not counted.
SERVER_THREADS = ("simple_websocket", "(writer)")


def server_threads() -> set[int]:
    """Threads of the server's connections (the test's own Socket.IO clients, in the same
    process, have others: _read_loop_websocket, _write_loop)."""
    return {
        t.ident or 0
        for t in threading.enumerate()
        if t.name == "request" or any(n in t.name for n in SERVER_THREADS)
    }


def test_a_websocket_costs_three_threads(tmp_path: Path) -> None:
    with serve_with_server(tmp_path, SESSION_ENGINE=FakeSimulation) as (_, url, server):
        tabs: list[Tab] = []
        try:
            before = server_threads()  # threads of earlier tests may still be ending
            tabs = [Tab(url) for _ in range(5)]
            until(lambda: server.served == 5)
            # request, reader, writer: wait until all have started, then check none more do
            until(lambda: len(server_threads() - before) >= 3 * 5)
            time.sleep(0.2)
            assert len(server_threads() - before) == 3 * 5
        finally:
            for tab in tabs:
                tab.close()


def test_shared_pings_keep_connections_alive(tmp_path: Path) -> None:
    with serve_with_server(tmp_path, SESSION_ENGINE=FakeSimulation) as (app, url, _):
        eio = app.extensions["socketio"].server.eio
        eio.ping_interval, eio.ping_timeout = 1, 1  # a client that missed pings leaves in 2 s
        tab = Tab(url)
        try:
            time.sleep(4.5)
            assert tab.client.connected
            tab.client.emit("join", {})
            assert tab.next("snapshot")["session"]
        finally:
            tab.close()


def test_the_pinger_pings_each_open_connection_once_per_interval() -> None:
    from engineio import packet

    class Socket:
        def __init__(self, closed: bool = False) -> None:
            self.server = type("Server", (), {"ping_interval": 0.05})()
            self.closing = False
            self.closed = closed
            self.sent: list[Any] = []
            self.last_ping = None

        def send(self, pkt: Any) -> None:
            self.sent.append(pkt)

    pinger = Pinger()
    try:
        open_, closed = Socket(), Socket(closed=True)
        pinger.schedule(open_)
        pinger.schedule(closed)
        until(lambda: open_.sent)
        time.sleep(0.2)
        assert [p.packet_type for p in open_.sent] == [packet.PING]  # once: next after PONG
        assert open_.last_ping is not None and closed.sent == []
    finally:
        pinger.stop()
