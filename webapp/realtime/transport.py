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

Shared frames (the fan-out to a room, `webapp/realtime/outbox.py`): a room broadcast
through engine.io costs, per tab, a wake-up of that tab's writer thread, a WebSocket
framing and a write with a GIL hand-off around it: 60 followers of a class are 60 thread
switches per tick. For a connection that was a WebSocket without extensions from its first
request, `TrackedWebSocket` marks it as taking shared frames (`shares_frames`): the outbox
frames a message once (`frame`) and hands the same bytes to every such tab of the room
(`write_frame`, `MeteredQueue.write_or_queue`): written at once, without blocking and
holding the GIL, by the emitting thread when nothing is queued or being written for that
tab; otherwise (or for the part the socket did not take) queued behind what is, as a
`FramedPacket` its writer sends as it is, metered like any packet. A slow tab thus fills
its queue exactly as before, and the outbox's bounds apply to it unchanged.

A connection with permessage-deflate (every browser negotiates it) cannot take a shared
frame: its compressor keeps the window of what that connection was sent, and a tick, 16-19
KB of JSON that differs from the previous one in a few fields, deflates to about 300-450
bytes with that window but to 3.7-4.0 KB alone, so a frame deflated once for every tab
would send about ten times the bytes. `write_deflated` instead frames the (once encoded)
text with the connection's own compressor and writes it from the emitting thread in the
same way, when nothing waits; the writer frames only packets it took, so the compressor
sees the messages in the order they go out (docs/limits.md, "Slow and silent clients").
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import ctypes.util
import errno
import logging
import os
import queue
import socket
import sys
from collections.abc import Callable
from typing import Any

import simple_websocket
from engineio.async_drivers._websocket_wsgi import SimpleWebSocketWSGI
from engineio.exceptions import SocketIsClosedError
from wsproto.events import TextMessage
from wsproto.utilities import LocalProtocolError

log = logging.getLogger("webapp.realtime")


def _size(item: Any) -> int:
    data = getattr(item, "data", None)
    return len(data) if isinstance(data, str | bytes) else 0


class Frame(bytes):
    """One whole WebSocket frame (or the rest of one), written to the socket as it is."""


class FramedPacket:
    """A frame in a connection's outgoing queue: metered by its size like an engine.io
    packet, and written as it is by the connection's writer (`TrackedWebSocket.send`)."""

    __slots__ = ("data",)
    packet_type = 4  # engine.io MESSAGE, for anything that names it

    def __init__(self, frame: Frame) -> None:
        self.data = frame

    def encode(self) -> Frame:
        return self.data


def frame(text: str) -> Frame:
    """The WebSocket text frame (a server's: unmasked, so the same for every tab) of
    `text`."""
    payload = text.encode("utf-8")
    first = 0x81  # FIN, text
    size = len(payload)
    if size < 126:
        header = bytes((first, size))
    elif size < 1 << 16:
        header = bytes((first, 126)) + size.to_bytes(2, "big")
    else:
        header = bytes((first, 127)) + size.to_bytes(8, "big")
    return Frame(header + payload)


