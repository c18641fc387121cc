"""Which async mode and server: threading on our server, against what else runs here.

python bench/async_modes.py [--clients 50] [--requests 40] [--tabs 50] [--steps 20]
                            [--gevent-python PATH]

Each variant serves the real app (create_app) in a process of its own on a free loopback
port; this process then measures, against it:

- HTTP: `--clients` threads, each making `--requests` GETs of the page's largest module
  (brotli) and /healthz on one kept-alive connection (a new one when the server closes):
  requests a second, p50/p99 latency, connections opened, server CPU per 1000 requests;
- Socket.IO: `--tabs` python-socketio clients over WebSocket join crash-loop-backoff (a
  step always changes something), then each asks `--steps` clock steps one after
  another; the time from `clock step` to
  its `tick`: p50/p99, and server CPU per 1000 steps.

Variants: `threading-ours` (webapp/server.py: what `pod-playground` runs: keep-alive, the
request gate), `threading-werkzeug` (Werkzeug's plain threaded server: `Connection: close`),
and `gevent` (gevent.pywsgi with simple-websocket, monkey-patched) when `--gevent-python`
names an interpreter that has gevent (it is not a dependency: install it in a venv of its
own, `python -m venv --system-site-packages V && V/bin/pip install gevent`). Eventlet is not
measured: its maintainers discourage new use (docs/hosting.md). Prints figures; asserts
nothing.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

SERVE = r"""
import sys, os
mode = sys.argv[1]
if mode == "gevent":
    from gevent import monkey
    monkey.patch_all()
sys.path.insert(0, {root!r})
from webapp import create_app
app = create_app({{"SOCKETIO_ASYNC_MODE": "gevent" if mode == "gevent" else "threading",
                  "PLAYGROUND_DB": sys.argv[2], "MAX_SESSIONS_PER_CLIENT": 10000,
                  "NEW_SESSIONS_PER_MINUTE": 100000, "ACTIONS_PER_SECOND": 1000,
                  "SERVER_MAX_CONNECTIONS_PER_CLIENT": 10000,
                  "SERVER_MAX_PENDING_PER_CLIENT": 10000}})
if mode == "threading-ours":
    from webapp.cli import make_playground_server
    server = make_playground_server("127.0.0.1", 0, app)
    port = server.server_port
    run = server.serve_forever
elif mode == "threading-werkzeug":
    from werkzeug.serving import make_server
    server = make_server("127.0.0.1", 0, app, threaded=True)
    port = server.server_port
    run = server.serve_forever
else:
    from gevent.pywsgi import WSGIServer
    server = WSGIServer(("127.0.0.1", 0), app, log=None)
    server.start()
    port = server.server_port
    run = server.serve_forever
