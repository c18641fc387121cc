"""`pod-playground` serves through gunicorn, embedded through its application API.

serve(host, port, workers=1, overrides={})   # what `pod-playground [--workers N]` runs

gunicorn's arbiter binds the port and forks `workers` processes that accept on it (its
pre-fork model: the kernel hands each connection to one of them; a worker that dies is
started again by the arbiter). Each worker builds its own app (`create_app`, after the
fork: the scheduler and the other background threads of the app are the worker's own)
and serves it with gunicorn's threaded worker (`gthread`): a thread per request or
WebSocket, as Flask-SocketIO's threading mode needs (python-engineio's threading driver
takes the raw socket from `gunicorn.socket`, simple-websocket does the WebSocket). Why
that worker class and not gevent's or eventlet's: docs/hosting.md, "Why gunicorn's
threaded worker".

What is ours, on top of gunicorn:
- **The drain** (`PlaygroundWorker.handle_exit`): SIGTERM (or SIGINT) to the arbiter closes
  the listening socket and sends SIGTERM to every worker; gunicorn's worker then stops
  accepting and lets requests in flight finish (up to `graceful_timeout`), while ours
  makes `/readyz` answer "draining", stops pacing sessions, writes every session's record
  (webapp/records.py), lets the leases and classes go and hangs up every Socket.IO
  connection, so that the tabs reconnect and resume at the moment they were drained at.
  The worker exits once that is written and every connection is done.
- **Connections served at once** (`ConnectionBounds`): at most SERVER_MAX_CONNECTIONS
  requests and WebSockets in a worker, SERVER_MAX_CONNECTIONS_PER_CLIENT from one client
  (the visitor named by X-Forwarded-For behind a trusted proxy, webapp/clients.py); past
  it a `503 too_many_connections` in the visitor's language. Each holds one of gunicorn's
  threads, so the bound is what keeps one address from holding them all.
- The lines the tests and operators read: `Pod Lifecycle Playground on http://H:P/` once
  the port is bound (with `--port 0`, the port the kernel gave), `worker PID ready`, and
  `worker PID drained: N sessions written`.

What gunicorn and nginx do now and the playground no longer does itself: the request gate
(gthread waits for a request's first bytes on its poller, without a thread; slow and
half-open requests are nginx's to bound: deploy/nginx.conf), keep-alive (gthread's), the
supervisor (gunicorn's arbiter) and the shared pinger (engine.io's own ping task again).

Until issue 22 the playground ran its own server on Werkzeug's (a request gate over
epoll, its own keep-alive, a shared pinger, its own pre-fork supervisor); the two were
measured side by side before it was removed (docs/hosting.md, "Why gunicorn's threaded
worker").
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from gunicorn.app.base import BaseApplication
from gunicorn.arbiter import Arbiter
from gunicorn.glogging import Logger
from gunicorn.workers.gthread import ThreadWorker

from webapp import i18n

DRAIN_SECONDS = 20.0  # a worker's drain, then its connections, at most this long
FLUSH_SECONDS = 1.0  # what was already sent reaches the tabs for at most this long
KEEPALIVE_MAX_SECONDS = 300.0  # SERVER_KEEPALIVE_SECONDS at most


def say(line: str) -> None:
    """One line on stdout in one write: the workers share the arbiter's stdout, and lines
    written in pieces interleave."""
    sys.stdout.flush()
    os.write(sys.stdout.fileno(), f"{line}\n".encode())


# -- the drain ------------------------------------------------------------------------------


def stop_pacing(app: Any) -> None:
    """Sessions stop moving (the scheduler's round in progress ends first)."""
    from webapp.realtime import realtime_of

    scheduler = realtime_of(app).scheduler
    scheduler.stop()
    time.sleep(2 * scheduler.period)


def drain(app: Any) -> int:
    """Write every session's record, let the leases go, and close every Socket.IO
    connection (the tabs reconnect and resume). Returns how many sessions were written."""
    from webapp.metrics import readiness_of
    from webapp.realtime import realtime_of, transport

    readiness_of(app).start_draining()  # /readyz: 503 "draining"
    rt = realtime_of(app)
    stop_pacing(app)  # the moment every session is written at
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


# -- connections served at once ---------------------------------------------------------------


class ConnectionBounds:
    """WSGI middleware: at most `max_connections` requests (a WebSocket is one request for
    its whole life) served at once, `max_per_client` of them for one client address."""

    def __init__(
        self,
        app: Callable[..., Iterable[bytes]],
        *,
        max_connections: int,
        max_per_client: int,
        client_of: Callable[[Mapping[str, Any]], str],
    ) -> None:
        self.app = app
        self.max_connections = max_connections
        self.max_per_client = max_per_client
        self.client_of = client_of
        self._lock = threading.Lock()
        self._per_client: dict[str, int] = {}
        self.served = 0

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        client = self.client_of(environ)
        with self._lock:
            full = self.served >= self.max_connections or (
                self._per_client.get(client, 0) >= self.max_per_client
            )
            if not full:
                self.served += 1
                self._per_client[client] = self._per_client.get(client, 0) + 1
        if full:
            return self._refuse(environ, start_response)
        try:
            result = self.app(environ, start_response)
        except BaseException:
            self._release(client)
            raise
        return _Released(result, lambda: self._release(client))

    def _release(self, client: str) -> None:
        with self._lock:
            self.served -= 1
            left = self._per_client.get(client, 1) - 1
            if left > 0:
                self._per_client[client] = left
            else:
                self._per_client.pop(client, None)

    @staticmethod
    def _refuse(environ: Mapping[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        lang = i18n.negotiate_language(environ.get("HTTP_ACCEPT_LANGUAGE"))
        code = "too_many_connections"
        body = json.dumps(
            {"code": code, "message": i18n.message(code, lang)}, ensure_ascii=False
        ).encode("utf-8")
        start_response(
            "503 Service Unavailable",
            [
                ("Content-Type", "application/json"),
                ("Content-Length", str(len(body))),
                ("Retry-After", "5"),
                ("Connection", "close"),
            ],
        )
        return [body]


class _Released:
    """A WSGI response that calls `release` once it is closed (or, with no `close`, once it
    has been iterated): the request is served until then."""

    def __init__(self, result: Iterable[bytes], release: Callable[[], None]) -> None:
        self._result = result
        self._release: Callable[[], None] | None = release

    def __iter__(self) -> Any:
        return iter(self._result)

    def close(self) -> None:
        try:
            close = getattr(self._result, "close", None)
            if close is not None:
                close()
        finally:
            release, self._release = self._release, None
            if release is not None:
                release()

    def __del__(self) -> None:  # a server that never closes the response still releases
        if self._release is not None:
            self._release()


# -- gunicorn ---------------------------------------------------------------------------------


LIMIT_REQUEST_LINE = 8190  # bytes; gunicorn's largest (0 would be no limit at all)


class PlaygroundWorker(ThreadWorker):  # type: ignore[misc]
    """gunicorn's threaded worker whose SIGTERM (and SIGINT) drains the playground first."""

    drain_thread: threading.Thread | None = None

    def init_signals(self) -> None:
        super().init_signals()
        # Ctrl-C at a terminal reaches every process of the group: drain, as SIGTERM does
        # (gunicorn's own SIGINT is a quick exit, which would lose what moved since the
        # last record).
        signal.signal(signal.SIGINT, self.handle_exit)

    def handle_exit(self, sig: int, frame: Any) -> None:
        if self.drain_thread is None and self.alive:
            app = getattr(getattr(self, "wsgi", None), "playground_app", None)
            if app is not None:
                self.drain_thread = threading.Thread(
                    target=self._drain, args=(app,), name="drain", daemon=True
                )
                self.drain_thread.start()
        super().handle_exit(sig, frame)  # no new connections; those in flight go on

    def _drain(self, app: Any) -> None:
        try:
            written = drain(app)
            say(f"worker {os.getpid()} drained: {written} sessions written")
        except Exception:  # pragma: no cover - reported, the worker still exits
            self.log.exception("drain failed")

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        """A request line or head over gunicorn's limits (LIMIT_REQUEST_LINE, its header
        limits) is answered in the Kubernetes API's Status shape, which a session's API
        clients read and the page's never meet; every other error as gunicorn does."""
        from gunicorn.http.errors import LimitRequestHeaders, LimitRequestLine

        if not isinstance(exc, LimitRequestLine | LimitRequestHeaders):
            super().handle_error(req, client, addr, exc)
            return
        if isinstance(exc, LimitRequestLine):
            status, reason = 414, "URI Too Long"
        else:
            status, reason = 431, "Request Header Fields Too Large"
        body = json.dumps({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": f"{reason}: {exc}", "code": status,
        }).encode()  # fmt: skip
        head = (
            f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        self.log.warning("Invalid request from ip=%s: %s", (addr or ("",))[0], exc)
        with contextlib.suppress(OSError):
            client.sendall(head.encode("ascii") + body)

    def run(self) -> None:
        super().run()  # returns once no connection is left (or at graceful_timeout)
        if self.drain_thread is not None:
            self.drain_thread.join(DRAIN_SECONDS)


class PlaygroundArbiter(Arbiter):  # type: ignore[misc]
    """gunicorn's arbiter, whose SIGINT stops the workers gracefully (they drain), as its
    SIGTERM does; SIGQUIT stays the quick stop."""

    def handle_int(self) -> None:
        raise StopIteration


class PlaygroundLogger(Logger):  # type: ignore[misc]
    """gunicorn's logger; with PLAYGROUND_LOG_FORMAT=json its lines are JSON lines too."""

    json_lines = False

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        if self.json_lines:
            from webapp.logs import JsonFormatter

            for log in (self.error_log, self.access_log):
                for handler in log.handlers:
                    handler.setFormatter(JsonFormatter())


class PlaygroundApplication(BaseApplication):  # type: ignore[misc]
    """The playground as a gunicorn application: settings from `settings`, the app built in
    each worker from `overrides` (webapp.create_app)."""

    def __init__(self, settings: dict[str, Any], overrides: dict[str, Any]) -> None:
        self.settings = settings
        self.overrides = overrides
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.settings.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        from webapp import create_app
        from webapp.logs import configure_logging

        app = create_app(self.overrides)
        configure_logging(app.config["LOG_FORMAT"])
        bound(app)
        return _Entry(app)

    def run(self) -> None:
        PlaygroundArbiter(self).run()


class _Entry:
    """The WSGI callable a worker serves: the Flask app, with the app reachable for the
    drain."""

    def __init__(self, app: Any) -> None:
        self.playground_app = app

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        return self.playground_app(environ, start_response)


def gunicorn_settings(
    host: str, port: int, workers: int, config: Mapping[str, Any]
) -> dict[str, Any]:
    """gunicorn's settings for `pod-playground`, from the playground's config."""
    max_connections = int(config["SERVER_MAX_CONNECTIONS"])
    shown = f"[{host}]" if ":" in host else host
    proxies = str(config.get("TRUSTED_PROXIES") or "").strip()

    def when_ready(arbiter: Any) -> None:
        bound = arbiter.LISTENERS[0].sock.getsockname()[1]
        extra = f" ({workers} workers)" if workers > 1 else ""
        print(f"Pod Lifecycle Playground on http://{shown}:{bound}/{extra}", flush=True)

    def post_worker_init(worker: Any) -> None:
        say(f"worker {os.getpid()} ready")

    return {
        "bind": [f"{shown}:{port}"],
        "workers": workers,
        "worker_class": "webapp.serving.PlaygroundWorker",
        # A thread per request or WebSocket being served (ThreadPoolExecutor starts them
        # as they are needed): ConnectionBounds refuses past SERVER_MAX_CONNECTIONS, and a
        # refusal needs a thread too.
        "threads": max_connections + 16,
        # ... and connections kept alive between requests, on gthread's poller.
        "worker_connections": 2 * max_connections + 16,
        "keepalive": math.ceil(keepalive_seconds(config.get("SERVER_KEEPALIVE_SECONDS", 15.0))),
        "backlog": 2048,
        # The request line (a URL with a long label selector) and head: gunicorn's
        # largest line; past it 414 in the Status shape (PlaygroundWorker.handle_error).
        "limit_request_line": LIMIT_REQUEST_LINE,
        # a worker silent that long (its main loop, not a request) is killed
        "timeout": worker_timeout_seconds(config.get("SERVER_WORKER_TIMEOUT_SECONDS", 30)),
        "graceful_timeout": int(DRAIN_SECONDS) + 5,
        # X-Forwarded-Proto (the scheme Socket.IO's same-origin check compares) is believed
        # from the trusted proxies only; the client address is ours (webapp/clients.py).
        "forwarded_allow_ips": proxies or "127.0.0.1,::1",
        "proc_name": "pod-playground",
        "control_socket_disable": True,  # no socket in $HOME (a read-only root in a Pod)
        "logger_class": "webapp.serving.PlaygroundLogger",
        "loglevel": "warning",
        "when_ready": when_ready,
        "post_worker_init": post_worker_init,
    }


def serve(host: str, port: int, *, workers: int = 1, overrides: dict[str, Any]) -> int:
    from webapp.config import load_config

    config = load_config(overrides)
    PlaygroundLogger.json_lines = config.get("LOG_FORMAT") == "json"
    settings = gunicorn_settings(host, port, workers, config)
    PlaygroundApplication(settings, overrides).run()  # exits through SystemExit
    return 0


def keepalive_seconds(value: Any) -> float:
    """SERVER_KEEPALIVE_SECONDS, checked: 0 (off) to KEEPALIVE_MAX_SECONDS."""
    seconds = float(value)
    if not 0 <= seconds <= KEEPALIVE_MAX_SECONDS:  # also refuses NaN
        raise ValueError(
            f"SERVER_KEEPALIVE_SECONDS must be between 0 and {KEEPALIVE_MAX_SECONDS:g}, "
            f"not {value!r}"
        )
    return seconds


def worker_timeout_seconds(value: Any) -> int:
    """SERVER_WORKER_TIMEOUT_SECONDS, checked: 10 to 3600 whole seconds."""
    seconds = int(value)
    if not 10 <= seconds <= 3600:
        raise ValueError(
            f"SERVER_WORKER_TIMEOUT_SECONDS must be between 10 and 3600, not {value!r}"
        )
    return seconds


def bound(app: Any) -> ConnectionBounds:
    """Put ConnectionBounds around `app`'s WSGI app, with the bounds of its config, and
    register it for its gauge on /metrics (`playground_http_connections_served`)."""
    from webapp.clients import client_address, proxies_of

    proxies = proxies_of(app.config)
    bounds = ConnectionBounds(
        app.wsgi_app,
        max_connections=int(app.config["SERVER_MAX_CONNECTIONS"]),
        max_per_client=int(app.config["SERVER_MAX_CONNECTIONS_PER_CLIENT"]),
        client_of=lambda environ: client_address(environ, proxies),
    )
    app.wsgi_app = bounds
    app.extensions["playground.server"] = bounds
    return bounds
