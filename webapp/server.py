"""The HTTP server `pod-playground` runs: Werkzeug's threaded WSGI server, with bounds.

server = PlaygroundServer("127.0.0.1", 0, app, ServerLimits.from_config(app.config))
server.serve_forever()

Werkzeug's `ThreadedWSGIServer` starts a thread for every accepted connection, before a
byte of the request has arrived, and that thread waits as long as the client likes: 3000
half-open requests (`GET / HTTP/1.1\\r\\nX-Slow: ` and nothing more) held 3001 threads. Here:

- **A request gets a thread only once it has arrived.** Accepted connections wait in one
  `epoll` loop (`RequestGate`), edge-triggered, peeking at what the client sent
  (`MSG_PEEK`: nothing is consumed, Werkzeug later reads the request as usual) until the
  request head is complete (and the first PREBUFFER_BODY bytes of its body). A request not
  complete within `request_timeout` is answered `408` and closed; a head over
  MAX_HEAD_BYTES `431`. Half-open requests cost a file descriptor each, no thread.
- **Bounded waiting room.** At most `max_pending` connections wait (and `max_pending_per_client`
  from one address); past it a connection is answered `503` at once.
- **Bounded workers.** At most `max_connections` requests or WebSockets are served at once,
  `max_connections_per_client` from one address; past it, `503` (JSON, in the language of
  the request's Accept-Language). Each worker's socket has `request_timeout` as its timeout,
  so a slow body or a client that does not read the response cannot hold it for long; a
  WebSocket's socket gets a longer one (`webapp.realtime.transport`).
- **Keep-alive without a thread.** A plain HTTP/1.1 request is answered keep-alive
  (webapp/http_keepalive.py); its thread then ends and the connection waits in the gate
  again, for `keepalive` seconds (SERVER_KEEPALIVE_SECONDS), closed silently after that.
  Accepted sockets get TCP_NODELAY.
- **Shared pings.** engine.io starts a thread per connection that sleeps `ping_interval`
  before each PING; one `Pinger` thread does it for every connection of the server, so a
  WebSocket costs three threads (its request, simple-websocket's reader and engine.io's
  writer) instead of four.

Behind a trusted proxy (`TRUSTED_PROXIES`), per-client bounds use the client named by
`X-Forwarded-For` in the request head (webapp/clients.py); the waiting room, which has no
head yet, only has its global bound then.
"""

from __future__ import annotations

import contextlib
import errno
import heapq
import itertools
import json
import logging
import select
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from werkzeug.serving import ThreadedWSGIServer, WSGIRequestHandler

from webapp import i18n
from webapp.clients import Proxies, client_address, is_trusted, proxies_of
from webapp.http_keepalive import (
    KEEPALIVE_MAX_SECONDS,
    has_buffered_input,
    may_keep_alive,
    run_wsgi_keepalive,
)

log = logging.getLogger(__name__)

MAX_HEAD_BYTES = 16 * 1024  # request line and headers
PREBUFFER_BODY = 64 * 1024  # body bytes that must have arrived before a thread is given
_STATUS_TEXT = {
    408: "Request Timeout",
    431: "Request Header Fields Too Large",
    503: "Service Unavailable",
}


@dataclass(frozen=True)
class ServerLimits:
    request_timeout: float = 10.0
    max_pending: int = 8192
    max_pending_per_client: int = 256
    max_connections: int = 1000
    max_connections_per_client: int = 100
    trusted_proxies: Proxies = ()
    keepalive: float = 15.0  # an idle kept-alive connection waits this long, without a thread

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> ServerLimits:
        return cls(
            request_timeout=float(config["SERVER_REQUEST_TIMEOUT_SECONDS"]),
            max_pending=int(config["SERVER_MAX_PENDING"]),
            max_pending_per_client=int(config["SERVER_MAX_PENDING_PER_CLIENT"]),
            max_connections=int(config["SERVER_MAX_CONNECTIONS"]),
            max_connections_per_client=int(config["SERVER_MAX_CONNECTIONS_PER_CLIENT"]),
            trusted_proxies=proxies_of(config),
            keepalive=keepalive_seconds(config.get("SERVER_KEEPALIVE_SECONDS", 15.0)),
        )


