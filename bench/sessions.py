"""Concurrent sessions: how many tabs can play a scenario at 10x with p99 latency < 100 ms?

python bench/sessions.py [--counts 50,100,200,300,400] [--seconds 10] [--warmup 3]

For each count N it starts the playground (`python -m webapp --port 0`) as a subprocess on
loopback, opens N WebSocket connections, makes each join a built-in scenario and play it at
10x, and for `--seconds` measures the server-emit -> client-receive latency of every tick
(the server stamps `sentAt` when it builds a tick) and the server process's CPU time
(/proc/<pid>/stat). Then it runs bench/bare_server.py, a bare python-socketio server that
pushes the same messages (ticks recorded from the playground) at the same rate per client,
and reports both CPU costs per message and their ratio.

The client side is one thread driving every connection with `selectors` over
websocket-client sockets, speaking Engine.IO 4 / Socket.IO 5 by hand, so that the load
generator costs little next to the server on a 2-core machine. Loopback only; bounded
loops; stops by itself; prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import selectors
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import websocket

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ["plain-pod", "liveness-restart", "crash-loop-backoff", "readiness-endpoints"]
SENT_AT = re.compile(r'"sentAt":([0-9.eE+-]+)')
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
TARGET_P99 = 0.100


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, from /proc/<pid>/stat."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def start(
    command: list[str], env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env={**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
    if not match:
        process.kill()
        raise SystemExit(f"server did not start: {line!r}")
    return process, match.group(1)


@dataclass
class Tab:
    ws: websocket.WebSocket
    received: int = 0
    samples: list[str] = field(default_factory=list)


@dataclass
class Figures:
    label: str
    count: int
    latencies: list[float]
    messages: int
    seconds: float
    cpu: float
    connected: int

    def percentile(self, p: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(p * len(ordered)))]

    @property
    def cpu_per_message(self) -> float:
        return self.cpu / self.messages if self.messages else float("nan")

    def line(self) -> str:
        return (
            f"{self.label:5s} N={self.count:4d} tabs={self.connected:4d} "
            f"msgs/s={self.messages / self.seconds:7.0f} "
            f"p50={self.percentile(0.50) * 1000:7.1f} ms p99={self.percentile(0.99) * 1000:7.1f} ms "
            f"max={max(self.latencies, default=float('nan')) * 1000:7.1f} ms "
            f"cpu={self.cpu:5.2f} s ({self.cpu / self.seconds * 100:3.0f}% of a core) "
            f"cpu/msg={self.cpu_per_message * 1e6:6.0f} us"
        )


def send_event(ws: websocket.WebSocket, name: str, payload: dict[str, Any]) -> None:
    ws.send("42" + json.dumps([name, payload]))


def open_tab(port: str) -> Tab:
    ws = websocket.create_connection(
        f"ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket",
        origin=f"http://127.0.0.1:{port}",
        timeout=30,
        # websocket-client checks UTF-8 in pure Python (milliseconds per 14 KB tick), which
        # would make the load generator, not the server, the bottleneck.
        skip_utf8_validation=True,
    )
    ws.recv()  # Engine.IO open packet
    ws.send("40")  # Socket.IO connect, default namespace
    while not ws.recv().startswith("40"):
        pass
    return Tab(ws)


def drive(
    port: str,
    count: int,
    warmup: float,
    seconds: float,
    pid: int,
    label: str,
    keep_samples: int = 0,
) -> tuple[Figures, list[str]]:
    tabs = []
    for _ in range(count):
        try:
            tabs.append(open_tab(port))
        except (OSError, websocket.WebSocketException):
            break
    selector = selectors.DefaultSelector()
    for i, tab in enumerate(tabs):
        send_event(tab.ws, "join", {"scenario": SCENARIOS[i % len(SCENARIOS)]})
        send_event(tab.ws, "clock", {"op": "speed", "value": 10})
        send_event(tab.ws, "clock", {"op": "play"})
        tab.ws.sock.setblocking(True)
        selector.register(tab.ws.sock, selectors.EVENT_READ, tab)
    latencies: list[float] = []
    samples: list[str] = []
    messages = 0
    begin = time.time()
    measure_from, measure_to = begin + warmup, begin + warmup + seconds
    cpu_start = None
    while True:
        now = time.time()
        if cpu_start is None and now >= measure_from:
            cpu_start = cpu_seconds(pid)
        if now >= measure_to:
            break
        for key, _ in selector.select(timeout=0.2):
            tab = key.data
            try:
                text = tab.ws.recv()
            except (OSError, websocket.WebSocketException):
                selector.unregister(key.fileobj)
                continue
            received = time.time()
            if text == "2":
                tab.ws.send("3")  # Engine.IO pong
                continue
            if not text.startswith('42["tick"'):
                continue
            match = SENT_AT.search(text, max(0, len(text) - 64))
            if match and measure_from <= received < measure_to:
                messages += 1
                latencies.append(received - float(match.group(1)))
            if len(samples) < keep_samples and tab.received % 7 == 3:
                samples.append(text)
            tab.received += 1
    cpu = cpu_seconds(pid) - (cpu_start or 0.0)
    for tab in tabs:
        try:
            send_event(tab.ws, "clock", {"op": "pause"})
            tab.ws.close()
        except (OSError, websocket.WebSocketException):
            pass
    selector.close()
    return Figures(label, count, latencies, messages, seconds, cpu, len(tabs)), samples


def run_playground(count: int, args: argparse.Namespace, keep: int) -> tuple[Figures, list[str]]:
    with tempfile.TemporaryDirectory() as folder:
        process, port = start(
            [sys.executable, "-m", "webapp", "--port", "0"],
            {
                "PLAYGROUND_DB": str(Path(folder) / "bench.sqlite3"),
                "PLAYGROUND_MAX_SESSIONS": str(count * 2 + 10),
                "PLAYGROUND_ACTIONS_PER_SECOND": "1000",
            },
        )
        try:
            return drive(port, count, args.warmup, args.seconds, process.pid, "ours", keep)
        finally:
            process.kill()
            process.wait(10)


def run_bare(count: int, args: argparse.Namespace, samples: Path, rate: float) -> Figures:
    process, port = start(
        [sys.executable, str(ROOT / "bench" / "bare_server.py"), str(samples), str(rate)]
    )
    try:
        return drive(port, count, args.warmup, args.seconds, process.pid, "bare")[0]
    finally:
        process.kill()
        process.wait(10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--counts", default="50,100,200,300,400")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per run")
    parser.add_argument("--warmup", type=float, default=3.0)
    args = parser.parse_args()
    counts = [int(c) for c in args.counts.split(",")]
    print(
        f"{len(counts)} counts, {args.seconds:g} s measured after {args.warmup:g} s warm-up each;"
        f" {os.cpu_count()} CPUs; scenarios at 10x: {', '.join(SCENARIOS)}"
    )
    results: list[tuple[Figures, Figures]] = []
    with tempfile.TemporaryDirectory() as folder:
        samples_file = Path(folder) / "samples.json"
        for count in counts:
            ours, samples = run_playground(count, args, keep=400)
            if samples and not samples_file.exists():
                ticks = [json.loads(text[2:])[1] for text in samples]
                samples_file.write_text(json.dumps(ticks))
                sizes = sorted(len(t) for t in samples)
                print(
                    f"recorded {len(ticks)} ticks for the bare server; median size"
                    f" {sizes[len(sizes) // 2]} bytes"
                )
            print(ours.line(), flush=True)
            rate = ours.messages / ours.seconds / max(1, ours.connected)
            bare = run_bare(count, args, samples_file, rate)
            print(bare.line(), flush=True)
            results.append((ours, bare))
    print()
    print("   N  ours p99   bare p99  ours us/msg  bare us/msg  ratio")
    best = 0
    for ours, bare in results:
        ratio = ours.cpu_per_message / bare.cpu_per_message
        print(
            f"{ours.count:4d} {ours.percentile(0.99) * 1000:7.1f} ms {bare.percentile(0.99) * 1000:7.1f} ms"
            f" {ours.cpu_per_message * 1e6:10.0f} {bare.cpu_per_message * 1e6:12.0f}  {ratio:5.2f}x"
        )
        if ours.percentile(0.99) < TARGET_P99 and ours.connected == ours.count:
            best = max(best, ours.count)
    print(f"largest N with p99 < {TARGET_P99 * 1000:.0f} ms: {best or 'none of those tried'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
