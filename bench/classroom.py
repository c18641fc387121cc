"""Classroom fan-out: N classes x M students following one teacher each. Prints figures,
asserts nothing.

    python bench/classroom.py [--classes 10] [--students 60] [--actions 10] [--speed 10]
                              [--deflate]

Against a real server (`python -m webapp --port 0`, tests/dos/harness.py): each class is
made with POST /api/classes (plain-pod); the teacher's tab sends class:teach, then M
student tabs send class:join (so they follow). Every teacher sets the speed and plays, then
acts `--actions` times (an `apply` of a ConfigMap with a unique name, one action every
0.5 s, the classes staggered). For each action, the time from the teacher's send to each
student's payload that carries it, inflated (with `--deflate`) and parsed as JSON
(screen-ready: what the page renders from), is recorded: p50/p99 per student, and the time
until *every* student of the class has it.

The clock is the wall clock, and a payload's arrival is the kernel's receive timestamp of
its bytes on the student's socket (SO_TIMESTAMPNS) plus the inflate and parse: all 600
tabs are read by one thread of this process, which competes with the server for the same
two cores, and stamping when that thread got round to a socket measured the bench's own
queueing (printed too, "as the bench's one reader thread got to it"). The split says where
the time went: action -> payload built (the tick's `sentAt`, when the server made it) and
built -> the last student has it.

Then the same clients against a bare python-socketio server in the same run (same stack:
threading mode on a threaded Werkzeug server; no Flask, sessions or engine): tabs join a
room, the teacher's `act` is broadcast to the room at once as a tick of the playground's
average message size, and every room also gets ticks at the rate the playground sent them.
Server CPU per follower message (the server process's user+system time over messages
received) and the bytes on the wire per message are printed for both.

`--deflate`: the tabs offer permessage-deflate, as every browser does (the default is
plain WebSockets, as python-socketio's client). The bare server's ticks are padding, which
deflates to almost nothing, so only its CPU and latency compare, not its bytes.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import selectors
import socket
import struct
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path
from typing import Any

import websocket

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.dos.harness import LiveServer, ws_url  # noqa: E402

SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux

CONFIGMAP = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {name}
data:
  k: v
"""


class Reader:
    """One thread reads every tab's socket (a thread per tab would starve the machine):
    WebSocket frames parsed by hand (server frames are unmasked), Engine.IO pings answered."""

    def __init__(self) -> None:
        self.selector = selectors.DefaultSelector()
        self._lock = threading.Lock()
        self.running = True
        threading.Thread(target=self._run, daemon=True).start()

    def add(self, tab: Tab) -> None:
        tab.ws.sock.setblocking(False)
        # The kernel stamps each received segment (wall clock): when the bytes reached the
        # student's socket, whatever this one reader thread was doing then.
        tab.ws.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        with self._lock:
            self.selector.register(tab.ws.sock, selectors.EVENT_READ, tab)

    def _run(self) -> None:
        while self.running:
            with self._lock:
                ready = [] if not self.selector.get_map() else self.selector.select(timeout=0.05)
            if not ready:
                time.sleep(0.01)
                continue
            for key, _ in ready:
                tab: Tab = key.data
                try:
                    data, ancillary, _, _ = key.fileobj.recvmsg(  # type: ignore[union-attr]
                        1 << 18, socket.CMSG_SPACE(16)
                    )
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""
                if not data:
                    with self._lock, contextlib.suppress(Exception):
                        self.selector.unregister(key.fileobj)
                    tab.closed = True
                    continue
                read_at = time.time()
                arrived = read_at
                for level, kind, stamp in ancillary:
                    if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(stamp) >= 16:
                        seconds, nanoseconds = struct.unpack("qq", stamp[:16])
                        arrived = seconds + nanoseconds / 1e9
                tab.feed(data, arrived, read_at)