print(port, flush=True)
run()
"""


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def http_load(port: int, clients: int, requests: int, asset: str) -> dict[str, Any]:
    latencies: list[float] = []
    opened = [0]
    lock = threading.Lock()

    def client() -> None:
        mine: list[float] = []
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        local_opened = 0
        for i in range(requests):
            path = asset if i % 2 == 0 else "/healthz"
            if connection.sock is None:
                local_opened += 1
            started = time.perf_counter()
            connection.request("GET", path, headers={"Accept-Encoding": "br, gzip"})
            response = connection.getresponse()
            response.read()
            mine.append(time.perf_counter() - started)
            if response.will_close:
                connection.close()
        connection.close()
        with lock:
            latencies.extend(mine)
            opened[0] += local_opened

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    return {
        "requests": len(latencies),
        "per_second": len(latencies) / elapsed,
        "p50_ms": percentile(latencies, 0.5) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
        "connections": opened[0],
    }


def socketio_load(url: str, tabs: int, steps: int) -> dict[str, Any]:
    import socketio

    latencies: list[float] = []
    lock = threading.Lock()
    errors = [0]

    def tab() -> None:
        got = threading.Event()
        client = socketio.Client(reconnection=False)
        joined = threading.Event()
        client.on("snapshot", lambda *_: joined.set())
        client.on("tick", lambda *_: got.set())
        client.on("error", lambda *_: got.set())
        mine: list[float] = []
        try:
            client.connect(url, transports=["websocket"])
            client.emit("join", {"scenario": "crash-loop-backoff"})
            if not joined.wait(30):
                raise TimeoutError("no snapshot")
            for _ in range(steps):
                got.clear()
                started = time.perf_counter()
                client.emit("clock", {"op": "step"})
                if not got.wait(10):
                    raise TimeoutError("no tick")
                mine.append(time.perf_counter() - started)
        except Exception as error:
            with lock:
                errors[0] += 1
                if errors[0] == 1:
                    print(f"  first failed tab: {type(error).__name__}: {error}", flush=True)
        finally:
            client.disconnect()
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=tab) for _ in range(tabs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {
        "steps": len(latencies),
        "p50_ms": percentile(latencies, 0.5) * 1000 if latencies else float("nan"),
        "p99_ms": percentile(latencies, 0.99) * 1000 if latencies else float("nan"),
        "failed_tabs": errors[0],
    }


def run_variant(mode: str, python: str, args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    script = SERVE.format(root=str(ROOT))
    server = subprocess.Popen(
        [python, "-c", script, mode, str(tmp / f"{mode}.sqlite3")],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        base = f"http://127.0.0.1:{port}"
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("GET", "/")
        page = connection.getresponse().read().decode()
        connection.close()
        asset = re.search(r'"(/assets/vendor/codemirror\.bundle\.[0-9a-f]+\.js)"', page)
        assert asset, "the page names its hashed CodeMirror bundle"
        http_load(port, 2, 4, asset[1])  # warm up (compression on first use)
        cpu = cpu_seconds(server.pid)
        result: dict[str, Any] = {"http": http_load(port, args.clients, args.requests, asset[1])}
        result["http"]["cpu_ms_per_1000"] = (
            (cpu_seconds(server.pid) - cpu) * 1e6 / result["http"]["requests"]
        )
        cpu = cpu_seconds(server.pid)
        result["socketio"] = socketio_load(base, args.tabs, args.steps)
        steps = max(1, result["socketio"]["steps"])
        result["socketio"]["cpu_ms_per_1000"] = (cpu_seconds(server.pid) - cpu) * 1e6 / steps
        return result
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--tabs", type=int, default=50)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--gevent-python", default=None)
    args = parser.parse_args(argv)
    import tempfile

    variants = [("threading-ours", sys.executable), ("threading-werkzeug", sys.executable)]
    if args.gevent_python:
        variants.append(("gevent", args.gevent_python))
    else:
        print("gevent: not measured (no --gevent-python); eventlet: not measured (deprecated)")
    print(
        f"{args.clients} HTTP clients x {args.requests} requests (CodeMirror bundle, br, and "
        f"/healthz, alternating); {args.tabs} tabs x {args.steps} clock steps; "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} (others' work skews "
        "wall times; CPU per 1000 is steadier)"
    )
    header = (
        f"{'variant':<20} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'conns':>6} "
        f"{'CPU ms/1k':>9} | {'step p50':>8} {'step p99':>8} {'CPU ms/1k':>9} {'failed':>6}"
    )
    print(header)
    with tempfile.TemporaryDirectory() as tmp:
        for mode, python in variants:
            try:
                r = run_variant(mode, python, args, Path(tmp))
            except Exception as error:  # a variant that does not run here is a finding too
                print(f"{mode:<20} failed: {type(error).__name__}: {error}")
                continue
            h, s = r["http"], r["socketio"]
            print(
                f"{mode:<20} {h['per_second']:>7.0f} {h['p50_ms']:>7.1f} {h['p99_ms']:>7.1f} "
                f"{h['connections']:>6} {h['cpu_ms_per_1000']:>9.0f} | {s['p50_ms']:>8.1f} "
                f"{s['p99_ms']:>8.1f} {s['cpu_ms_per_1000']:>9.0f} {s['failed_tabs']:>6}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