def keepalive_seconds(value: Any) -> float:
    """SERVER_KEEPALIVE_SECONDS, checked: 0 (off) to KEEPALIVE_MAX_SECONDS."""
    seconds = float(value)
    if not 0 <= seconds <= KEEPALIVE_MAX_SECONDS:  # also refuses NaN
        raise ValueError(
            f"SERVER_KEEPALIVE_SECONDS must be between 0 and {KEEPALIVE_MAX_SECONDS:g}, "
            f"not {value!r}"
        )
    return seconds


# -- a request head, as far as the gate needs it ----------------------------------------------


def parse_head(head: bytes) -> dict[str, str]:
    """Header names (lower case) -> values of a request head (the request line skipped)."""
    headers: dict[str, str] = {}
    for line in head.split(b"\r\n")[1:]:
        name, sep, value = line.partition(b":")
        if sep:
            headers[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
    return headers


def refusal(status: int, code: str, lang: str, **params: Any) -> bytes:
    """A complete HTTP/1.1 response refusing a request: JSON {code, message}, then close."""
    body = json.dumps(
        {"code": code, "message": i18n.message(code, lang, **params)}, ensure_ascii=False
    ).encode("utf-8")
    head = (
        f"HTTP/1.1 {status} {_STATUS_TEXT[status]}\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Connection: close\r\n" + ("Retry-After: 5\r\n" if status == 503 else "") + "\r\n"
    )
    return head.encode("ascii") + body


def is_kube_api(data: bytes) -> bool:
    """Whether a request (its first bytes) is for a session's Kubernetes API (/kube/...)."""
    space = data.find(b" ", 0, 16)
    return space > 0 and data[space + 1 : space + 7] == b"/kube/"


def status_refusal(status: int, message: str) -> bytes:
    """A refusal of a Kubernetes API request as a `metav1.Status` (webapp/kubeapi)."""
    body = json.dumps({"kind": "Status", "apiVersion": "v1", "metadata": {},
                       "status": "Failure", "message": message, "code": status}).encode()  # fmt: skip
    head = (
        f"HTTP/1.1 {status} {_STATUS_TEXT[status]}\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


def refuse(sock: socket.socket, response: bytes) -> None:
    """Send `response` (small: it fits the socket's buffer) without blocking, and close.
    What the client sent is read first, so that closing does not reset the connection and
    lose the answer."""
    with contextlib.suppress(OSError):
        sock.setblocking(False)
        sock.send(response)
        for _ in range(16):
            if not sock.recv(65536):
                break
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_WR)
    with contextlib.suppress(OSError):
        sock.close()


# -- the waiting room -----------------------------------------------------------------------


@dataclass
class Waiting:
    sock: socket.socket
    address: Any
    client: str
    deadline: float
    idle: bool = False  # a kept-alive connection between requests: closed silently at its deadline


class RequestGate:
    """Connections whose request has not fully arrived, watched by one epoll thread."""

    def __init__(
        self,
        limits: ServerLimits,
        dispatch: Callable[[socket.socket, Any, bytes], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limits = limits
        self.dispatch = dispatch
        self.clock = clock
        self._epoll = select.epoll()
        self._waiting: OrderedDict[int, Waiting] = OrderedDict()  # by arrival: by deadline
        self._per_client: dict[str, int] = {}
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def __len__(self) -> int:
        return len(self._waiting)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="request-gate", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        if self._thread is not None:
            self._thread.join(5)
        with self._lock:
            waiting = list(self._waiting.values())
            self._waiting.clear()
            self._per_client.clear()
        for entry in waiting:
            with contextlib.suppress(OSError):
                entry.sock.close()
        with contextlib.suppress(OSError):
            self._epoll.close()

    def admit(self, sock: socket.socket, address: Any, idle_for: float | None = None) -> None:
        """A connection just accepted (the accept thread: nothing here blocks), or one kept
        alive after a response (`idle_for` seconds until it is closed if nothing comes)."""
        peer = address[0] if isinstance(address, tuple) else str(address)
        # A connection from a trusted proxy carries many clients: no per-client bound here.
        trusted = self.limits.trusted_proxies and is_trusted(peer, self.limits.trusted_proxies)
        client = "" if trusted else peer
        with self._lock:
            full = len(self._waiting) >= self.limits.max_pending or (
                client and self._per_client.get(client, 0) >= self.limits.max_pending_per_client
            )
            if not full:
                fd = sock.fileno()
                wait = self.limits.request_timeout if idle_for is None else idle_for
                self._waiting[fd] = Waiting(
                    sock, address, client, self.clock() + wait, idle=idle_for is not None
                )
                if client:
                    self._per_client[client] = self._per_client.get(client, 0) + 1
        if full:
            if idle_for is not None:  # nothing was asked: just do not keep it
                with contextlib.suppress(OSError):
                    sock.close()
                return
            refuse(sock, refusal(503, "too_many_connections", i18n.DEFAULT_LANGUAGE))
            return
        sock.setblocking(False)
        try:
            # Edge-triggered: an event when data arrives (and at once if some already has).
            self._epoll.register(fd, select.EPOLLIN | select.EPOLLRDHUP | select.EPOLLET)
        except OSError:
            self._drop(fd)
            with contextlib.suppress(OSError):
                sock.close()

    def _drop(self, fd: int) -> Waiting | None:
        with self._lock:
            entry = self._waiting.pop(fd, None)
            if entry is not None and entry.client:
                left = self._per_client.get(entry.client, 1) - 1
                if left > 0:
                    self._per_client[entry.client] = left
                else:
                    self._per_client.pop(entry.client, None)
        if entry is not None:
            with contextlib.suppress(OSError, ValueError):
                self._epoll.unregister(fd)
        return entry

    def _run(self) -> None:
        while not self._stopped.is_set():
            try:
                events = self._epoll.poll(0.25)
            except OSError:  # closed by stop()
                return
            for fd, mask in events:
                self._readable(fd, mask)
            self._expire()

    def _readable(self, fd: int, mask: int) -> None:
        entry = self._waiting.get(fd)
        if entry is None:
            return
        try:
            data = entry.sock.recv(MAX_HEAD_BYTES + PREBUFFER_BODY, socket.MSG_PEEK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:  # the client went away before finishing its request
            self._close(fd)
            return
        if entry.idle:  # a kept-alive connection's next request has begun: it has
            entry.idle = False  # request_timeout to arrive, as a new connection has
            entry.deadline = self.clock() + self.limits.request_timeout
        end = data.find(b"\r\n\r\n")
        if end < 0:
            if len(data) >= MAX_HEAD_BYTES:
                if is_kube_api(data):  # the Kubernetes API answers in its Status shape
                    self._refuse(fd, status_refusal(431, "Request Header Fields Too Large: "
                                                    f"at most {MAX_HEAD_BYTES} bytes of request "
                                                    "line and headers"))  # fmt: skip
                    return
                self._refuse(fd, refusal(431, "request_head_too_large", i18n.DEFAULT_LANGUAGE))
            elif mask & (select.EPOLLRDHUP | select.EPOLLHUP):
                self._close(fd)  # half-closed with an incomplete request: it never comes
            return
        head = data[:end]
        headers = parse_head(head)
        try:
            length = max(0, int(headers.get("content-length", "0")))
        except ValueError:
            length = 0
        if len(data) < end + 4 + min(length, PREBUFFER_BODY):
            return  # the (first part of the) body is still on its way
        if self._drop(fd) is None:
            return
        entry.sock.setblocking(True)
        self.dispatch(entry.sock, entry.address, head)

    def _expire(self) -> None:
        now = self.clock()
        with self._lock:
            # Deadlines differ (idle and new connections): every entry is looked at.
            expired = [(fd, e.idle) for fd, e in self._waiting.items() if e.deadline <= now]
        for fd, idle in expired:
            if idle:
                self._close(fd)
            else:
                self._refuse(fd, refusal(408, "request_timeout", i18n.DEFAULT_LANGUAGE))

    def _refuse(self, fd: int, response: bytes) -> None:
        entry = self._drop(fd)
        if entry is not None:
            refuse(entry.sock, response)

    def _close(self, fd: int) -> None:
        entry = self._drop(fd)
        if entry is not None:
            with contextlib.suppress(OSError):
                entry.sock.close()


# -- shared pings ---------------------------------------------------------------------------


class Pinger:
    """engine.io's per-connection ping task (`Socket._send_ping`: sleep `ping_interval`,
    then send a PING if the connection is still open), for every connection at once."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._due: list[tuple[float, int, Any]] = []
        self._order = itertools.count()
        self._wake = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="engineio-pinger", daemon=True)
        self._thread.start()

    def schedule(self, eio_socket: Any) -> None:
        with self._wake:
            due = self.clock() + float(eio_socket.server.ping_interval)
            heapq.heappush(self._due, (due, next(self._order), eio_socket))
            self._wake.notify()

    def stop(self) -> None:
        with self._wake:
            self._stopped = True
            self._wake.notify()

    def _run(self) -> None:
        from engineio import packet

        while True:
            with self._wake:
                while not self._stopped and (not self._due or self._due[0][0] > self.clock()):
                    timeout = self._due[0][0] - self.clock() if self._due else None
                    self._wake.wait(timeout)
                if self._stopped:
                    return
                _, _, eio_socket = heapq.heappop(self._due)
            if not eio_socket.closing and not eio_socket.closed:
                # What Socket._send_ping does after its sleep (python-engineio 4.x).
                eio_socket.last_ping = time.time()
                with contextlib.suppress(Exception):
                    eio_socket.send(packet.Packet(packet.PING))


def share_pings(eio: Any, pinger: Pinger) -> None:
    """Route engine.io server `eio`'s ping tasks to `pinger` instead of a thread each."""
    start_background_task = eio.start_background_task

    def start(target: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if getattr(target, "__name__", "") == "_send_ping" and not args and not kwargs:
            pinger.schedule(target.__self__)
            return None
        return start_background_task(target, *args, **kwargs)

    eio.start_background_task = start


# -- the server -----------------------------------------------------------------------------


class PlaygroundRequestHandler(WSGIRequestHandler):
    """Werkzeug's handler; its socket timeout (`timeout`) and keep-alive (`keepalive`) are
    set per server. It serves one request (and any pipelined behind it), then its thread
    ends: `kept_alive` says the connection goes back to the gate to wait for the next."""

    keepalive: float = 0.0
    kept_alive: bool = False
    MAX_PIPELINED = 32

    def handle(self) -> None:
        try:
            for _ in range(self.MAX_PIPELINED):
                self.close_connection = True
                self.handle_one_request()
                if self.close_connection or not has_buffered_input(self):
                    break
            else:
                self.close_connection = True
        except (ConnectionError, TimeoutError) as error:
            self.connection_dropped(error)
        self.kept_alive = not self.close_connection

    def run_wsgi(self) -> None:
        if may_keep_alive(self, self.keepalive):
            run_wsgi_keepalive(self, self.keepalive)
        else:
            self.close_connection = True  # Werkzeug answers `Connection: close`
            super().run_wsgi()

    def connection_dropped(self, error: BaseException, environ: Any = None) -> None:
        # Also how a WebSocket ends (SimpleWebSocketWSGI raises ConnectionError for
        # Werkzeug): the connection is over, so do not read WebSocket frames left on it as
        # the next HTTP request (Werkzeug would answer them "400 Bad request syntax").
        self.close_connection = True


class PlaygroundServer(ThreadedWSGIServer):
    def __init__(
        self, host: str, port: int, app: Any, limits: ServerLimits, fd: int | None = None
    ) -> None:
        handler = type(
            "PlaygroundRequestHandler",
            (PlaygroundRequestHandler,),
            {"timeout": limits.request_timeout, "keepalive": limits.keepalive},
        )
        # `fd`: a listening socket shared by several worker processes (webapp/workers.py).
        super().__init__(host, port, app, handler=handler, fd=fd)
        self.limits = limits
        self.gate = RequestGate(limits, self._dispatch)
        self._served: dict[str, int] = {}
        self._served_total = 0
        self._served_lock = threading.Lock()
        self._gate_started = False
        self._closing = False
        extensions = getattr(app, "extensions", None)
        if isinstance(extensions, dict):
            extensions["playground.server"] = self  # its gauges on /metrics
        eio = _engineio_of(app)
        self.pinger: Pinger | None = None
        if eio is not None:
            self.pinger = Pinger()
            share_pings(eio, self.pinger)

    @property
    def served(self) -> int:
        return self._served_total

    def serve_forever(self, poll_interval: float = 0.5) -> None:
        if not self._gate_started:
            self._gate_started = True
            self.gate.start()
        super().serve_forever(poll_interval)

    def get_request(self) -> tuple[socket.socket, Any]:
        try:
            sock, address = super().get_request()
        except OSError as error:
            if error.errno in (errno.EMFILE, errno.ENFILE):
                # Out of file descriptors: the listening socket stays readable, so without a
                # pause the accept loop would spin (socketserver ignores the error).
                log.warning("out of file descriptors: not accepting for a moment")
                time.sleep(0.05)
            raise
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            # Small writes (a Socket.IO frame, a response head) go out at once, not after
            # Nagle's wait for the previous segment's ACK.
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock, address

    def process_request(self, request: Any, client_address: Any) -> None:
        """The accept thread: the connection waits in the gate until its request is in."""
        self.gate.admit(request, client_address)

    def _dispatch(self, sock: socket.socket, address: Any, head: bytes) -> None:
        """The gate's thread: a complete request. A worker thread, if within bounds."""
        headers = parse_head(head)
        peer = address[0] if isinstance(address, tuple) else str(address)
        environ = {"REMOTE_ADDR": peer, "HTTP_X_FORWARDED_FOR": headers.get("x-forwarded-for")}
        client = client_address(environ, self.limits.trusted_proxies)
        with self._served_lock:
            full = self._served_total >= self.limits.max_connections or (
                self._served.get(client, 0) >= self.limits.max_connections_per_client
            )
            if not full:
                self._served_total += 1
                self._served[client] = self._served.get(client, 0) + 1
        if full:
            lang = i18n.negotiate_language(headers.get("accept-language"))
            refuse(sock, refusal(503, "too_many_connections", lang))
            return
        thread = threading.Thread(
            target=self._serve, args=(sock, address, client), name="request", daemon=True
        )
        try:
            thread.start()
        except RuntimeError:  # pragma: no cover - the system has no more threads to give
            self._release(client)
            refuse(sock, refusal(503, "too_many_connections", i18n.DEFAULT_LANGUAGE))

    def _serve(self, sock: socket.socket, address: Any, client: str) -> None:
        kept_alive = False
        try:
            handler = self.RequestHandlerClass(sock, address, self)
            kept_alive = bool(getattr(handler, "kept_alive", False))
        except Exception:
            self.handle_error(sock, address)
        finally:
            self._release(client)
            if kept_alive and not self._closing:
                self.gate.admit(sock, address, idle_for=self.limits.keepalive)
            else:
                self.shutdown_request(sock)

    def _release(self, client: str) -> None:
        with self._served_lock:
            self._served_total -= 1
            left = self._served.get(client, 1) - 1
            if left > 0:
                self._served[client] = left
            else:
                self._served.pop(client, None)

    def shutdown(self) -> None:
        self._closing = True
        super().shutdown()
        self.gate.stop()
        if self.pinger is not None:
            self.pinger.stop()


def _engineio_of(app: Any) -> Any | None:
    socketio = getattr(app, "extensions", {}).get("socketio")
    server = getattr(socketio, "server", None)
    return getattr(server, "eio", None)
