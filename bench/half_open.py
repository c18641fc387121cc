"""Server threads and memory under half-open HTTP requests (issue 12 item 10).

python bench/half_open.py [--count 3000] [--root PATH]

Starts the playground (`python -m webapp --port 0`, from --root, default this checkout) as a
subprocess (gunicorn since issue 22: its figures are the arbiter's and workers' together;
in production nginx holds such connections, tests/dos measures that layout), then opens --count connections, each from its own loopback address
(127.0.x.y), that send `GET /healthz HTTP/1.1`, a Host header and the start of another
header, and never finish. Prints the server's thread count and resident memory before,
with all of them open, and how long a normal `GET /healthz` takes meanwhile; then the
same after the server's request timeout (if it has one). Before that, it opens 20
Socket.IO WebSockets and prints the threads they cost. Loopback only; stops by itself;
asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import websocket

ROOT = Path(__file__).resolve().parents[1]
HALF_OPEN = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


def status(pid: int) -> tuple[float, int]:
    """RSS (MiB) and threads of `pid` and its children (gunicorn's arbiter and workers)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    rss, threads = 0.0, 0
    for each in [pid, *map(int, children)]:
        text = Path(f"/proc/{each}/status").read_text()
        rss += int(re.search(r"VmRSS:\s+(\d+) kB", text).group(1)) / 1024  # type: ignore[union-attr]
        threads += int(re.search(r"Threads:\s+(\d+)", text).group(1))  # type: ignore[union-attr]
    return rss, threads


def start(root: Path, db: Path) -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen(
        [sys.executable, "-m", "webapp", "--port", "0"],
        cwd=root,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "PLAYGROUND_DB": str(db)},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    match = re.search(r"http://127\.0\.0\.1:(\d+)", process.stdout.readline())
    if not match:
        process.kill()
        raise SystemExit("server did not start")
    return process, int(match.group(1))


def healthz(port: int) -> str:
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", "/healthz")
        code = connection.getresponse().status
        return f"{code} in {(time.monotonic() - started) * 1000:.0f} ms"
    except OSError as error:
        return f"{type(error).__name__} after {time.monotonic() - started:.1f} s"
    finally:
        connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--root", type=Path, default=ROOT)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        process, port = start(args.root, Path(tmp) / "links.sqlite3")
        try:
            run(process.pid, port, args.count)
        finally:
            process.terminate()
            process.wait(timeout=10)


def run(pid: int, port: int, count: int) -> None:
    healthz(port)
    time.sleep(0.5)
    before = status(pid)[1]
    tabs = []
    for _ in range(20):
        ws = websocket.create_connection(
            f"ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket",
            origin=f"http://127.0.0.1:{port}",
        )
        ws.recv()
        ws.send("40")
        tabs.append(ws)
    time.sleep(1.0)
    after = status(pid)[1]
    print(f"20 WebSockets: {after - before} threads ({(after - before) / 20:.1f} each)")
    for ws in tabs:
        ws.close()
    time.sleep(1.0)
    rss, threads = status(pid)
    print(f"idle server: {threads} threads, {rss:.1f} MiB")
    sockets = []
    started = time.monotonic()
    try:
        for i in range(count):
            sock = socket.socket()
            sock.bind((f"127.0.{1 + i // 250}.{2 + i % 250}", 0))
            sock.connect(("127.0.0.1", port))
            sock.sendall(HALF_OPEN)
            sockets.append(sock)
        opened = time.monotonic() - started
        time.sleep(2.0)
        rss, threads = status(pid)
        print(f"{count} half-open requests (opened in {opened:.1f} s): {threads} threads, "
              f"{rss:.1f} MiB")  # fmt: skip
        print(f"  GET /healthz meanwhile: {healthz(port)}")
        time.sleep(10.0)
        rss, threads = status(pid)
        print(f"  12 s later: {threads} threads, {rss:.1f} MiB; GET /healthz: {healthz(port)}")
    finally:
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.close()


if __name__ == "__main__":
    main()