class MeteredQueue(queue.Queue[Any]):
    """engine.io's per-connection outgoing queue, counting the bytes of the packets in it.

    `direct` (set by `TrackedWebSocket` for a connection whose writer thread is the only
    one taking from this queue): `taken` counts the packets the writer has taken and not
    yet written, so that `write_or_queue` can tell when writing at once keeps the order,
    and `held` the bytes of those packets. engine.io's writer takes every queued packet
    at once (`Socket.poll`) and then blocks writing them to a client that does not read:
    those bytes are still the tab's backlog (`pending`), or a silent tab would look caught
    up while megabytes wait in its writer."""

    def _init(self, maxsize: int) -> None:
        super()._init(maxsize)
        self.bytes = 0
        self.direct = False
        self.taken = 0
        self.held = 0
        self._held_sizes: collections.deque[int] = collections.deque()

    @property
    def pending(self) -> int:
        """Bytes queued plus bytes the writer has taken and not yet written."""
        return self.bytes + self.held

    def _put(self, item: Any) -> None:
        super()._put(item)
        self.bytes += _size(item)

    def _get(self) -> Any:
        item = super()._get()
        size = _size(item)
        self.bytes -= size
        if self.direct and item is not None:
            self.taken += 1
            self.held += size
            self._held_sizes.append(size)
        return item

    def written(self) -> None:
        """The writer has written (or failed to write) one packet it took."""
        with self.mutex:
            self.taken = max(0, self.taken - 1)
            if self._held_sizes:
                self.held -= self._held_sizes.popleft()

    def write_or_queue(self, data: Frame, write: Callable[[Frame], int]) -> int:
        """Send frame `data` in order: `write(data)` (a non-blocking send returning the
        bytes the socket took) at once when nothing is queued or being written, and
        whatever it did not take queued for the writer. Returns the bytes written now.
        Under the queue's lock, so that no packet can be put or taken in between."""
        with self.mutex:
            sent = 0
            if self.direct and not self._qsize() and not self.taken:
                sent = write(data)
                if sent >= len(data):
                    return sent
            self._put(FramedPacket(Frame(data[sent:]) if sent else data))
            self.unfinished_tasks += 1
            self.not_empty.notify()
            return sent


class TrackedWebSocket(SimpleWebSocketWSGI):  # type: ignore[misc]
    """`SimpleWebSocketWSGI` with a message size cap, reachable from its engine.io Socket."""

    max_message_size: int | None = None  # set on the per-server subclass by `install`

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        # `self.app` is the bound `Socket._websocket_handler` of the connection's Socket.
        eio_socket = getattr(self.app, "__self__", None)
        # gunicorn's socket (what `pod-playground` serves with), or Werkzeug's (the
        # in-process servers of the tests).
        raw = environ.get("gunicorn.socket") or environ.get("werkzeug.socket")
        if raw is not None:
            # Blocking, without any HTTP server's timeout: simple-websocket writes
            # frames with `socket.send` and ignores a partial write, which a socket with a
            # timeout (non-blocking underneath) can make, corrupting the stream. A dead peer
            # is ended by engine.io's ping timeout, whose disconnect shuts the socket down
            # (`release`); a silent one by the outbox (`hang_up`).
            raw.settimeout(None)
        self.ws = simple_websocket.Server(
            environ, max_message_size=self.max_message_size, **self.server_args
        )
        self.outgoing: MeteredQueue | None = None
        if eio_socket is not None:
            eio_socket.playground_ws = self.ws
            pending = getattr(eio_socket, "queue", None)
            if (
                not eio_socket.connected  # a WebSocket from the start, not an upgrade
                and isinstance(pending, MeteredQueue)
                and type(self.ws.sock) is socket.socket  # not TLS, not a stand-in
            ):
                extensions = _extensions(self.ws)
                if extensions == []:
                    eio_socket.playground_shared = True
                elif extensions == ["permessage-deflate"]:
                    eio_socket.playground_deflate = True
                if extensions in ([], ["permessage-deflate"]):
                    pending.direct = True
                    self.outgoing = pending
        ret = self.app(self)
        if self.ws.mode == "gunicorn":
            raise StopIteration()
        if self.ws.mode == "werkzeug":
            raise ConnectionError()
        return ret

    def send(self, message: Any) -> None:
        """The writer's write of one packet it took; a `Frame` goes out as it is."""
        try:
            if isinstance(message, Frame):
                if not self.ws.connected:
                    raise simple_websocket.ConnectionClosed()
                self.ws.sock.sendall(message)
            else:
                super().send(message)
        finally:
            if self.outgoing is not None:
                self.outgoing.written()

    def close(self) -> None:
        # The writer thread calls this after a failed send; the socket may be gone already.
        with contextlib.suppress(OSError):
            super().close()


def _extensions(ws: Any) -> list[str] | None:
    """The names of the extensions simple-websocket connection `ws` negotiated."""
    connection = getattr(ws.ws, "connection", None)
    extensions = getattr(getattr(connection, "_proto", None), "extensions", None)
    return None if extensions is None else [e.name for e in extensions]


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
    """Bytes waiting to go out on a connection (0 for an unknown connection): those in its
    outgoing queue and, over a tracked WebSocket, those its writer took and has not yet
    written (`MeteredQueue.pending`)."""
    sock = eio_socket(eio, eio_sid)
    pending = getattr(sock, "queue", None)
    if isinstance(pending, MeteredQueue):
        return pending.pending
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


