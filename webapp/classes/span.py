"""A class whose teacher and students sit on different worker processes (docs/workers.md,
"Classes across workers").

One worker is a class's *home*: it holds the class's lease in Redis
(`playground:lease:class-<CODE>`, taken and renewed as a session's lease) and runs the
whole class as a single process does: the Classroom, the teacher's run, every student's
own run (fork, hand-out), questions, answers, the roster. A tab on another worker that
sends `class:teach` or `class:join` for that class becomes a *proxied* tab of its worker:

- every event it sends from then on is forwarded to the home (Redis pub/sub, the home's
  channel `playground:worker:<token>`), which handles it like its own tabs' events, gate,
  rate limits and all, with the tab's client address and language;
- everything the home sends to it (class state, snapshots, ticks, errors, rosters) comes
  back on the tab's worker's channel, and that worker puts it in the tab's queue through
  its own outbox, with the same backlog bounds, lag handling and transition tables as for
  its own tabs. A room (a session's tabs) with tabs on other workers costs the home one
  message per such worker per emit, whatever the number of tabs there.

Liveness: each worker keeps `playground:alive:<token>` (LEASE_MS, renewed every second).
The home forgets the tabs of a worker that is gone (kill -9): they show as disconnected
until they come back. A worker hangs up its proxied tabs whose home is gone or no longer
holds the class (kill -9, SIGTERM, a lost lease); the tabs reconnect and rejoin the class
(the page does it by itself), and the first worker they reach becomes the new home: it
loads the class from the store (SQLite, shared by the workers of a host) and takes the
teacher's run back from its session record (webapp/records.py).

Bounds: events waiting at the home are at most MAX_PENDING (past that the tab is answered
`rate_limited`); Redis drops a subscriber whose output buffer passes its pubsub limit, and
the listener subscribes again.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import secrets
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from webapp.classes import codes
from webapp.records import LEASE_MS, PREFIX, RedisLeases, bounded_redis
from webapp.sessions import wire
from webapp.storage import write_fault

log = logging.getLogger(__name__)

MAX_PENDING = 2000
REDIS_CONNECTIONS = 32
ROUND_SECONDS = 1.0
CLASS_EVENTS = ("class:teach", "class:join")


def lease_id(code: str) -> str:
    return f"class-{code}"


def channel(token: str) -> str:
    return f"{PREFIX}:worker:{token}"


def alive_key(token: str) -> str:
    return f"{PREFIX}:alive:{token}"


def out_message(event: str, payload: Any, to: str, skip: list[str]) -> str:
    """What a home sends a worker for its tabs: the event encoded once (a tick's unchanged
    parts as the Socket.IO packet would splice them)."""
    packet = wire.dumps([event, payload])
    return f'{{"k":"out","to":{json.dumps(to)},"skip":{json.dumps(skip)},"e":{packet}}}'


class Span:
    """One worker's part in classes that span workers."""

    def __init__(
        self,
        app: Any,
        rt: Any,
        classes: Any,
        client: Any,
        *,
        token: str | None = None,
        lease_ms: int = LEASE_MS,
        round_seconds: float = ROUND_SECONDS,
        max_pending: int = MAX_PENDING,
        run_event: Callable[[str, str, dict[str, Any]], None] | None = None,
        disconnected: Callable[[str], None] | None = None,
    ) -> None:
        self.app = app
        self.rt = rt
        self.classes = classes
        self.client = client
        self.token = token or f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(6)}"
        self.lease_ms = lease_ms
        self.round_seconds = round_seconds
        self.leases = RedisLeases(client, self.token, lease_ms)
        self.run_event = run_event  # (event, sid, payload): a forwarded event, handled here
        self.disconnected = disconnected  # (sid): a remote tab left
        self._lock = threading.Lock()
        # This worker's tabs whose class lives elsewhere: sid -> (home token, class code).
        self.proxied: dict[str, tuple[str, str]] = {}
        self.local_room: dict[str, str] = {}  # proxied sid -> the room its home put it in
        # Tabs of other workers this worker is home for: sid -> their worker's token.
        self.remote: dict[str, str] = {}
        self.rooms: dict[str, set[str]] = {}  # room -> remote sids in it
        self.room_of: dict[str, str] = {}  # remote sid -> its room
        self.pending: queue.Queue[dict[str, Any]] = queue.Queue(max_pending)
        self.stopped = threading.Event()
        self._threads: list[threading.Thread] = []
        # Why rounds fail while Redis is lost (None: they work); logged once, in one line,
        # as records are (webapp/records.py RecordHealth), not a traceback every second.
        self.round_fault: str | None = None

    # -- the tab's worker: routing ---------------------------------------------------------

    def route(self, event: str, sid: str, payload: dict[str, Any], client: str) -> bool:
        """Called before an event of local tab `sid` is handled: True if it was forwarded
        to the home of the tab's class (then nothing more is done here)."""
        home = self.proxied.get(sid)
        if event in CLASS_EVENTS:
            code = codes.normalize_code(payload.get("code"))
            if code is not None:
                target = self.home_of(code)
                if home is not None and home[0] != target:
                    self.unproxy(sid)
                    home = None
                if target is not None and home is None:
                    self._proxy(sid, target, code)
                    home = (target, code)
        if home is None:
            return False
        self.forward(sid, event, payload, client, home[0])
        return True

    def home_of(self, code: str) -> str | None:
        """The token of the worker that is home of class `code`, None if it is this one
        (held here, or taken now). A holder that is gone (kill -9) is waited out: its lease
        runs out within LEASE_MS."""
        if code in self.classes.held_codes():
            return None
        deadline = time.monotonic() + self.lease_ms / 1000 + 1.0
        while True:
            if self.leases.acquire(lease_id(code)):
                return None
            holder = self.client.get(RedisLeases.key(lease_id(code)))
            if holder is not None:
                token = holder.decode("utf-8", "replace")
                if token == self.token:
                    return None
                if self.alive(token) or time.monotonic() > deadline:
                    return token
            time.sleep(0.05)

    def claim(self, code: str) -> bool:
        """This worker becomes (or stays) the home of class `code`, if nobody else is."""
        return bool(self.leases.acquire(lease_id(code)))

    def alive(self, token: str) -> bool:
        return bool(self.client.exists(alive_key(token)))

    def _proxy(self, sid: str, token: str, code: str) -> None:
        """Tab `sid` leaves whatever it had here (a session, another class) and is proxied
        to the home `token` from now on."""
        rt = self.rt
        session = rt.manager.session_of(sid)
        if session is not None:
            with contextlib.suppress(Exception):
                rt.socketio.server.leave_room(sid, session.room, namespace="/")
        self.classes.leave(sid)
        rt.manager.detach(sid)
        with self._lock:
            self.proxied[sid] = (token, code)

    def unproxy(self, sid: str) -> None:
        """Tab `sid` is no longer proxied (it left, or went to a class homed elsewhere)."""
        with self._lock:
            home = self.proxied.pop(sid, None)
            room = self.local_room.pop(sid, None)
        if home is None:
            return
        if room is not None:
            with contextlib.suppress(Exception):
                self.rt.socketio.server.leave_room(sid, room, namespace="/")
        self._publish(home[0], {"k": "left", "sid": sid})

    def forward(
        self, sid: str, event: str, payload: dict[str, Any], client: str, home: str
    ) -> None:
        rt = self.rt
        if event == "lang":  # kept here too: the next forwarded event carries it
            from webapp.realtime.state import language

            with contextlib.suppress(Exception):
                rt.languages[sid] = language(payload)
        if event == "join" and payload.get("transitions") in ("list", "table"):
            tables = rt.outbox.table_tabs
            (tables.add if payload["transitions"] == "table" else tables.discard)(sid)
        message = {
            "k": "ev",
            "from": self.token,
            "sid": sid,
            "ev": event,
            "p": payload,
            "client": client,
            "lang": rt.lang(sid),
        }
        self._publish(home, message)

    def leave(self, sid: str) -> None:
        """A `leaving` hook (a tab disconnected, here or, forwarded, on its worker)."""
        self.unproxy(sid)
        with self._lock:
            if self.remote.pop(sid, None) is not None:
                room = self.room_of.pop(sid, None)
                if room is not None:
                    self._drop_from(room, sid)

    # -- the home: tabs of other workers ----------------------------------------------------

    def is_remote(self, sid: str) -> bool:
        return sid in self.remote

    def enter_room(self, sid: str, room: str) -> None:
        with self._lock:
            token = self.remote.get(sid)
            if token is None:
                return
            old = self.room_of.get(sid)
            if old is not None and old != room:
                self._drop_from(old, sid)
            self.rooms.setdefault(room, set()).add(sid)
            self.room_of[sid] = room
        self._publish(token, {"k": "room", "sid": sid, "room": room})

    def leave_room(self, sid: str, room: str) -> None:
        with self._lock:
            token = self.remote.get(sid)
            if token is None or self.room_of.get(sid) != room:
                return
            del self.room_of[sid]
            self._drop_from(room, sid)
        self._publish(token, {"k": "room", "sid": sid, "room": None})

    def _drop_from(self, room: str, sid: str) -> None:
        members = self.rooms.get(room)
        if members is not None:
            members.discard(sid)
            if not members:
                del self.rooms[room]

    def emit(self, event: str, payload: Any, to: str, skip: list[str]) -> None:
        """The outbox's hook after it sent to this worker's own tabs: the same to the tabs
        of other workers in `to` (a remote tab, or a room with some), one message per
        worker."""
        with self._lock:
            token = self.remote.get(to)
            if token is not None:
                workers = {token}
            else:
                members = self.rooms.get(to)
                if not members:
                    return
                skipped = set(skip)
                workers = {self.remote[s] for s in members if s not in skipped}
        if not workers:
            return
        text = out_message(event, payload, to, list(skip))
        for worker in workers:
            self._publish_text(worker, text)

    def hang_up(self, sids: list[str]) -> list[str]:
        """Hang up the remote tabs among `sids` (through their workers); returns the others."""
        local: list[str] = []
        by_worker: dict[str, list[str]] = {}
        with self._lock:
            for sid in sids:
                token = self.remote.get(sid)
                if token is None:
                    local.append(sid)
                else:
                    by_worker.setdefault(token, []).append(sid)
        for token, group in by_worker.items():
            self._publish(token, {"k": "hup", "sids": group})
        return local

    # -- Redis ------------------------------------------------------------------------------

    def _publish(self, token: str, message: dict[str, Any]) -> None:
        self._publish_text(token, json.dumps(message, separators=(",", ":")))

    def _publish_text(self, token: str, text: str) -> None:
        try:
            self.client.publish(channel(token), text)
        except Exception:
            log.warning("could not reach another worker through Redis")

    def receive(self, text: bytes | str) -> None:
        """One message on this worker's channel (the listener's thread)."""
        message = json.loads(text)
        kind = message.get("k")
        if kind in ("ev", "left", "resync"):
            sid = message["sid"]
            if kind == "ev":
                with self._lock:
                    self.remote[sid] = message["from"]
            try:
                self.pending.put_nowait(message)
            except queue.Full:
                if kind == "ev":
                    from webapp.realtime.state import Refusal

                    self.rt.refuse(sid, Refusal("rate_limited", limit=int(self.rt.limiter.rate)))
        elif kind == "out":
            event, payload = message["e"]
            self.rt.outbox.emit(event, payload, to=message["to"], skip=message["skip"])
        elif kind == "room":
            self._local_room(message["sid"], message["room"])
        elif kind == "hup":
            self._hang_up_local([s for s in message["sids"] if s in self.proxied])

    def _local_room(self, sid: str, room: str | None) -> None:
        server = self.rt.socketio.server
        with self._lock:
            if sid not in self.proxied:
                return
            old = self.local_room.pop(sid, None)
            if room is not None:
                self.local_room[sid] = room
        if old is not None and old != room:
            with contextlib.suppress(Exception):
                server.leave_room(sid, old, namespace="/")
        if room is not None:
            server.enter_room(sid, room, namespace="/")

    def _hang_up_local(self, sids: list[str]) -> None:
        if sids:
            self.rt.hang_up(sids)

    def handle(self, message: dict[str, Any]) -> None:
        """A forwarded event, departure or resync of a remote tab (the events thread)."""
        rt = self.rt
        sid = message["sid"]
        kind = message["k"]
        if kind == "left":
            if self.disconnected is not None:
                self.disconnected(sid)
            return
        if kind == "resync":
            session = rt.manager.session_of(sid)
            if session is not None:
                with session.lock:
                    rt.send_snapshot_to_tab(session, sid)
            return
        if sid not in self.remote:  # it left meanwhile
            return
        rt.languages[sid] = message.get("lang") or rt.lang(sid)
        client = str(message.get("client") or "")
        environ = {"REMOTE_ADDR": client, "HTTP_X_FORWARDED_FOR": client}
        with self.app.test_request_context("/socket.io/", environ_base=environ):
            if self.run_event is not None:
                self.run_event(message["ev"], sid, message["p"])

    # -- once a second ----------------------------------------------------------------------

    def round(self) -> None:
        client = self.client
        client.set(alive_key(self.token), "1", px=self.lease_ms)
        # The classes held here: renewed, or dropped if another worker took one.
        held = [code for code in self.classes.held_codes()]
        kept = self.leases.renew([lease_id(code) for code in held])
        for code, ok in zip(held, kept, strict=True):
            if not ok:
                log.info("another worker took class %s over", code)
                self.classes.drop(code)
        # Remote tabs whose worker is gone: they left.
        with self._lock:
            workers: dict[str, list[str]] = {}
            for sid, token in self.remote.items():
                workers.setdefault(token, []).append(sid)
        for token, sids in workers.items():
            if not self.alive(token):
                for sid in sids:
                    with contextlib.suppress(queue.Full):
                        self.pending.put_nowait({"k": "left", "sid": sid})
        # Proxied tabs whose home is gone or let the class go: they reconnect and rejoin.
        with self._lock:
            homes: dict[tuple[str, str], list[str]] = {}
            for sid, home in self.proxied.items():
                homes.setdefault(home, []).append(sid)
        for (token, code), sids in homes.items():
            holder = client.get(RedisLeases.key(lease_id(code)))
            if (
                holder is None
                or holder.decode("utf-8", "replace") != token
                or not self.alive(token)
            ):
                log.info("class %s lost its home; its tabs here reconnect", code)
                self._hang_up_local(sids)
        # Proxied tabs that lagged and caught up: a fresh snapshot from their home.
        outbox = self.rt.outbox
        for sid, home in list(self.proxied.items()):
            if outbox.caught_up(sid):
                self._publish(home[0], {"k": "resync", "sid": sid})
        outbox.sweep()

    # -- threads ----------------------------------------------------------------------------

    def start(self) -> None:
        for name, target in (
            ("span-listen", self._listen),
            ("span-events", self._events),
            ("span-round", self._rounds),
        ):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)

    def _listen(self) -> None:
        while not self.stopped.is_set():
            try:
                pubsub = self.client.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(channel(self.token))
                try:
                    while not self.stopped.is_set():
                        message = pubsub.get_message(timeout=0.2)
                        data = (message or {}).get("data")
                        if isinstance(data, bytes):
                            try:
                                self.receive(data)
                            except Exception:
                                log.exception("a message from another worker failed")
                finally:
                    pubsub.close()
            except Exception:
                if not self.stopped.is_set():
                    log.warning("worker channel lost; subscribing again")
                    self.stopped.wait(1.0)

    def _events(self) -> None:
        while not self.stopped.is_set():
            try:
                message = self.pending.get(timeout=0.5)
            except queue.Empty:
                continue
            try:
                self.handle(message)
            except Exception:
                log.exception("a forwarded class event failed")

    def _rounds(self) -> None:
        while not self.stopped.is_set():
            started = time.monotonic()
            self.run_round()
            self.stopped.wait(max(0.0, self.round_seconds - (time.monotonic() - started)))

    def run_round(self) -> None:
        """One round; a Redis fault (down, unreachable, read-only) is logged in one line
        when it starts and when rounds work again, any other error with its traceback."""
        try:
            self.round()
        except Exception as error:
            cause = write_fault(error)
            if cause is None:
                log.exception("class span round failed")
            elif self.round_fault is None:
                self.round_fault = cause
                log.warning("class span rounds cannot reach Redis: %s", cause)
            return
        if self.round_fault is not None:
            self.round_fault = None
            log.warning("class span rounds reach Redis again")

    def drain(self) -> None:
        """SIGTERM, after the classes were saved and the sessions written: let the classes
        go, say this worker is gone, and hang up the remote tabs (they rejoin elsewhere)."""
        codes_held = list(self.classes.held_codes())
        self.leases.release([lease_id(code) for code in codes_held])
        with contextlib.suppress(Exception):
            self.client.delete(alive_key(self.token))
        with self._lock:
            remote = list(self.remote)
        self.hang_up(remote)
        self.stop()

    def stop(self) -> None:
        self.stopped.set()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(2.0)


def init(app: Any, rt: Any, classes: Any) -> Span | None:
    """The span of `app`'s classes when Redis joins several workers (REDIS_URL), else None."""
    url = app.config.get("REDIS_URL")
    if not url:
        return None
    from webapp.realtime import dispatch

    # Every tab's handler thread may publish at once (a class of 200 joining).
    client = bounded_redis(url, REDIS_CONNECTIONS)
    span = Span(
        app,
        rt,
        classes,
        client,
        run_event=lambda event, sid, payload: dispatch.forwarded(rt, event, sid, payload),
        disconnected=lambda sid: dispatch.left(rt, sid),
    )
    return span