class Tab:
    """A Socket.IO client over a raw WebSocket, read by a shared Reader. With `deflate`, it
    offers permessage-deflate as a browser does and inflates what it gets with one window
    kept across messages."""

    DEFLATE = False  # --deflate

    def __init__(self, port: int, url: str, reader: Reader) -> None:
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        header = (
            ["Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits"]
            if self.DEFLATE
            else []
        )
        self.ws = websocket.create_connection(
            ws_url(url), socket=sock, origin=url, timeout=30, header=header
        )
        self.inflate = zlib.decompressobj(-15)
        self.buffer = b""
        self.wire_bytes = 0
        self.text_bytes = 0
        self.handshake: list[str] | None = []
        while len(self.handshake) < 1:  # Engine.IO open
            self.feed(sock.recv(1 << 16), 0.0, 0.0)
        self.ws.send("40")
        while len(self.handshake) < 2:  # Socket.IO connect
            self.feed(sock.recv(1 << 16), 0.0, 0.0)
        self.handshake = None
        self.messages = 0
        # marker -> (arrived at the socket, read by the reader, built by the server), wall
        # clock; "screen-ready" adds the parse the page does before rendering.
        self.received: dict[str, tuple[float, float, float]] = {}
        self.states: list[dict[str, Any]] = []
        self.errors: list[Any] = []
        self.closed = False
        self.markers: list[str] = []
        self._lock = threading.Lock()
        reader.add(self)

    def emit(self, event: str, payload: Any) -> None:
        self.send("42" + json.dumps([event, payload]))

    def send(self, text: str) -> None:
        with self._lock:
            sock = self.ws.sock
            sock.setblocking(True)
            try:
                self.ws.send(text)
            finally:
                sock.setblocking(False)

    def feed(self, data: bytes, arrived: float, read_at: float) -> None:
        self.wire_bytes += len(data)
        buffer = self.buffer + data
        while len(buffer) >= 2:
            compressed = buffer[0] & 0x40  # RSV1 (permessage-deflate)
            opcode, length, at = buffer[0] & 0x0F, buffer[1] & 0x7F, 2
            if length == 126:
                if len(buffer) < 4:
                    break
                length, at = int.from_bytes(buffer[2:4], "big"), 4
            elif length == 127:
                if len(buffer) < 10:
                    break
                length, at = int.from_bytes(buffer[2:10], "big"), 10
            if len(buffer) < at + length:
                break
            payload, buffer = buffer[at : at + length], buffer[at + length :]
            if opcode == 1:
                started = time.perf_counter()
                if compressed:
                    payload = self.inflate.decompress(payload + b"\x00\x00\xff\xff")
                text = payload.decode("utf-8")
                spent = time.perf_counter() - started  # a browser inflates too
                self.message(text, arrived + spent, read_at + spent)
        self.buffer = buffer

    def message(self, text: str, arrived: float, read_at: float) -> None:
        if self.handshake is not None:
            self.handshake.append(text)
            return
        if text == "2":  # Engine.IO ping
            with contextlib.suppress(Exception):
                self.send("3")
            return
        if not text.startswith("42"):
            return
        self.messages += 1
        self.text_bytes += len(text)
        head = text[:40]
        if '"class:state"' in head:
            self.states.append(json.loads(text[2:])[1])
        elif '"error"' in head:
            self.errors.append(json.loads(text[2:])[1])
        elif self.markers and ('"tick"' in head or '"snapshot"' in head):
            for marker in self.markers:
                if marker not in self.received and marker in text:
                    started = time.perf_counter()
                    data = json.loads(text[2:])[1]
                    parse = time.perf_counter() - started
                    built = data.get("sentAt", float("nan")) if isinstance(data, dict) else 0.0
                    self.received[marker] = (arrived + parse, read_at + parse, built)

    def close(self) -> None:
        self.closed = True
        with contextlib.suppress(Exception):
            self.ws.sock.close()


