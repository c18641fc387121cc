"""(d) Drive the real Socket.IO handlers and the share API with hostile steps.

One app per test module (Flask-SocketIO's test client, the scheduler stepped by hand, the
real engine). A run is a list of steps, plain data so that the regression corpus can hold
them:

    ("emit", event, [args...])   a Socket.IO event (JSON-encoded and decoded on the way)
    ("raw", text)                a Socket.IO packet as the client could write it, e.g.
                                 '2["act",{"exitCode":9999...}]' (invalid JSON, 5000 digits)
    ("tick", seconds)            one scheduler round, `seconds` of wall time later
    ("share", body, lang)        POST /api/share (a dict as JSON, or raw bytes); when it is
                                 accepted (201), the tab joins the link at once
    ("rejoin",)                  a second tab joins the first tab's session by id

The property, after every step: the server sent only `hello`, `snapshot`, `tick` and
`error`; every payload is JSON any client accepts; every `error` has a catalogued code
(never `internal_error`) and a message in the tab's language (Chinese text when it chose
zh), with located errors when it has any; no exception escaped and nothing was logged at
ERROR; a step answered only with errors left the tab's session exactly as it was; a tab
that is still connected keeps a session once it has one; a share link accepted with 201
opens.
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path
from typing import Any

from flask import Flask
from flask_socketio import SocketIOTestClient
from socketio import packet

from tests.fuzz.oracles import CJK, assert_json_safe, assert_located, fingerprint
from webapp import create_app, i18n, socketio_of
from webapp.realtime import realtime_of
from webapp.sessions import wire

# `applied`: the answer to `apply` (issue 17: the lines kubectl prints, or "restart")
SERVER_EVENTS = ("hello", "snapshot", "tick", "applied", "error")
SHARE_STATUSES = (201, 400, 413, 429, 503, 507)


def short(value: Any, limit: int = 300) -> str:
    """A repr short enough for a failure message (packets can be 100 KB)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} chars)"


