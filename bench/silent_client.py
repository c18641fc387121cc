"""Server memory while a client never reads its socket (issue 12 item 5).

python bench/silent_client.py [--seconds 40] [--root PATH]

Starts the playground (`python -m webapp --port 0`, from --root, default this checkout) as a
subprocess, then opens one WebSocket with a 4 KiB receive buffer that never reads after the
handshake. It joins crash-loop-backoff, seeks to 7100 s (~130 KB snapshots), plays, and asks for the full state again (`join {session}`) 19 times a second, under the default
rate limit of 20 events a second: every answer is a fresh ~130 KB snapshot the server has
to queue somewhere. Prints the server's resident memory (VmRSS) and thread count every 5 s
and at the end, and stderr lines that look like tracebacks. Loopback only; stops by itself;
asserts nothing.

--root lets the same client run against another checkout (e.g. `git archive` of an older
commit unpacked in /tmp) for before/after figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import websocket

ROOT = Path(__file__).resolve().parents[1]


def status(pid: int) -> tuple[float, int]:
    """(VmRSS in MiB, threads) of a process, from /proc/<pid>/status."""
    text = Path(f"/proc/{pid}/status").read_text()
    rss = int(re.search(r"VmRSS:\s+(\d+) kB", text).group(1)) / 1024  # type: ignore[union-attr]
    threads = int(re.search(r"Threads:\s+(\d+)", text).group(1))  # type: ignore[union-attr]
    return rss, threads


def start(root: Path, db: Path) -> tuple[subprocess.Popen[str], str, list[str]]:
    process = subprocess.Popen(
        [sys.executable, "-m", "webapp", "--port", "0"],
        cwd=root,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "PLAYGROUND_DB": str(db)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stderr is not None
    line = process.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
    if not match:
        process.kill()
        raise SystemExit(f"server did not start: {line!r}")
    errors: list[str] = []
    stderr = process.stderr

    def drain() -> None:
        for text in stderr:
            if "Traceback" in text or "Exception in thread" in text:
                errors.append(text.strip())

    threading.Thread(target=drain, daemon=True).start()
    return process, match.group(1), errors


def send(ws: websocket.WebSocket, name: str, payload: dict[str, object]) -> None:
    ws.send("42" + json.dumps([name, payload]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--root", type=Path, default=ROOT)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        process, port, errors = start(args.root, Path(tmp) / "links.sqlite3")
        try:
            run(process, port, errors, args.seconds)
        finally:
            process.terminate()
            process.wait(timeout=10)


def run(process: subprocess.Popen[str], port: str, errors: list[str], seconds: float) -> None:
    time.sleep(1.0)
    idle_rss, idle_threads = status(process.pid)
    ws = websocket.create_connection(
        f"ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket",
        origin=f"http://127.0.0.1:{port}",
        timeout=30,
        skip_utf8_validation=True,
        sockopt=[(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)],
    )
    ws.recv()  # Engine.IO open
    ws.send("40")
    while not ws.recv().startswith("40"):
        pass
    send(ws, "join", {"scenario": "crash-loop-backoff"})
    session = ""
    while not session:
        text = ws.recv()
        if text.startswith('42["snapshot"'):
            session = json.loads(text[2:])[1]["session"]
    send(ws, "clock", {"op": "seek", "value": 7100})  # a long history: ~130 KB snapshots
    send(ws, "clock", {"op": "play"})
    rss, threads = status(process.pid)
    print(f"server before the client goes silent: {rss:7.1f} MiB, {threads} threads")
    print(f"  (idle server: {idle_rss:.1f} MiB, {idle_threads} threads)")
    started = time.monotonic()
    next_report = 5.0
    most = rss
    sent = 0
    closed_at = None
    at_30: tuple[float, int] | None = None
    while (elapsed := time.monotonic() - started) < seconds:
        try:
            send(ws, "join", {"session": session})
            sent += 1
        except (OSError, websocket.WebSocketException):
            if closed_at is None:
                closed_at = elapsed
        time.sleep(1 / 19)
        rss, threads = status(process.pid)
        most = max(most, rss)
        if at_30 is None and elapsed >= 30.0:
            at_30 = (rss, threads)
        if elapsed >= next_report:
            print(f"  after {elapsed:4.1f} s silent: {rss:7.1f} MiB, {threads} threads")
            next_report += 5.0
    rss, threads = status(process.pid)
    print(f"after {seconds:.0f} s of a silent client: {rss:7.1f} MiB, {threads} threads")
    if at_30 is not None:
        print(f"  at 30 s: {at_30[0]:.1f} MiB, {at_30[1]} threads")
    print(f"  most seen: {most:.1f} MiB; requests sent: {sent}")
    if closed_at is not None:
        print(f"  the server closed the connection after {closed_at:.1f} s")
    else:
        print("  the connection is still open")
    ws.close()
    time.sleep(2.0)
    rss, threads = status(process.pid)
    print(f"2 s after the client closed: {rss:7.1f} MiB, {threads} threads")
    print(f"traceback lines in the server log: {len(errors)}")
    for line in errors[:5]:
        print(f"  {line}")


if __name__ == "__main__":
    main()