def shares_frames(sock: Any) -> bool:
    """True if shared frames may be written to engine.io socket `sock`: an open
    WebSocket, plain from its first request."""
    return sock is not None and not sock.closed and getattr(sock, "playground_shared", False)


def deflates_inline(sock: Any) -> bool:
    """True if engine.io socket `sock` is an open WebSocket with permessage-deflate from its
    first request, whose messages `write_deflated` may compress and write itself."""
    return sock is not None and not sock.closed and getattr(sock, "playground_deflate", False)


def write_deflated(sock: Any, text: str) -> bool:
    """Send engine.io message `text` to a deflate tab (`deflates_inline`) from this thread
    when nothing is queued or being written for it: framed by its own connection (its
    compressor keeps the window of everything sent, in the order sent), written without
    blocking, what the socket did not take queued as a `FramedPacket`. False (nothing done)
    when packets wait: the caller queues it the usual way, behind them."""
    ws = sock.playground_ws
    pending = sock.queue
    try:
        if not sock.check_ping_timeout():
            return True
        with pending.mutex:
            if not pending.direct or pending._qsize() or pending.taken:
                return False
            if not ws.connected:
                return True
            data = ws.ws.send(TextMessage(data=text))
            sent = send_nowait(ws.sock, data)
            if sent < len(data):
                pending._put(FramedPacket(Frame(data[sent:])))
                pending.unfinished_tasks += 1
                pending.not_empty.notify()
    except (OSError, SocketIsClosedError, LocalProtocolError):
        return True  # a gone peer: its reader ends the connection
    return True


def write_frame(sock: Any, data: Frame) -> bool:
    """Send shared frame `data` to engine.io socket `sock` (`shares_frames`): at once if
    it can be, else queued. False if the connection is gone."""
    ws = sock.playground_ws
    raw = ws.sock

    def write(chunk: Frame) -> int:
        if not ws.connected:
            raise ConnectionError
        return send_nowait(raw, chunk)

    try:
        if not sock.check_ping_timeout():  # as engine.io's own send does
            return False
        sock.queue.write_or_queue(data, write)
    except (OSError, SocketIsClosedError):  # a gone peer: its reader ends the connection
        return False
    return True


def _libc_send() -> Any:
    """libc's send(2) called *holding* the GIL (ctypes.PyDLL), or None where there is none.

    Python's `socket.send` lets the GIL go around every call; a room's fan-out is one short
    non-blocking send per tab, and on a busy server each release hands the GIL to another
    thread for up to a switch interval (5 ms) before the fan-out gets it back: 60 followers
    could wait 60 of those. A send with MSG_DONTWAIT never blocks, so holding the GIL
    through it costs nothing, and the whole fan-out runs in one go."""
    try:
        libc = ctypes.PyDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        send = libc.send
    except (OSError, AttributeError):
        return None
    send.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
    send.restype = ctypes.c_ssize_t
    return send


_SEND = _libc_send() if sys.platform.startswith("linux") else None
_NOWAIT = socket.MSG_DONTWAIT | getattr(socket, "MSG_NOSIGNAL", 0)
_AGAIN = {errno.EAGAIN, errno.EWOULDBLOCK, errno.EINTR}


def send_nowait(raw: socket.socket, data: bytes) -> int:
    """Write what socket `raw` takes of `data` now, without blocking: the bytes written (0
    when its buffer is full). OSError when the connection is gone."""
    if _SEND is None:
        try:
            return raw.send(data, socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            return 0
    # fileno() and the send in one hold of the GIL: the descriptor cannot be closed (and
    # reused by another connection) in between, as closing a socket needs the GIL first.
    fd = raw.fileno()
    if fd < 0:
        raise ConnectionError("socket closed")
    sent = int(_SEND(fd, data, len(data), _NOWAIT))
    if sent >= 0:
        return sent
    code = ctypes.get_errno()
    if code in _AGAIN:
        return 0
    raise OSError(code, os.strerror(code))
