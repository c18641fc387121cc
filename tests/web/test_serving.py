"""`pod-playground` served by gunicorn (webapp/serving.py), as a real process tree: the
arbiter and its workers.

- Socket.IO over WebSocket and over long polling, through gunicorn's threaded worker;
- SIGTERM drains: a request in flight (its body still arriving) is answered, every session
  is written, the tab is hung up, the process exits 0, and the next one resumes the
  session at the moment it was drained at;
- with several workers (and Redis), any worker answers any session, as before;
- the bounds on connections served at once (ConnectionBounds) answer JSON 503s in the
  visitor's language;
- with PLAYGROUND_LOG_FORMAT=json every line gunicorn and the app write is JSON.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import socketio

from tests.web.live import Served
from webapp.serving import ConnectionBounds

ROOT = Path(__file__).resolve().parents[2]
WAIT = 60.0


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    server = Served(tmp_path)
    yield server
    server.stop()


def next_event(client: socketio.SimpleClient, name: str) -> dict[str, Any]:
    while True:
        event, *args = client.receive(timeout=WAIT)
        if event == name:
            return dict(args[0])
        if event == "error":
            pytest.fail(f"error: {args}")


@pytest.mark.parametrize("transports", [["websocket"], ["polling"]])
def test_socketio_over_websocket_and_polling(served: Served, transports: list[str]) -> None:
    client = socketio.SimpleClient()
    client.connect(served.url, transports=transports)
    try:
        assert client.client.transport() == transports[0]
        client.emit("join", {"scenario": "crash-loop-backoff"})
        snapshot = next_event(client, "snapshot")
        client.emit("clock", {"op": "speed", "value": 10})
        client.emit("clock", {"op": "play"})
        while True:  # ticks arrive, and the run moves
            tick = next_event(client, "tick")
            if tick["now"] > snapshot["now"]:
                break
    finally:
        client.disconnect()


def test_the_page_and_its_assets_over_gunicorn(served: Served) -> None:
    import urllib.request

    with urllib.request.urlopen(served.url + "/", timeout=WAIT) as response:
        page = response.read().decode()
        assert response.status == 200
    asset = re.search(r'"(/assets/[^"]+\.[0-9a-f]{12}\.js)"', page)
    assert asset, "no hashed asset in the page"
    request = urllib.request.Request(served.url + asset.group(1), headers={"Accept-Encoding": "br"})
    with urllib.request.urlopen(request, timeout=WAIT) as response:
        assert response.headers["Content-Encoding"] == "br"
        assert "immutable" in response.headers["Cache-Control"]


def test_sigterm_finishes_a_request_in_flight_writes_every_session_and_resumes(
    tmp_path: Path,
) -> None:
    server = Served(tmp_path)
    tab = socketio.SimpleClient()
    try:
        tab.connect(server.url, transports=["websocket"])
        tab.emit("join", {"scenario": "crash-loop-backoff"})
        session = next_event(tab, "snapshot")["session"]
        tab.emit("clock", {"op": "seek", "value": 30})
        before = next_event(tab, "snapshot")
        # A share post whose body is still on its way when SIGTERM comes.
        body = json.dumps({"yaml": (ROOT / "scenarios" / "plain-pod.yaml").read_text()})
        raw = socket.create_connection(("127.0.0.1", server.port), timeout=WAIT)
        raw.sendall(
            b"POST /api/share HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body[:10].encode()
        )
        time.sleep(0.5)  # the request has reached a worker thread, which reads its body
        server.process.send_signal(signal.SIGTERM)
        server.wait_for(r"worker \d+ drained: 1 sessions written")
        raw.sendall(body[10:].encode())
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            chunk = raw.recv(65536)
            if not chunk:
                break
            answer += chunk
        raw.close()
        assert answer.startswith(b"HTTP/1.1 201"), answer[:200]
        link = json.loads(answer.split(b"\r\n\r\n", 1)[1])["id"]
        with contextlib.suppress(Exception):  # the drain hung the tab up
            while True:
                tab.receive(timeout=5)
        assert server.process.wait(WAIT) == 0
    finally:
        tab.disconnect()
        server.stop()

    again = Served(tmp_path)
    try:
        tab = socketio.SimpleClient()
        tab.connect(again.url, transports=["websocket"])
        tab.emit("join", {"session": session})
        resumed = next_event(tab, "snapshot")
        assert resumed["session"] == session
        assert resumed["now"] == before["now"] == 30
        tab.emit("join", {"share": link})  # the link posted during the drain was kept
        assert next_event(tab, "snapshot")["session"] != session
        tab.disconnect()
    finally:
        again.stop()


def test_any_of_several_workers_answers_any_session(tmp_path: Path) -> None:
    import redis as redis_client

    from tests.integration.stack import Redis, need_binaries

    need_binaries()
    redis = Redis(tmp_path / "redis")
    server = Served(tmp_path, "--workers", "2", "--redis", redis.url)
    first, second = server.workers(2)
    try:
        # With the second worker frozen, the kernel hands the connection to the first.
        os.kill(second, signal.SIGSTOP)
        try:
            tab = socketio.SimpleClient()
            tab.connect(server.url, transports=["websocket"])
            tab.emit("join", {"scenario": "crash-loop-backoff"})
            session = next_event(tab, "snapshot")["session"]
            tab.emit("clock", {"op": "seek", "value": 20})
            before = next_event(tab, "snapshot")
            tab.disconnect()
            # The first worker writes the session's record within a second of a change.
            records = redis_client.Redis.from_url(redis.url)
            deadline = time.monotonic() + WAIT
            while time.monotonic() < deadline:
                head = records.hget(f"playground:session:{session}", "head")
                if head is not None and json.loads(head)["now"] == 20:
                    break
                time.sleep(0.05)
            records.close()
        finally:
            os.kill(second, signal.SIGCONT)
        # Now the first is frozen: the second takes the session over (the first's lease
        # runs out, as after a crash) and the tab goes on at the same moment.
        os.kill(first, signal.SIGSTOP)
        try:
            tab = socketio.SimpleClient()
            tab.connect(server.url, transports=["websocket"])
            tab.emit("join", {"session": session})
            resumed = next_event(tab, "snapshot")
            assert resumed["session"] == session
            # Rebuilt from its record: a seek in slices to the recorded moment.
            while resumed.get("seeking") is not None:
                resumed = {**resumed, **next_event(tab, "tick")}
            assert resumed["now"] == before["now"] == 20
            assert resumed["actions"] == before["actions"]
            tab.disconnect()
        finally:
            os.kill(first, signal.SIGCONT)
        # Long polling would need every request of a connection on one worker: refused.
        polling = socketio.SimpleClient()
        with pytest.raises(socketio.exceptions.ConnectionError):
            polling.connect(server.url, transports=["polling"], wait_timeout=10)
    finally:
        assert server.stop() == 0
        redis.stop()


def test_json_logs_are_json_lines_from_gunicorn_too(tmp_path: Path) -> None:
    import urllib.request

    server = Served(tmp_path, env={"PLAYGROUND_LOG_FORMAT": "json"})
    with urllib.request.urlopen(server.url + "/healthz", timeout=WAIT) as response:
        assert response.status == 200
    assert server.stop() == 0
    lines = [line for line in server.stderr_path.read_text().splitlines() if line.strip()]
    assert lines, "nothing logged"
    for line in lines:
        assert isinstance(json.loads(line), dict), line


# -- ConnectionBounds, in process ---------------------------------------------------------


def _environ(peer: str, lang: str = "en") -> dict[str, Any]:
    return {"REMOTE_ADDR": peer, "HTTP_ACCEPT_LANGUAGE": lang}


def test_connection_bounds_per_client_and_in_all() -> None:
    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        start_response("200 OK", [])
        return [b"ok"]

    bounds = ConnectionBounds(
        app, max_connections=3, max_per_client=2, client_of=lambda e: e["REMOTE_ADDR"]
    )
    statuses: list[str] = []

    def start_response(status: str, headers: list[tuple[str, str]]) -> None:
        statuses.append(status)

    held = [bounds(_environ("10.0.0.1"), start_response) for _ in range(2)]
    refused = bounds(_environ("10.0.0.1", "zh-CN"), start_response)
    assert statuses[-1] == "503 Service Unavailable"
    assert json.loads(b"".join(refused)) == {
        "code": "too_many_connections",
        "message": "服务器的连接数已经满了。请过几秒再试。",
    }
    held.append(bounds(_environ("10.0.0.2"), start_response))  # another client: served
    assert statuses[-1] == "200 OK" and bounds.served == 3
    bounds(_environ("10.0.0.3"), start_response)  # all three slots are taken
    assert statuses[-1] == "503 Service Unavailable"
    for response in held:
        response.close()
    assert bounds.served == 0
    bounds(_environ("10.0.0.1"), start_response).close()
    assert statuses[-1] == "200 OK"
