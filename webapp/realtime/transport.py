"""What we add to python-engineio's threading transport: a metered outgoing queue, a
WebSocket whose raw socket we can reach, and a size cap on incoming messages.

How engine.io sends, in threading mode (python-engineio 4.x, `engineio/socket.py`): every
connection (`engineio.socket.Socket`) has one outgoing `queue.Queue` (`Socket.queue`, made
by `Server.create_queue()`), unbounded. `emit` only puts packets in it and never blocks.
Over WebSocket a writer thread per connection (`_websocket_handler`'s `writer`) takes
everything queued (`Socket.poll()`) and writes it with a blocking `socket.send`; over long
polling each GET takes what is queued. A client that does not read fills the kernel's
buffers, the writer blocks in `send`, and the queue grows without bound; engine.io's own
ping timeout closes the Socket.IO session but cannot wake the writer, which stays blocked
(with the queue) as long as the TCP connection lives.

So, per server (`install`):
- `MeteredQueue` replaces the queue: the same FIFO, counting the bytes it holds, so the
  outbox (`webapp/realtime/outbox.py`) can stop queueing for a tab that lags;
- `guard_messages` answers a message over the application's size cap with an `error`
  instead of the silent close engine.io gives one over its own (higher) cap;
- `TrackedWebSocket` replaces `SimpleWebSocketWSGI`: it records the simple-websocket
  connection on the engine.io Socket (`hang_up` shuts its TCP socket down, which wakes a
  blocked writer, ends every thread of the connection, and frees its queue), gives
  simple-websocket a `max_message_size` (engine.io passes none, so a huge frame was
  buffered whole before engine.io's own check) and never lets a write to a dead socket
  escape the writer thread as a traceback.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import socket
from collections.abc import Callable
from typing import Any

import simple_websocket
from engineio.async_drivers._websocket_wsgi import SimpleWebSocketWSGI

log = logging.getLogger("webapp.realtime")


def _size(item: Any) -> int:
    data = getattr(item, "data", None)
    return len(data) if isinstance(data, str | bytes) else 0


class MeteredQueue(queue.Queue[Any]):
    """engine.io's per-connection outgoing queue, counting the bytes of the packets in it."""

    def _init(self, maxsize: int) -> None:
        super()._init(maxsize)
        self.bytes = 0

    def _put(self, item: Any) -> None:
        super()._put(item)
        self.bytes += _size(item)

    def _get(self) -> Any:
        item = super()._get()
        self.bytes -= _size(item)
        return item


class TrackedWebSocket(SimpleWebSocketWSGI):  # type: ignore[misc]
    """`SimpleWebSocketWSGI` with a message size cap, reachable from its engine.io Socket."""

    max_message_size: int | None = None  # set on the per-server subclass by `install`

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        # `self.app` is the bound `Socket._websocket_handler` of the connection's Socket.
        eio_socket = getattr(self.app, "__self__", None)
        raw = environ.get("werkzeug.socket")
        if raw is not None:
            # Blocking, without the HTTP server's request timeout: simple-websocket writes
            # frames with `socket.send` and ignores a partial write, which a socket with a
            # timeout (non-blocking underneath) can make, corrupting the stream. A dead peer
            # is ended by engine.io's ping timeout, whose disconnect shuts the socket down
            # (`release`); a silent one by the outbox (`hang_up`).
            raw.settimeout(None)
        self.ws = simple_websocket.Server(
            environ, max_message_size=self.max_message_size, **self.server_args
        )
        if eio_socket is not None:
            eio_socket.playground_ws = self.ws
        ret = self.app(self)
        if self.ws.mode == "gunicorn":
            raise StopIteration()
        if self.ws.mode == "werkzeug":
            raise ConnectionError()
        return ret

    def close(self) -> None:
        # The writer thread calls this after a failed send; the socket may be gone already.
        with contextlib.suppress(OSError):
            super().close()


