"""The hosting stack for a test: Redis, the playground with several workers, and nginx in
front with deploy/nginx.conf, each started by the test on a free loopback port in a
temporary folder and stopped after. Also a Socket.IO tab that rejoins its session on every
reconnect, as the page does.

Needs /usr/bin/redis-server and /usr/sbin/nginx (scripts/test installs Debian's when they
are missing); a test skips when they are not there. Waits have generous timeouts that
only stop a hung test.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import socketio

ROOT = Path(__file__).resolve().parents[2]
WAIT = 60.0
REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def need_binaries() -> None:
    for path in (REDIS, NGINX):
        if not os.path.exists(path):
            pytest.skip(f"{path} is not installed (scripts/test installs it)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PortTaken(Exception):
    """The process ended before it listened (another program took the free port first)."""


def wait_for_port(port: int, timeout: float = WAIT, process: Any = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise PortTaken(port)
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on {port}")


def stop(process: subprocess.Popen[Any], sig: int = signal.SIGTERM, timeout: float = 30) -> None:
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


class Redis:
    """redis-server on a free port (or `port`), saving to `folder` when it stops, so that
    one started again on the same folder has the same data."""

    def __init__(self, folder: Path, port: int = 0) -> None:
        for attempt in range(3):
            try:
                self._start(folder, port)
                return
            except PortTaken:
                if port or attempt == 2:
                    raise

    def _start(self, folder: Path, port: int) -> None:
        self.port = port or free_port()
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.process = subprocess.Popen(
            [
                REDIS,
                "--port", str(self.port),
                "--bind", "127.0.0.1",
                "--save", "3600 1",
                "--appendonly", "no",
                "--dir", str(folder),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        wait_for_port(self.port, process=self.process)
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        stop(self.process)


class Playground:
    """`python -m webapp --workers N --redis URL` on a free port, its output collected."""

    def __init__(
        self,
        folder: Path,
        redis_url: str,
        workers: int = 2,
        port: int = 0,
        env: dict[str, str] | None = None,
    ) -> None:
        self.folder = folder
        self.redis_url = redis_url
        self.workers = workers
        self.port = port or free_port()
        self.lines: list[str] = []
        self._ready = threading.Condition()
        env = {
            **os.environ,
            "PYTHONUNBUFFERED": "1",
            "PLAYGROUND_DB": str(folder / "playground.sqlite3"),
            "PLAYGROUND_TRUSTED_PROXIES": "127.0.0.1",
            "PLAYGROUND_MAX_SESSIONS_PER_CLIENT": "500",
            "PLAYGROUND_NEW_SESSIONS_PER_MINUTE": "1000",
            "PYTHONPATH": str(ROOT),
            **(env or {}),
        }
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "webapp",
                "--port",
                str(self.port),
                "--workers",
                str(workers),
                "--redis",
                redis_url,
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()
        self.wait_ready(workers)

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self._ready:
                self.lines.append(line.rstrip("\n"))
                self._ready.notify_all()

    def worker_pids(self) -> list[int]:
        """Workers that said they are ready and have not ended since."""
        text = "\n".join(self.lines)  # (lines of older versions could interleave)
        pids = [int(m.group(1)) for m in re.finditer(r"worker (\d+) ready", text)]
        return [pid for pid in pids if _alive(pid)]

    def wait_ready(self, count: int) -> None:
        deadline = time.monotonic() + WAIT
        with self._ready:
            while len(self.worker_pids()) < count:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the playground did not start:\n" + "\n".join(self.lines))
                self._ready.wait(0.2)

    def stop(self) -> None:
        stop(self.process)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


class Nginx:
    """nginx with deploy/nginx.conf, changed only in its `listen` and upstream `server`."""

    def __init__(
        self, folder: Path, upstream_port: int, port: int = 0, hosts: list[str] | None = None
    ) -> None:
        """`hosts` ("ADDRESS:PORT" each): several upstream servers in place of the one
        on 127.0.0.1:`upstream_port` (the playground on several machines)."""
        for attempt in range(3):
            try:
                self._start(folder, upstream_port, port, hosts)
                return
            except PortTaken:
                if port or attempt == 2:
                    raise

    def _start(self, folder: Path, upstream_port: int, port: int, hosts: list[str] | None) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        site = (ROOT / "deploy" / "nginx.conf").read_text()
        site, listens = re.subn(r"listen 80;", f"listen 127.0.0.1:{self.port};", site)
        site, servers = re.subn(
            r"server 127\.0\.0\.1:5000 ([^;]*);",
            lambda m: "".join(
                f"server {host} {m.group(1)};\n    "
                for host in (hosts or [f"127.0.0.1:{upstream_port}"])
            ),
            site,
        )
        assert listens == 1 and servers == 1, "deploy/nginx.conf changed shape"
        (folder / "playground.conf").write_text(site)
        (folder / "nginx.conf").write_text(
            f"pid {folder}/nginx.pid;\n"
            f"error_log {folder}/error.log warn;\n"
            "worker_processes 1;\n"
            "events { worker_connections 4096; }\n"
            "http {\n"
            f"  access_log {folder}/access.log;\n"
            f"  client_body_temp_path {folder}/body;\n"
            f"  proxy_temp_path {folder}/proxy;\n"
            f"  fastcgi_temp_path {folder}/fastcgi;\n"
            f"  uwsgi_temp_path {folder}/uwsgi;\n"
            f"  scgi_temp_path {folder}/scgi;\n"
            f"  include {folder}/playground.conf;\n"
            "}\n"
        )
        self.process = subprocess.Popen(
            [NGINX, "-p", str(folder), "-c", str(folder / "nginx.conf"), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        wait_for_port(self.port, process=self.process)
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        stop(self.process, signal.SIGQUIT)


class Tab:
    """A tab as the page behaves: joins a scenario, keeps its session id, and on every
    (re)connect joins that session again. Keeps the latest state it was sent."""

    def __init__(self, url: str, scenario: str) -> None:
        self.url = url
        self.scenario = scenario
        self.session: str | None = None
        self.snapshots: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.transitions: list[dict[str, Any]] = []
        self.actions: list[dict[str, Any]] = []
        self.now = 0.0
        self.clock: dict[str, Any] = {}
        self.connects = 0
        self.seq = -1
        self.gaps = 0  # ticks whose sequence number skipped one (a snapshot repaired each)
        self.changed = threading.Condition()
        self.client = socketio.Client(
            reconnection=True, reconnection_delay=0.5, reconnection_delay_max=2.0
        )
        self.client.on("connect", self._connected)
        self.client.on("snapshot", self._snapshot)
        self.client.on("tick", self._tick)
        self.client.on("error", self._error)
        self.client.connect(url, transports=["websocket"], wait_timeout=WAIT)

    def _connected(self) -> None:
        self.connects += 1
        if self.session:
            self.client.emit("join", {"session": self.session})
        else:
            self.client.emit("join", {"scenario": self.scenario})

    def _snapshot(self, msg: dict[str, Any]) -> None:
        with self.changed:
            self.session = msg["session"]
            self.seq = msg["seq"]
            self.transitions = list(msg["transitions"])
            self.actions = list(msg["actions"])
            self.now = msg["now"]
            self.clock = msg["clock"]
            self.snapshots.append(
                {k: msg[k] for k in ("session", "now", "seq", "clock", "actions")}
            )
            self.changed.notify_all()

    def _tick(self, msg: dict[str, Any]) -> None:
        with self.changed:
            if self.snapshots and msg["seq"] != self.seq + 1:
                # A sequence number skipped: as the page does, ask for a fresh snapshot.
                self.gaps += 1
                # the connection may go as the tick comes: its reconnect joins again
                with contextlib.suppress(socketio.exceptions.BadNamespaceError):
                    self.client.emit("join", {"session": self.session})
                return
            self.seq = msg["seq"]
            last = self.transitions[-1]["seq"] if self.transitions else -1
            self.transitions.extend(t for t in msg["transitions"] if t["seq"] > last)
            delta = msg.get("actionsDelta")
            if delta is not None:  # as the page does (static/js/state.js applyTick)
                self.actions = self.actions[: delta["keep"]] + list(delta["add"])
            self.now = msg["now"]
            self.clock = msg["clock"]
            self.changed.notify_all()

    def _error(self, msg: dict[str, Any]) -> None:
        with self.changed:
            self.errors.append(msg)
            if msg.get("code") == "session_elsewhere":
                threading.Timer(0.5, self._connected).start()
            self.changed.notify_all()

    def wait(self, predicate: Any, timeout: float = WAIT) -> None:
        deadline = time.monotonic() + timeout
        with self.changed:
            while not predicate(self):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(
                        f"tab {self.session}: now={self.now} clock={self.clock} "
                        f"snapshots={len(self.snapshots)} errors={self.errors[-3:]}"
                    )
                self.changed.wait(min(left, 0.5))

    def history(self, until: float) -> list[tuple[Any, ...]]:
        """The transitions up to virtual second `until`, as comparable tuples (probe runs
        grow in place, so their `repeat` is left out)."""
        return [
            (t["seq"], t["t"], t["object"], t["field"], repr(t["after"]))
            for t in self.transitions
            if t["t"] <= until
        ]

    def close(self) -> None:
        self.client.disconnect()