class ErrorLog(logging.Handler):
    """Collects records at ERROR and above (a handler that failed, a pacing failure)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


class Harness:
    def __init__(self) -> None:
        self.directory = tempfile.TemporaryDirectory(prefix="fuzz-socket-")
        self.app: Flask = create_app(
            {
                "TESTING": True,
                "PLAYGROUND_DB": str(Path(self.directory.name) / "links.sqlite3"),
                "SESSION_SCHEDULER": False,
                "SESSION_IDLE_SECONDS": 0,
                "ACTIONS_PER_SECOND": 1_000_000,
                "MAX_SESSIONS": 100_000,
                "SHARE_POSTS_PER_MINUTE": 1_000_000,
                # Per-client and CPU budgets (where the server has them) would refuse the
                # suite's single test client at random moments: lift them.
                "MAX_SESSIONS_PER_CLIENT": 100_000,
                "NEW_SESSIONS_PER_MINUTE": 1_000_000,
                "SESSION_CPU_SHARE": 1_000_000.0,
                "SESSION_CPU_BURST_SECONDS": 1_000_000.0,
            }
        )
        self.socketio = socketio_of(self.app)
        self.rt = realtime_of(self.app)
        self.http = self.app.test_client()
        self.wall = 1000.0
        self.log = ErrorLog()

    def close(self) -> None:
        self.directory.cleanup()

    # -- one run ---------------------------------------------------------------------------

    def run(self, steps: list[Any]) -> None:
        logging.getLogger().addHandler(self.log)
        self.log.records.clear()
        client = self.connect()
        tabs = [client]
        try:
            for step in steps:
                self.step(client, tabs, step)
        finally:
            logging.getLogger().removeHandler(self.log)
            for tab in tabs:
                self.hang_up(tab)
            # Idle time 0: two rounds free every session without a tab.
            for _ in range(2):
                self.wall += 2.0
                self.rt.manager.reap(self.wall)

    def hang_up(self, client: SocketIOTestClient) -> None:
        """The tab's connection drops, as Engine.IO reports a closed socket (whatever state
        the tab left its Socket.IO parser in)."""
        eio = self.socketio.server.eio
        eio._trigger_event(
            "disconnect", client.eio_sid, eio.reason.CLIENT_DISCONNECT, run_async=False
        )
        client.connected.clear()
        SocketIOTestClient.clients.pop(client.eio_sid, None)

    def connect(self) -> SocketIOTestClient:
        client = self.socketio.test_client(self.app)
        self.check_received(client, client.get_received())
        return client

    def sid(self, client: SocketIOTestClient) -> str | None:
        sid: str | None = self.socketio.server.manager.sid_from_eio_sid(client.eio_sid, "/")
        return sid

    def session_state(self, client: SocketIOTestClient) -> Any:
        sid = self.sid(client)
        session = self.rt.manager.session_of(sid) if sid else None
        if session is None:
            return None
        with session.lock:
            return (
                session.id,
                session.seq,
                fingerprint(session.sim),
                wire.encode(session.future),
                wire.encode(session.clock.as_wire()),
            )

    def step(self, client: SocketIOTestClient, tabs: list[SocketIOTestClient], step: Any) -> None:
        kind = step[0]
        if kind == "tick":
            self.wall += float(step[1])
            self.rt.scheduler.tick(self.wall)
            for tab in tabs:
                if tab.is_connected():
                    self.check_received(tab, tab.get_received())
            self.check_log(step)
            return
        if kind == "rejoin":
            session = self.session_state(client)
            if session is None:
                return
            other = self.connect()
            tabs.append(other)
            received = self.emit(other, "join", [{"session": session[0]}])
            self.check_received(other, received)
            assert [m["name"] for m in received] == ["snapshot"], received
            return
        before = self.session_state(client)
        if kind == "emit":
            received = self.emit(client, step[1], step[2])
        elif kind == "raw":
            received = self.raw(client, step[1])
        elif kind == "share":
            received = self.share(client, step[1], step[2])
        else:
            raise ValueError(f"unknown step {short(step)}")
        self.check_received(client, received)
        self.check_log(step)
        names = [m["name"] for m in received]
        after = self.session_state(client)
        if names and set(names) == {"error"}:
            assert after == before, f"refused {short(step)} changed the session"
        sid = self.sid(client)
        if before is not None and sid and self.socketio.server.manager.is_connected(sid, "/"):
            assert after is not None, f"{short(step)} left a connected tab without its session"
        for tab in tabs[1:]:
            if tab.is_connected():
                self.check_received(tab, tab.get_received())

    def emit(self, client: SocketIOTestClient, event: str, args: list[Any]) -> list[dict]:
        """An event, JSON-encoded as a client would send it (Socket.IO's own encoder)."""
        encoded = packet.Packet(packet.EVENT, data=[event, *args]).encode()
        assert isinstance(encoded, str), "binary packets are not part of the suite"
        return self.raw(client, encoded)

    def raw(self, client: SocketIOTestClient, text: str) -> list[dict]:
        """A packet as it arrives from the wire: handed to the Engine.IO server's `message`
        event as a real connection would (`Socket.receive` -> `_trigger_event`), so that
        whatever the app installed there runs; a handler failure there is logged with its
        traceback (and caught by check_log)."""
        if not client.is_connected():
            return []
        eio = self.socketio.server.eio
        try:
            eio._trigger_event("message", client.eio_sid, text, run_async=False)
        except Exception as error:
            raise AssertionError(f"packet {short(text)} raised {short(error)}") from error
        if not client.is_connected():  # the test client saw a DISCONNECT or CONNECT_ERROR
            return []
        received: list[dict] = client.get_received()
        return received

    def share(self, client: SocketIOTestClient, body: Any, lang: str) -> list[dict]:
        headers = {"Accept-Language": lang}
        if isinstance(body, bytes):
            response = self.http.post(
                "/api/share", data=body, content_type="application/json", headers=headers
            )
        else:
            response = self.http.post("/api/share", json=body, headers=headers)
        assert response.mimetype == "application/json", (response.status, response.data[:200])
        assert response.status_code in SHARE_STATUSES, (response.status, response.data[:300])
        data = response.get_json()
        assert_json_safe(data, "share answer", int64=False)
        if response.status_code != 201:
            assert data["code"] in i18n.CATALOGUE, data
            assert data["message"], data
            if lang == "zh":
                assert CJK.search(data["message"]), data
            for error in data.get("errors", []):
                if "doc" in error:  # an error in the scenario text
                    assert_located([error])
                else:  # an error in a field of the body ("at", "actions[2].exitCode")
                    assert isinstance(error.get("path"), str) and error.get("message"), error
                    if lang == "zh":
                        assert CJK.search(error["message"]), f"not in Chinese: {error}"
            return []
        received = self.emit(client, "join", [{"share": data["id"]}])
        names = [m["name"] for m in received]
        # A tab leaving a playing session for the link's brings that session to its clock's
        # time as it goes (realtime/join.py): a last tick of the old session may come first.
        while names[:1] == ["tick"]:
            names = names[1:]
        assert names == ["snapshot"], f"an accepted share link (201) does not open: {received}"
        return received

    # -- checks ----------------------------------------------------------------------------

    def check_received(self, client: SocketIOTestClient, received: list[dict]) -> None:
        sid = self.sid(client)
        lang = self.rt.lang(sid) if sid else "en"
        for message in received:
            name, args = message["name"], message["args"]
            assert name in SERVER_EVENTS, f"unexpected event {name!r}"
            assert len(args) == 1, message
            payload = args[0]
            if name != "error":
                assert_json_safe(payload, name)
                continue
            assert_json_safe(payload, "error", int64=False)
            code = payload.get("code")
            assert code != "internal_error", payload
            assert code in i18n.CATALOGUE, f"uncatalogued error code {code!r}"
            text = payload.get("message")
            assert isinstance(text, str) and text, payload
            if lang == "zh":
                assert CJK.search(text), f"error not in Chinese for a zh tab: {payload}"
            if "errors" in payload:
                assert_located(payload["errors"])

    def check_log(self, step: Any) -> None:
        if self.log.records:
            record = self.log.records[0]
            text = record.getMessage()
            if record.exc_info and record.exc_info[1] is not None:
                text += f": {short(record.exc_info[1])}"
            self.log.records.clear()
            raise AssertionError(f"{short(step)} logged an error: {text}")
