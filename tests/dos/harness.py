"""A real server process, a legitimate player, and cheap attackers (tests/dos, bench/).

- `LiveServer`: `python -m webapp --port 0` with a temporary database, its stderr in a file,
  a memory ceiling (RLIMIT_AS) and a watchdog that kills it past a hard RSS cap, so that a
  failing run cannot take the shared machine down. Reads VmRSS and Threads from /proc.
- `Player`: a python-socketio client in a process of its own (tests/dos/player.py) that
  plays a built-in scenario and records when each `tick` arrives; `max_gap(start, end)`
  is the longest wait between two updates.
- `RawClient`: Engine.IO 4 / Socket.IO 5 over a WebSocket (websocket-client for the
  handshake), optionally from another loopback address (127.0.0.2 ...) so the server sees
  another client, with a thread that drains what the server sends without parsing it
  (looking only for `internal_error`), or no reader at all (a silent client).
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import json
import os
import re
import resource
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import websocket

ROOT = Path(__file__).resolve().parents[2]
# Ceilings for our own runs, not assertions: a server past them is killed.
HARD_RSS_MB = 1500
FRONTS = ("bare", "nginx")
ADDRESS_SPACE_GB = 12


def _limits(address_space_gb: int) -> Any:
    def apply() -> None:  # pragma: no cover - runs in the child
        limit = address_space_gb << 30
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        with contextlib.suppress(Exception):  # die with the test process (Linux)
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG

    return apply


class LiveServer:
    """The playground as a real process on a free loopback port: `pod-playground` itself
    (`front="bare"`: gunicorn, webapp/serving.py), or behind nginx with deploy/nginx.conf
    (`front="nginx"`, tests/integration/stack.py), where `url` and `port` are nginx's and
    `upstream_port` the playground's. /proc figures (RSS, threads, CPU) are the serving
    worker's, not gunicorn's arbiter's."""

    def __init__(
        self,
        env: dict[str, str] | None = None,
        directory: Path | None = None,
        address_space_gb: int = ADDRESS_SPACE_GB,
        front: str = "bare",
    ):
        assert front in FRONTS, front
        self.front = front
        self._tmp = None if directory else tempfile.TemporaryDirectory(prefix="dos-")
        self.directory = Path(directory or self._tmp.name)  # type: ignore[union-attr]
        self.stderr_path = self.directory / "server.err"
        self._stderr = open(self.stderr_path, "w")  # noqa: SIM115 - closed in stop()
        self.nginx: Any = None
        self.process = subprocess.Popen(
            [sys.executable, "-m", "webapp", "--port", "0"],
            cwd=ROOT,
            env={
                **os.environ,
                "PLAYGROUND_DB": str(self.directory / "links.sqlite3"),
                "PYTHONUNBUFFERED": "1",
                # nginx's address, as the playground sees it (deploy/nginx.conf)
                **({"PLAYGROUND_TRUSTED_PROXIES": "127.0.0.1"} if front == "nginx" else {}),
                **(env or {}),
            },
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            preexec_fn=_limits(address_space_gb),
        )
        assert self.process.stdout is not None
        line = self._line()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not match:
            self.stop()
            raise RuntimeError(f"the server printed no URL: {line!r}\n{self.stderr()}")
        self.upstream_port = int(match.group(1))
        self.pid = self.process.pid
        line = self._line()
        worker = re.search(r"worker (\d+) ready", line)
        if not worker:
            self.stop()
            raise RuntimeError(f"no worker started: {line!r}\n{self.stderr()}")
        self.pid = int(worker.group(1))
        self.port = self.upstream_port
        if front == "nginx":
            from tests.integration.stack import Nginx, need_binaries

            need_binaries()
            self.nginx = Nginx(self.directory / "nginx", self.upstream_port)
            self.port = self.nginx.port
        self.url = f"http://127.0.0.1:{self.port}"
        self.peak_rss_mb = 0.0
        self.killed_for_memory = False
        self._watching = True
        self._watchdog = threading.Thread(target=self._watch, daemon=True)
        self._watchdog.start()

    def _line(self) -> str:
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], 60)
        return self.process.stdout.readline() if ready else ""

    # -- /proc -----------------------------------------------------------------------------

    def _status(self, field: str) -> int:
        try:
            text = Path(f"/proc/{self.pid}/status").read_text()
        except OSError:
            return 0
        match = re.search(rf"^{field}:\s+(\d+)", text, re.M)
        return int(match.group(1)) if match else 0

    def rss_mb(self) -> float:
        return self._status("VmRSS") / 1024

    def threads(self) -> int:
        return self._status("Threads")

    def cpu_seconds(self) -> float:
        try:
            stat = Path(f"/proc/{self.pid}/stat").read_text()
        except OSError:
            return 0.0
        fields = stat[stat.rindex(")") + 2 :].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def _watch(self) -> None:
        while self._watching and self.process.poll() is None:
            rss = self.rss_mb()
            self.peak_rss_mb = max(self.peak_rss_mb, rss)
            if rss > HARD_RSS_MB:
                self.killed_for_memory = True
                self.process.send_signal(signal.SIGKILL)
                with contextlib.suppress(OSError):
                    os.kill(self.pid, signal.SIGKILL)
                return
            time.sleep(0.05)

    # -- the end ---------------------------------------------------------------------------

    def stderr(self) -> str:
        try:
            return self.stderr_path.read_text(errors="replace")
        except OSError:
            return ""

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        self._watching = False
        if self.nginx is not None:
            self.nginx.stop()
            self.nginx = None
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)  # the drain of gunicorn's workers
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        if self.process.stdout is not None:
            self.process.stdout.close()
        self._stderr.close()
        if self._tmp is not None:
            self._tmp.cleanup()

    def __enter__(self) -> LiveServer:
        return self

    def __exit__(self, *_: Any) -> None:
        self.stop()


