"""HTTP/1.1 keep-alive for plain requests on our server (webapp/server.py).

Werkzeug's request handler answers every request `Connection: close` and, after the
response, reads whatever the client sent next for 10 ms to discard it: a browser opens a
new TCP connection for each of the page's 24 files. Here a plain request (not a WebSocket
upgrade, no chunked body, HTTP/1.1, no `Connection: close` from the client) is answered by
`run_wsgi_keepalive`, which leaves the connection open: `Connection: keep-alive`,
`Keep-Alive: timeout=N`, the body framed by its Content-Length or chunked, the unread
rest of the request body (at most DRAIN_MAX_BYTES) read off. The handler's thread then
ends: the connection goes back to the server's waiting room (`RequestGate`), which holds
it without a thread for `SERVER_KEEPALIVE_SECONDS` and closes it silently after that.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import Any

from werkzeug.exceptions import InternalServerError

DRAIN_MAX_BYTES = 64 * 1024  # more unread request body than this: close instead
CLOSE_DRAIN_MAX_BYTES = 1024 * 1024  # read off a connection that closes, at most
CLOSE_DRAIN_SECONDS = 0.5  # ... waiting at most this long for each read
KEEPALIVE_MAX_SECONDS = 300.0
NO_BODY_STATUS = frozenset({204, 304})


class BodyReader:
    """The request body as `wsgi.input`: never reads past Content-Length, counts what was read."""

    def __init__(self, stream: Any, length: int) -> None:
        self.stream = stream
        self.remaining = length

    def read(self, size: int | None = -1) -> bytes:
        if self.remaining <= 0:
            return b""
        want = self.remaining if size is None or size < 0 else min(size, self.remaining)
        data: bytes = self.stream.read(want)
        self.remaining -= len(data)
        if not data:
            self.remaining = 0
        return data

    def readline(self, size: int | None = -1) -> bytes:
        if self.remaining <= 0:
            return b""
        want = self.remaining if size is None or size < 0 else min(size, self.remaining)
        data: bytes = self.stream.readline(want)
        self.remaining -= len(data)
        if not data:
            self.remaining = 0
        return data

    def readlines(self, hint: int = -1) -> list[bytes]:
        lines = []
        while line := self.readline():
            lines.append(line)
        return lines

    def __iter__(self) -> Iterable[bytes]:
        return iter(self.readlines())


def may_keep_alive(handler: Any, keepalive_seconds: float) -> bool:
    """Whether this request's connection can stay open after its response."""
    headers = handler.headers
    return (
        keepalive_seconds > 0
        and handler.request_version == "HTTP/1.1"
        and not handler.close_connection  # http.server read `Connection: close` already
        and "upgrade" not in headers.get("Connection", "").lower()
        and not headers.get("Upgrade")
        and not headers.get("Transfer-Encoding")
    )


def run_wsgi_keepalive(handler: Any, keepalive_seconds: float) -> None:
    """Werkzeug's `run_wsgi` for one plain request, leaving the connection open.

    Sets `handler.close_connection` when it cannot stay open (an error, an unread body)."""
    if handler.headers.get("Expect", "").lower().strip() == "100-continue":
        handler.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    handler.environ = environ = handler.make_environ()
    try:
        length = max(0, int(environ.get("CONTENT_LENGTH") or 0))
    except ValueError:
        length = 0
    body = BodyReader(handler.rfile, length)
    environ["wsgi.input"] = body
    head_only = environ["REQUEST_METHOD"] == "HEAD"
    state: dict[str, Any] = {"status": None, "headers": None, "sent": False, "chunked": False}

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        if exc_info:
            try:
                if state["sent"]:
                    raise exc_info[1].with_traceback(exc_info[2])
            finally:
                exc_info = None
        elif state["status"] is not None:
            raise AssertionError("Headers already set")
        state["status"] = status
        state["headers"] = headers
        return write

    def send_head() -> None:
        code_str, _, msg = state["status"].partition(" ")
        code = int(code_str)
        handler.send_response(code, msg)
        names = set()
        for key, value in state["headers"]:
            if key.lower() in ("connection", "keep-alive"):
                continue
            handler.send_header(key, value)
            names.add(key.lower())
        if not ("content-length" in names or head_only or code < 200 or code in NO_BODY_STATUS):
            state["chunked"] = True
            handler.send_header("Transfer-Encoding", "chunked")
        if body.remaining > DRAIN_MAX_BYTES:  # too much left unread to read it off
            handler.close_connection = True
            handler.send_header("Connection", "close")
        else:
            handler.send_header("Connection", "keep-alive")
            handler.send_header("Keep-Alive", f"timeout={int(keepalive_seconds)}")
        handler.end_headers()
        state["sent"] = True

    def write(data: bytes) -> None:
        assert state["status"] is not None, "write() before start_response"
        if not state["sent"]:
            send_head()
        if data and not head_only:
            if state["chunked"]:
                handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            else:
                handler.wfile.write(data)

    def execute(app: Any) -> None:
        result = app(environ, start_response)
        try:
            for data in result:
                write(data)
            if not state["sent"]:
                write(b"")
            if state["chunked"] and not head_only:
                handler.wfile.write(b"0\r\n\r\n")
        finally:
            if hasattr(result, "close"):
                result.close()

    try:
        execute(handler.server.app)
    except (TimeoutError, ConnectionError) as error:
        handler.connection_dropped(error, environ)
        return
    except Exception as error:
        handler.close_connection = True
        if handler.server.passthrough_errors:
            raise
        if not state["sent"]:
            state["status"] = state["headers"] = None
            with contextlib.suppress(Exception):
                execute(InternalServerError())
        handler.close_connection = True  # the 500's head said keep-alive: close anyway
        handler.server.log("error", f"Error on request: {error!r}")
        return
    handler.wfile.flush()
    # The body the application did not read must be off the wire before the next request;
    # on a connection being closed, some of it is read too, so that closing with unread
    # data does not reset the connection and lose the response (as Werkzeug does).
    limit = DRAIN_MAX_BYTES if not handler.close_connection else CLOSE_DRAIN_MAX_BYTES
    try:
        if handler.close_connection:
            handler.connection.settimeout(CLOSE_DRAIN_SECONDS)
        while body.remaining > 0 and limit > 0:
            data = body.read(min(body.remaining, limit, 65536))
            if not data:
                break
            limit -= len(data)
    except (OSError, ValueError):
        handler.close_connection = True
    if body.remaining:
        handler.close_connection = True


def has_buffered_input(handler: Any) -> bool:
    """Whether the next request is already here (read into the handler's buffer, or waiting
    in the socket): pipelined requests are served on this thread, never handed back."""
    sock = handler.connection
    try:
        timeout = sock.gettimeout()
        sock.settimeout(0)
    except OSError:
        return False
    try:
        return bool(handler.rfile.peek(1))
    except (OSError, ValueError):
        return False
    finally:
        with contextlib.suppress(OSError):
            sock.settimeout(timeout)