def install(eio: Any, *, max_message_bytes: int) -> None:
    """Give engine.io server `eio` the metered queue and the tracked WebSocket (this server
    only: engine.io's driver table is shared by every server in the process).
    `max_message_bytes` is the transport's cap (engine.io's `max_http_buffer_size`)."""
    eio.create_queue = lambda *args, **kwargs: MeteredQueue(*args, **kwargs)
    websocket_class = type(
        "TrackedWebSocket", (TrackedWebSocket,), {"max_message_size": max_message_bytes}
    )
    eio._async = {**eio._async, "websocket": websocket_class}


# Socket.IO packet types BINARY_EVENT (5) and BINARY_ACK (6): the first character of the
# data of an engine.io MESSAGE ("451-[...]" on the wire).
BINARY_PACKETS = ("5", "6")


def guard_messages(
    eio: Any,
    *,
    limit: int,
    too_large: Callable[[str, int], None],
    malformed: Callable[[str], None],
) -> None:
    """Check every incoming engine.io message before Socket.IO decodes it.

    Two caps, so that an oversize message gets an answer: engine.io's own
    (`max_http_buffer_size`, and simple-websocket's `max_message_size`) closes the
    connection, as it must not buffer without bound; below it, a message over `limit` (the
    application's cap, lower) is dropped and `too_large(eio_sid, size)` answers it, the
    connection staying open. A packet Socket.IO cannot decode (bad JSON, an unknown type)
    goes to `malformed(eio_sid)` instead of ending as a logged traceback, as does any
    binary packet.
    """
    dispatch = eio.handlers["message"]  # python-socketio's Server._handle_eio_message

    def on_message(eio_sid: str, data: Any) -> Any:
        size = len(data) if isinstance(data, str | bytes) else 0
        if size > limit:
            too_large(eio_sid, size)
            return None
        if not isinstance(data, str) or data.startswith(BINARY_PACKETS):
            # The page never sends binary. A packet announcing attachments would make
            # Socket.IO take the client's next messages as them, holding each until the
            # announced count arrives: refused instead.
            malformed(eio_sid)
            return None
        try:
            return dispatch(eio_sid, data)
        except (
            ValueError,
            TypeError,
            KeyError,
            IndexError,
            AttributeError,
            RecursionError,
        ) as error:
            log.info("malformed Socket.IO packet: %s", type(error).__name__)
            malformed(eio_sid)
            return None

    eio.handlers["message"] = on_message


def eio_socket(eio: Any, eio_sid: str | None) -> Any | None:
    if eio_sid is None:
        return None
    return eio.sockets.get(eio_sid)


def queued_bytes(eio: Any, eio_sid: str | None) -> int:
    """Bytes waiting in a connection's outgoing queue (0 for an unknown connection)."""
    sock = eio_socket(eio, eio_sid)
    pending = getattr(sock, "queue", None)
    return int(getattr(pending, "bytes", 0))


def hang_up(eio: Any, eio_sid: str | None) -> None:
    """End a connection now, from any thread, even one whose writer is blocked."""
    sock = eio_socket(eio, eio_sid)
    if sock is None:
        return
    ws = getattr(sock, "playground_ws", None)
    if ws is not None:
        _shutdown(ws)
    elif not sock.closed:
        sock.close(wait=False, abort=True)  # long polling: no thread to wake


def release(eio: Any, eio_sid: str | None) -> None:
    """After a disconnect: if the WebSocket under it is still open (engine.io closed the
    session on a ping timeout, its writer perhaps blocked), shut it down too."""
    sock = eio_socket(eio, eio_sid)
    ws = getattr(sock, "playground_ws", None)
    if ws is not None and ws.connected:
        _shutdown(ws)


def _shutdown(ws: Any) -> None:
    with contextlib.suppress(OSError):  # already closed
        ws.sock.shutdown(socket.SHUT_RDWR)
