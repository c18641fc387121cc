"""Serving with one process or several, and stopping without losing anyone's run.

serve(host, port, workers=1, overrides={})   # what `pod-playground [--workers N]` runs

One worker (the default): this process serves, as it always did. SIGTERM (and Ctrl-C)
*drains* it: it stops accepting, writes every session's record (webapp/records.py),
closes every connection so the tabs reconnect, and exits 0; started again, it resumes
each tab's session where its record left it.

Several workers (`--workers N`, N > 1, needs Redis): this process binds the port once and
forks N workers that accept on that same socket (as Gunicorn does: the kernel hands each
connection to one of them; a worker that dies leaves the others accepting, with no
connection to it lost but its own). It supervises them: a worker that dies is started
again; SIGTERM or SIGINT drains every worker and waits for them. Socket.IO runs
WebSocket-only then (long polling would need every request of a connection on one
worker), and a class's tabs on other workers reach it through Redis
(webapp/classes/span.py).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import threading
import time
from typing import Any

DRAIN_SECONDS = 20.0
FLUSH_SECONDS = 1.0  # a worker exits after this long even if draining has not finished
RESPAWN_PAUSE = 1.0  # between restarts of a worker that keeps dying at once


def say(line: str) -> None:
    """One line on stdout in one write: the workers share the parent's stdout, and lines
    written in pieces interleave."""
    sys.stdout.flush()
    os.write(sys.stdout.fileno(), f"{line}\n".encode())


def make_server(host: str, port: int, app: Any, fd: int | None = None) -> Any:
    from webapp.server import PlaygroundServer, ServerLimits

    return PlaygroundServer(host, port, app, ServerLimits.from_config(app.config), fd=fd)


def drain(app: Any) -> int:
    """Write every session's record, let the leases go, and close every connection (the
    tabs reconnect and resume). Returns how many sessions were written."""
    from webapp.realtime import realtime_of, transport

    rt = realtime_of(app)
    stop_pacing(app)
    # Each tab hears the exact moment its session stops at (time alone is otherwise resent
    # only once a second), which is the moment its record is written at.
    for session in rt.manager.sessions():
        with session.lock:
            rt.send_tick(session)
    if rt.span is not None:  # every class held here, as it is now (with its run's id)
        from webapp.classes import classes_of

        classes_of(app).save_all()
    written = rt.keeper.drain() if rt.keeper is not None else 0
    if rt.span is not None:  # the classes go, and their tabs on other workers rejoin
        rt.span.drain()
    eio = rt.socketio.server.eio
    # What was already sent reaches the tabs first (shutting a socket down drops its
    # queue), so each resumes from the moment it last saw; bounded.
    deadline = time.monotonic() + FLUSH_SECONDS
    while time.monotonic() < deadline and any(
        transport.queued_bytes(eio, eio_sid) for eio_sid in list(eio.sockets)
    ):
        time.sleep(0.02)
    for eio_sid in list(eio.sockets):
        transport.hang_up(eio, eio_sid)
    return written


def stop_pacing(app: Any) -> None:
    """Sessions stop moving (the scheduler's round in progress ends first)."""
    from webapp.realtime import realtime_of

    scheduler = realtime_of(app).scheduler
    scheduler.stop()
    time.sleep(2 * scheduler.period)


def run_worker(
    host: str, port: int, overrides: dict[str, Any], *, fd: int | None = None, announce: bool
) -> int:
    """Serve in this process until SIGTERM/SIGINT, then drain."""
    from webapp import create_app
    from webapp.logs import configure_logging
    from webapp.metrics import readiness_of

    app = create_app(overrides)
    configure_logging(app.config["LOG_FORMAT"])  # PLAYGROUND_LOG_FORMAT=json: JSON lines
    server = make_server(host, port, app, fd=fd)
    drained = threading.Event()
    draining = threading.Event()

    def stop(*_: Any) -> None:
        if draining.is_set():
            return
        draining.set()

        def work() -> None:
            try:
                readiness_of(app).start_draining()  # /readyz: 503 "draining"
                stop_pacing(app)  # the moment every session is written at
                server.shutdown()  # no new connections from here on
                written = drain(app)
                say(f"worker {os.getpid()} drained: {written} sessions written")
            finally:
                drained.set()

        threading.Thread(target=work, name="drain", daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if announce:
        shown = f"[{host}]" if ":" in host else host
        print(f"Pod Lifecycle Playground on http://{shown}:{server.server_port}/", flush=True)
    else:
        say(f"worker {os.getpid()} ready")
    try:
        server.serve_forever()
    finally:
        if draining.is_set():
            drained.wait(DRAIN_SECONDS)
        server.server_close()
    return 0


def serve(host: str, port: int, *, workers: int = 1, overrides: dict[str, Any]) -> int:
    if workers <= 1:
        return run_worker(host, port, overrides, announce=True)
    return supervise(host, port, workers, overrides)


def supervise(host: str, port: int, workers: int, overrides: dict[str, Any]) -> int:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.create_server((host, port), family=family, backlog=2048)
    # Every worker polls this socket; the ones that lose the race for a connection must
    # not block in accept() (they would not see a shutdown until the next connection).
    listener.setblocking(False)
    listener.set_inheritable(True)
    bound = listener.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    print(f"Pod Lifecycle Playground on http://{shown}:{bound}/ ({workers} workers)", flush=True)

    children: dict[int, float] = {}  # pid -> when it started
    stopping = threading.Event()

    def spawn() -> None:
        pid = os.fork()
        if pid == 0:  # the worker
            code = 1
            try:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                code = run_worker(host, bound, overrides, fd=listener.fileno(), announce=False)
            except BaseException as error:  # pragma: no cover - reported, then the exit code
                print(f"worker {os.getpid()} failed: {error!r}", file=sys.stderr, flush=True)
            finally:
                sys.stdout.flush()
                os._exit(code)
        children[pid] = time.monotonic()

    def forward(signum: int, _frame: Any) -> None:
        stopping.set()
        for pid in list(children):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    for _ in range(workers):
        spawn()
    while children:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            break
        except InterruptedError:  # pragma: no cover - PEP 475 retries os.wait
            continue
        started = children.pop(pid, None)
        if started is None or stopping.is_set():
            continue
        print(
            f"worker {pid} ended ({_describe(status)}); starting another",
            file=sys.stderr,
            flush=True,
        )
        if time.monotonic() - started < RESPAWN_PAUSE:
            time.sleep(RESPAWN_PAUSE)
        if not stopping.is_set():
            spawn()
    listener.close()
    return 0


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}"
    return f"exit {os.WEXITSTATUS(status)}"