class Player:
    """A legitimate player: joins a built-in scenario, plays it at 1x, records ticks. It
    runs in its own process (tests/dos/player.py), which stamps each tick as it arrives:
    in this one, the attackers' reader threads would hold the GIL while a tick waits, and
    the gap measured would be ours, not the server's."""

    def __init__(self, url: str, scenario: str = "plain-pod") -> None:
        self.ticks: list[float] = []
        self.errors: list[dict[str, Any]] = []
        self.snapshots = 0
        self.client = self  # `player.client.emit(...)`, as with a socketio.Client
        self._ready = threading.Event()
        self._failed: str | None = None
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.dos.player", url, scenario],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self._reader = threading.Thread(target=self._read, name="player", daemon=True)
        self._reader.start()
        if not self._ready.wait(30) or self._failed is not None:
            self.close()
            raise RuntimeError(f"the player could not join: {self._failed or 'no answer'}")

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            kind, _, rest = line.rstrip("\n").partition(" ")
            if kind == "tick":
                self.ticks.append(float(rest))
            elif kind == "snapshot":
                self.snapshots += 1
            elif kind == "error":
                self.errors.append(json.loads(rest))
            elif kind == "failed":
                self._failed = rest
                self._ready.set()
            elif kind == "ready":
                self._ready.set()
        self._ready.set()

    def emit(self, event: str, data: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps([event, data]) + "\n")
        self.process.stdin.flush()

    def wait_for_ticks(self, count: int = 5, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.ticks) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(self.ticks) >= count, f"the player got {len(self.ticks)} ticks: {self.errors}"

    def max_gap(self, start: float, end: float) -> float:
        """The longest wait for an update between `start` and `end` (monotonic seconds),
        counting the wait from `start` to the first tick and from the last one to `end`."""
        times = [start, *(t for t in self.ticks if start < t < end), end]
        return max(b - a for a, b in itertools.pairwise(times))

    def close(self) -> None:
        with contextlib.suppress(Exception):
            assert self.process.stdin is not None
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        with contextlib.suppress(Exception):
            assert self.process.stdout is not None
            self.process.stdout.close()


def ws_url(url: str) -> str:
    return url.replace("http://", "ws://") + "/socket.io/?EIO=4&transport=websocket"


def loopback_socket(
    port: int, source: str = "127.0.0.1", rcvbuf: int | None = None
) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.bind((source, 0))
    sock.settimeout(10)
    sock.connect(("127.0.0.1", port))
    return sock


class RawClient:
    """A Socket.IO client costing almost nothing: sends packets, drains (or ignores) the
    server's frames as raw bytes."""

    def __init__(
        self,
        server: LiveServer,
        *,
        source: str = "127.0.0.1",
        drain: bool = True,
        rcvbuf: int | None = None,
    ) -> None:
        sock = loopback_socket(server.port, source, rcvbuf)
        self.ws = websocket.create_connection(
            ws_url(server.url), socket=sock, origin=server.url, timeout=10
        )
        self.ws.recv()  # Engine.IO open
        self.ws.send("40")
        self.ws.recv()  # Socket.IO connect
        self.bytes = 0
        self.internal_errors = 0
        self.seen = b""
        self.closed = False
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._drain, daemon=True) if drain else None
        if self._reader is not None:
            self._reader.start()

    def emit(self, event: str, payload: Any) -> bool:
        return self.send("42" + json.dumps([event, payload]))

    def send(self, text: str) -> bool:
        try:
            with self._lock:
                self.ws.send(text)
            return True
        except (OSError, websocket.WebSocketException):
            self.closed = True
            return False

    def _drain(self) -> None:
        sock = self.ws.sock
        sock.settimeout(0.5)
        buffer = bytearray(1 << 16)
        tail = b""
        while not self.closed:
            try:
                n = sock.recv_into(buffer)
            except TimeoutError:
                continue
            except OSError:
                break
            if n == 0:
                break
            self.bytes += n
            chunk = tail + bytes(buffer[:n])
            self.internal_errors += chunk.count(b"internal_error")
            if len(self.seen) < 4096:
                self.seen += chunk[: 4096 - len(self.seen)]
            tail = chunk[-20:]
        self.closed = True

    def close(self) -> None:
        self.closed = True
        with contextlib.suppress(Exception):
            self.ws.sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(Exception):
            self.ws.close(timeout=0.5)


def wait_until(predicate: Any, timeout: float, step: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return bool(predicate())


@contextlib.contextmanager
def half_open_requests(port: int, count: int) -> Iterator[list[socket.socket]]:
    """`count` connections that each send the start of an HTTP request and never finish."""
    sockets: list[socket.socket] = []
    try:
        for i in range(count):
            sock = loopback_socket(port, f"127.0.{1 + i // 250}.{2 + i % 250}")
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            sockets.append(sock)
        yield sockets
    finally:
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.close()


def server_problems(server: LiveServer) -> list[str]:
    """What the server's stderr says went wrong: tracebacks and logged errors."""
    text = server.stderr()
    problems = []
    if "Traceback" in text:
        first = text.index("Traceback")
        problems.append(text[max(0, first - 200) : first + 1500])
    if server.killed_for_memory:
        problems.append(f"killed past {HARD_RSS_MB} MB RSS")
    return problems