def wait(predicate: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return bool(predicate())


def post(port: int, path: str, body: dict[str, Any]) -> dict[str, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    response = connection.getresponse()
    data: dict[str, Any] = json.loads(response.read())
    connection.close()
    if response.status != 201:
        raise RuntimeError(data)
    return data


class Figures:
    """Latencies of one run, in seconds, from each action's send (wall clock)."""

    def __init__(self) -> None:
        self.student: list[float] = []  # action -> a student's payload, at its socket
        self.every: list[float] = []  # action -> the last student of the class, at its socket
        self.every_read: list[float] = []  # the same, as the bench's one reader thread read it
        self.built: list[float] = []  # action -> the server built the payload (sentAt)
        self.fanout: list[float] = []  # built -> the last student has it, at its socket


def run_actions(
    teachers: list[Tab],
    students: list[list[Tab]],
    act: Any,
    actions: int,
) -> Figures:
    """Each teacher acts `actions` times, the classes staggered; per action, when each
    student of the class had the payload that carries it."""
    markers = [[f"bench-c{c}-a{a}" for a in range(actions)] for c in range(len(teachers))]
    for c, group in enumerate(students):
        for tab in group:
            tab.markers = markers[c]
    sent: dict[str, float] = {}
    for a in range(actions):
        for c, teacher in enumerate(teachers):
            marker = markers[c][a]
            sent[marker] = time.time()
            act(teacher, c, marker)
            time.sleep(0.5 / len(teachers))
    wait(lambda: all(len(t.received) == actions for g in students for t in g), 30)
    figures = Figures()
    for c, group in enumerate(students):
        for marker in markers[c]:
            got = [tab.received.get(marker) for tab in group]
            if any(g is None for g in got) or not got:
                for bucket in (figures.every, figures.every_read, figures.fanout):
                    bucket.append(float("inf"))
                continue
            arrived = [g[0] - sent[marker] for g in got if g is not None]
            figures.student += arrived
            figures.every.append(max(arrived))
            figures.every_read.append(max(g[1] for g in got if g is not None) - sent[marker])
            built = min(g[2] for g in got if g is not None)
            figures.built.append(built - sent[marker])
            figures.fanout.append(max(g[0] for g in got if g is not None) - built)
    return figures


def p(values: list[float], q: float) -> float:
    finite = sorted(v for v in values if v != float("inf"))
    if not finite:
        return float("nan")
    if len(finite) < len(values):
        return float("inf")
    return finite[min(len(finite) - 1, int(q * len(finite)))]


def report(name: str, figures: Figures, messages: int, cpu: float, wire_bytes: int = 0) -> None:
    ms = lambda v: f"{v * 1000:.1f} ms"  # noqa: E731
    lat, every = figures.student, figures.every
    print(f"{name}:")
    print(f"  action -> a student's parsed payload: p50 {ms(p(lat, 0.5))}, p99 {ms(p(lat, 0.99))}"
          f", max {ms(max(lat) if lat else float('nan'))} ({len(lat)} deliveries)")  # fmt: skip
    print(f"  action -> every student of the class has it: p50 {ms(p(every, 0.5))}, "
          f"p99 {ms(p(every, 0.99))}, max {ms(max(every) if every else float('nan'))}"
          f" ({len(every)} actions)")  # fmt: skip
    print(f"    the same as the bench's one reader thread got to it: p99 "
          f"{ms(p(figures.every_read, 0.99))}")  # fmt: skip
    print(f"    split: action -> payload built p99 {ms(p(figures.built, 0.99))}; built -> "
          f"every student p99 {ms(p(figures.fanout, 0.99))}")  # fmt: skip
    per = cpu / messages * 1e6 if messages else float("nan")
    print(f"  server CPU {cpu:.2f} s for {messages} follower messages: {per:.1f} us per message")
    if messages and wire_bytes:
        print(f"  bytes on the wire per follower message: {wire_bytes / messages:.0f}")


# -- the playground ----------------------------------------------------------------------


def playground(args: argparse.Namespace) -> tuple[float, float, int]:
    env = {
        "PLAYGROUND_SERVER_MAX_CONNECTIONS": "5000",
        "PLAYGROUND_SERVER_MAX_CONNECTIONS_PER_CLIENT": "5000",
        "PLAYGROUND_CLASSES_PER_HOUR": "1000",
        # Every student comes from 127.0.0.1 here: the bench measures fan-out, not the
        # per-address name limit (issue 26, F4), which would refuse all but 60.
        "PLAYGROUND_CLASS_NAMES_PER_MINUTE": "1000000",
        "PLAYGROUND_ACTIONS_PER_SECOND": "1000",
    }
    reader = Reader()
    with LiveServer(env=env, address_space_gb=64) as server:
        teachers, students = [], []
        for _ in range(args.classes):
            made = post(server.port, "/api/classes", {"scenario": "plain-pod"})
            teacher = Tab(server.port, server.url, reader)
            teacher.emit("class:teach", {"code": made["code"], "key": made["teacherKey"]})
            group = []
            for s in range(args.students):
                tab = Tab(server.port, server.url, reader)
                tab.emit("class:join", {"code": made["code"], "name": f"student {s}"})
                group.append(tab)
            teachers.append(teacher)
            students.append(group)
        joined = wait(lambda: all(t.states for g in students for t in g), 60)
        print(f"{args.classes} classes x {args.students} students joined: {joined}; "
              f"server threads {server.threads()}, RSS {server.rss_mb():.0f} MB")  # fmt: skip
        for teacher in teachers:
            teacher.emit("clock", {"op": "speed", "value": args.speed})
            teacher.emit("clock", {"op": "play"})
        time.sleep(2.0)
        cpu0, ticks0 = server.cpu_seconds(), sum(t.messages for g in students for t in g)
        bytes0 = sum(t.wire_bytes for g in students for t in g)
        text0 = sum(t.text_bytes for g in students for t in g)
        t0 = time.perf_counter()

        def act(teacher: Tab, _: int, marker: str) -> None:
            teacher.emit("act", {"action": "apply", "yaml": CONFIGMAP.format(name=marker)})

        figures = run_actions(teachers, students, act, args.actions)
        cpu = server.cpu_seconds() - cpu0
        wall = time.perf_counter() - t0
        total = sum(t.messages for g in students for t in g) - ticks0
        wire = sum(t.wire_bytes for g in students for t in g) - bytes0
        size = (sum(t.text_bytes for g in students for t in g) - text0) // max(1, total)
        errors = [e for g in students for t in g for e in t.errors] + [
            e for t in teachers for e in t.errors
        ]
        report("playground (followers of the teacher's session)", figures, total, cpu, wire)
        print(f"  errors seen by clients: {len(errors)} {errors[:2]}")
        if errors:
            trace = [line for line in server.stderr().splitlines() if line.strip()]
            print("  server stderr (last lines):", *trace[-25:], sep="\n    ")
        rate = total / wall / max(1, args.classes * args.students)
        for tab in [*teachers, *(t for g in students for t in g)]:
            tab.close()
    return rate, cpu / total if total else float("nan"), size


# -- the bare baseline --------------------------------------------------------------------

BARE = r"""
import json, sys, threading, time
import socketio
from werkzeug.serving import make_server
rate = float(sys.argv[1]); size = int(sys.argv[2])
server = socketio.Server(async_mode="threading")
rooms = set()
@server.on("join")
def on_join(sid, data):
    server.enter_room(sid, data["room"]); rooms.add(data["room"])
@server.on("act")
def on_act(sid, data):
    server.emit("tick", {"seq": 0, "now": time.time(), "sentAt": time.time(), "actions": [data["marker"]], "pad": "x" * size}, to=data["room"])
def ticker():
    while True:
        time.sleep(1.0 / rate)
        for room in list(rooms):
            server.emit("tick", {"seq": 0, "now": time.time(), "pad": "x" * size}, to=room)
threading.Thread(target=ticker, daemon=True).start()
app = socketio.WSGIApp(server)
http = make_server("127.0.0.1", 0, app, threaded=True)
print(f"http://127.0.0.1:{http.server_port}/", flush=True)
http.serve_forever()
"""


def bare(args: argparse.Namespace, rate: float, size: int) -> float:
    process = subprocess.Popen(
        [sys.executable, "-c", BARE, str(max(rate, 1.0)), str(max(100, size - 80))],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        port = int(line.rsplit(":", 1)[1].strip("/\n"))
        url = f"http://127.0.0.1:{port}"
        reader = Reader()
        teachers, students = [], []
        for c in range(args.classes):
            teachers.append(Tab(port, url, reader))
            group = []
            for _ in range(args.students):
                tab = Tab(port, url, reader)
                tab.emit("join", {"room": f"r{c}"})
                group.append(tab)
            students.append(group)
        time.sleep(2.0)
        stat = Path(f"/proc/{process.pid}/stat")

        def cpu() -> float:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

        cpu0, before = cpu(), sum(t.messages for g in students for t in g)
        bytes0 = sum(t.wire_bytes for g in students for t in g)

        def act(teacher: Tab, c: int, marker: str) -> None:
            teacher.emit("act", {"room": f"r{c}", "marker": marker})

        figures = run_actions(teachers, students, act, args.actions)
        used = cpu() - cpu0
        total = sum(t.messages for g in students for t in g) - before
        wire = sum(t.wire_bytes for g in students for t in g) - bytes0
        report(
            f"bare python-socketio room broadcast ({rate:.1f} ticks/s per tab)",
            figures,
            total,
            used,
            wire,
        )
        for tab in [*teachers, *(t for g in students for t in g)]:
            tab.close()
        return used / total if total else float("nan")
    finally:
        process.kill()
        process.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--students", type=int, default=60)
    parser.add_argument("--actions", type=int, default=10)
    parser.add_argument("--speed", type=float, default=10.0)
    parser.add_argument(
        "--deflate",
        action="store_true",
        help="offer permessage-deflate, as every browser does (default: plain WebSockets)",
    )
    args = parser.parse_args()
    Tab.DEFLATE = args.deflate
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
          f"clients {'with' if args.deflate else 'without'} permessage-deflate")  # fmt: skip
    rate, per_playground, size = playground(args)
    print(f"  a follower message is {size} characters of Socket.IO text on average")
    per_bare = bare(args, rate, size)
    print(f"CPU per follower message: playground {per_playground * 1e6:.1f} us, "
          f"bare broadcast {per_bare * 1e6:.1f} us")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
