"""Every server -> client message leaves through the outbox, which keeps a slow or silent
tab from growing the server's memory.

outbox.emit("tick", payload, to=room)   # to every tab in the room that keeps up
outbox.lagging                          # {sid: when it fell behind}
outbox.sweep()                          # hang up tabs lagging past the hard bound or time
outbox.table_tabs                       # tabs that take transitions as a table (below)

A tab *lags* when its connection's outgoing queue holds more than `soft_bytes` (the queue
is engine.io's, metered by `transport.MeteredQueue`). From then on nothing is queued for
it: no ticks, no snapshots, no errors. Once its queue has drained, the realtime layer sends
it one fresh snapshot of its session (`Realtime.tend`), so it gets the latest state, not
every tick it missed (the page takes a snapshot at any time). A tab lagging for longer than
`lag_seconds`, or whose queue holds more than `hard_bytes`, is hung up
(`transport.hang_up`), which also frees everything queued for it.

A tab that joined with `transitions: "table"` (the page does) gets the transitions of its
snapshots and ticks as a table, `transitionTable` (webapp/sessions/wire.py), instead of
the list of records, `transitions`: the same records, about a third smaller on the wire
(docs/limits.md, "Snapshot size"). Other tabs of the room get the list.

Nothing here blocks: emitting only puts packets in queues, and the checks read counters.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from flask_socketio import SocketIO
from socketio.manager import Manager

from webapp.realtime import transport
from webapp.sessions.wire import WirePayload, transition_table

log = logging.getLogger("webapp.realtime")

NAMESPACE = "/"
TABLE_EVENTS = ("snapshot", "tick")


class Outbox:
    def __init__(
        self,
        socketio: SocketIO,
        *,
        soft_bytes: int,
        hard_bytes: int,
        lag_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.socketio = socketio
        self.soft_bytes = soft_bytes
        self.hard_bytes = hard_bytes
        self.lag_seconds = lag_seconds
        self.clock = clock
        self.lagging: dict[str, float] = {}
        self.table_tabs: set[str] = set()
        self._lock = threading.Lock()
        # With a message queue (several workers), a session's tabs are all on the worker
        # that serves it (webapp/records.py), so its messages go to them directly instead of
        # through Redis and back.
        self.local = False
        # `remote(event, payload, to, skip)`: the same to tabs of other workers in `to`
        # (a class that spans workers, webapp/classes/span.py); None without.
        self.remote: Callable[[str, Any, str, list[str]], None] | None = None

    # -- reading the transport --------------------------------------------------------------

    @property
    def _server(self) -> Any:
        return self.socketio.server

    def _eio_sid(self, sid: str) -> str | None:
        try:
            eio_sid: str | None = self._server.manager.eio_sid_from_sid(sid, NAMESPACE)
        except (KeyError, AttributeError):
            return None
        return eio_sid

    def backlog(self, sid: str) -> int:
        """Bytes queued for tab `sid` and not yet taken by its writer."""
        return transport.queued_bytes(self._server.eio, self._eio_sid(sid))

    def connected(self, sid: str) -> bool:
        return transport.eio_socket(self._server.eio, self._eio_sid(sid)) is not None

    # -- sending ----------------------------------------------------------------------------

    def emit(self, event: str, payload: Any, to: str, *, skip: Iterable[str] = ()) -> None:
        """Send `event` to room (or tab) `to`, leaving out lagging tabs and `skip`."""
        skipped = set(skip)
        plain: list[str] = []
        tables: list[str] = []
        shared: list[tuple[Any, bool]] = []  # (engine.io socket, takes the table)
        deflated: list[tuple[str, Any, bool]] = []  # (sid, engine.io socket, table)
        server = self._server
        sockets = server.eio.sockets
        direct = self.local or type(server.manager) is Manager
        for sid, eio_sid in list(server.manager.get_participants(NAMESPACE, to)):
            if sid in skipped:
                continue
            if sid in self.lagging:
                skipped.add(sid)
            elif transport.queued_bytes(server.eio, eio_sid) > self.soft_bytes:
                self.fall_behind(sid)
                skipped.add(sid)
            else:
                table = sid in self.table_tabs and event in TABLE_EVENTS
                sock = sockets.get(eio_sid) if direct else None
                if transport.shares_frames(sock):
                    shared.append((sock, table))
                    skipped.add(sid)
                elif transport.deflates_inline(sock):
                    deflated.append((sid, sock, table))
                    skipped.add(sid)
                else:
                    (tables if table else plain).append(sid)
        wants_table = tables or any(t for _, t in shared) or any(t for _, _, t in deflated)
        compact = as_table(payload) if wants_table else payload
        if shared:
            self._write_shared(event, payload, compact, shared)
        if deflated:
            texts: dict[bool, str] = {}
            for sid, sock, table in deflated:
                form = table and compact is not payload
                text = texts.get(form)
                if text is None:
                    text = texts[form] = self._text(event, compact if form else payload)
                if not transport.write_deflated(sock, text):  # packets wait: behind them
                    skipped.discard(sid)
                    (tables if table else plain).append(sid)
        if compact is payload:
            plain += tables
            tables = []
        # At most two encodings of the payload, whatever the number of tabs.
        extra = {"ignore_queue": True} if self.local else {}
        if tables:
            self.socketio.emit(event, compact, to=to, skip_sid=[*skipped, *plain], **extra)
        if plain:
            self.socketio.emit(event, payload, to=to, skip_sid=[*skipped, *tables] or None, **extra)
        if self.remote is not None:
            self.remote(event, payload, to, list(skip))

    def _write_shared(
        self, event: str, payload: Any, compact: Any, tabs: list[tuple[Any, bool]]
    ) -> None:
        """One text and one frame per payload form, whatever the number of tabs: the same
        bytes go to each (`transport.write_frame`)."""
        frames: dict[bool, transport.Frame] = {}
        for sock, table in tabs:
            form = table and compact is not payload
            data = frames.get(form)
            if data is None:
                text = self._text(event, compact if form else payload)
                data = frames[form] = transport.frame(text)
            transport.write_frame(sock, data)

    def _text(self, event: str, payload: Any) -> str:
        """The engine.io message of Socket.IO event `event` as python-socketio encodes it
        for a room (`Manager.emit`: "4" for an engine.io MESSAGE, "2" for a Socket.IO EVENT
        on the default namespace, then the JSON of `[event, payload]` made by its `json`
        module), without its search for binary attachments (what we send is JSON only)."""
        dumps = self._server.packet_class.json.dumps
        return "42" + dumps([event, payload], separators=(",", ":"))

    # -- lagging tabs -----------------------------------------------------------------------

    def fall_behind(self, sid: str) -> None:
        with self._lock:
            if sid not in self.lagging:
                self.lagging[sid] = self.clock()
                log.info("a tab stopped reading; holding its updates until it catches up")

    def caught_up(self, sid: str) -> bool:
        """True (and no longer lagging) if tab `sid` lags and its queue has drained."""
        if sid not in self.lagging or self.backlog(sid) > 0:
            return False
        with self._lock:
            return self.lagging.pop(sid, None) is not None

    def forget(self, sid: str) -> None:
        with self._lock:
            self.lagging.pop(sid, None)

    def sweep(self) -> list[str]:
        """Hang up tabs lagging past `lag_seconds` or `hard_bytes`; returns their sids."""
        now = self.clock()
        hung_up = []
        for sid, since in list(self.lagging.items()):
            eio_sid = self._eio_sid(sid)
            if transport.eio_socket(self._server.eio, eio_sid) is None:
                self.forget(sid)  # gone by itself
                continue
            queued = transport.queued_bytes(self._server.eio, eio_sid)
            if now - since >= self.lag_seconds or queued > self.hard_bytes:
                log.info("hanging up a tab that has not read its updates for %.0f s", now - since)
                self.forget(sid)
                transport.hang_up(self._server.eio, eio_sid)
                hung_up.append(sid)
        return hung_up

    def release(self, sid: str) -> None:
        """Tab `sid` disconnected: forget it, and close a WebSocket left open under it."""
        self.forget(sid)
        self.table_tabs.discard(sid)
        transport.release(self._server.eio, self._eio_sid(sid))


def as_table(payload: Any) -> Any:
    """``payload`` (a snapshot or a tick) with its transitions as `transitionTable`, or the
    payload itself when it has none to shorten."""
    if not isinstance(payload, dict) or not payload.get("transitions"):
        return payload
    table = transition_table(payload["transitions"])
    if table is None:
        return payload
    data = {k: v for k, v in payload.items() if k != "transitions"}
    data["transitionTable"] = table
    if isinstance(payload, WirePayload):
        return WirePayload(data, payload.fragments, payload.cached_keys)
    return data
