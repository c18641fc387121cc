"""What every handler shares: the per-app `Realtime` state, `Refusal`, and small helpers
for reading scenario text out of a payload."""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from flask import current_app
from flask_socketio import SocketIO

from webapp import i18n
from webapp.manifest import ScenarioError, localize_errors, parse_scenario
from webapp.realtime.outbox import Outbox
from webapp.sessions import PayloadProblem, ScenarioCatalog, Scheduler, Session, SessionManager
from webapp.sessions import payloads as check
from webapp.sessions.budget import ClientGates
from webapp.sessions.slices import SeekLoop
from webapp.shares import engine_for


class Refusal(Exception):
    """An answer to the client as an `error` event: a catalogue code and its parameters."""

    def __init__(self, code: str, errors: list[dict[str, Any]] | None = None, **params: Any):
        super().__init__(code)
        self.code = code
        self.errors = errors
        self.params = params


@dataclass
class Realtime:
    """Per-app state of the Socket.IO layer."""

    socketio: SocketIO
    manager: SessionManager
    scheduler: Scheduler
    limiter: Any  # webapp.ratelimit.RateLimiter, per tab (sid)
    creations: Any  # webapp.ratelimit.RateLimiter, new sessions per client address
    catalog: ScenarioCatalog
    text_limit: int
    run_scheduler: bool
    languages: dict[str, str]
    outbox: Outbox
    seeker: SeekLoop  # runs far seeks in slices (webapp/sessions/slices.py)
    # Checks run before every counted event's handler: `gate(event, sid, payload)` raises a
    # Refusal to refuse it (the classroom: a following student may not drive the teacher's
    # run). `leaving(sid)` hooks run when a tab disconnects, `refusals(event, sid, refusal)`
    # after an event was refused.
    gates: list[Any] = field(default_factory=list)
    refusals: list[Any] = field(default_factory=list)
    leaving: list[Any] = field(default_factory=list)
    # `mirror(sid) -> room | None`: where a tab's terminal is shown too (the classroom: the
    # teacher's terminal, to the class's run, followers and presenter mode).
    terminal_mirrors: list[Any] = field(default_factory=list)
    keeper: Any = None  # webapp.records.Keeper: session records and leases, if kept
    # webapp.classes.span.Span: classes whose tabs sit on several workers (with Redis).
    span: Any = None
    handlers: dict[str, Any] = field(default_factory=dict)  # event -> (handler, limited)
    # The handlers of one client address run one at a time (webapp.sessions.budget).
    turns: ClientGates = field(default_factory=ClientGates)

    def lang(self, sid: str) -> str:
        return self.languages.get(sid, i18n.DEFAULT_LANGUAGE)

    def error_payload(self, refusal: Refusal, lang: str) -> dict[str, Any]:
        params = dict(refusal.params)
        if "problem" in params:
            code, problem_params = params["problem"]
            params["problem"] = i18n.problem(code, lang, **problem_params)
        if "action_refusal" in params:  # an engine refusal quoted inside another message
            code, reason, action_params = params.pop("action_refusal")
            params["reason"] = i18n.action_refusal(code, lang, reason, **action_params)
        if "action_code" in params:
            text = i18n.action_refusal(
                params["action_code"], lang, params["reason"], **params["action_params"]
            )
        else:
            text = i18n.message(refusal.code, lang, **params)
        payload: dict[str, Any] = {"code": refusal.code, "message": text}
        if "action_code" in params:
            payload["reason"] = params["action_code"]
        if refusal.errors is not None:
            payload["errors"] = localize_errors(refusal.errors, lang)
        return payload

    def refuse(self, sid: str, refusal: Refusal, event: str | None = None) -> None:
        """Answer tab `sid` with an `error` event in its language; `event`: the client's
        event refused (the page's terminal shows its own refusals in place)."""
        payload = self.error_payload(refusal, self.lang(sid))
        if event is not None:
            payload["event"] = event
        self.outbox.emit("error", payload, to=sid)

    def refuse_connection(self, eio_sid: str, refusal: Refusal) -> None:
        """Answer a connection by its engine.io id (before Socket.IO has a handler for the
        message); nothing when it has not joined the default namespace yet."""
        sid = self.socketio.server.manager.sid_from_eio_sid(eio_sid, "/")
        if sid is not None:
            self.refuse(sid, refusal)

    def hang_up(self, sids: list[str]) -> None:
        """Close the connections of tabs `sids`: they reconnect, and resume where they are
        served (a tab of another worker through its worker)."""
        from webapp.realtime import transport

        if self.span is not None:
            sids = self.span.hang_up(sids)
        for sid in sids:
            transport.hang_up(self.socketio.server.eio, self.outbox._eio_sid(sid))

    def enter_room(self, sid: str, session: Session) -> bool:
        """Put tab `sid` (already attached to `session` by the manager) in the session's
        room; False, with the tab detached again, when the tab disconnected meanwhile: a
        handler runs in its own thread, and a disconnect handled before it would otherwise
        leave a dead tab in `session.tabs` (the session never idles) and Socket.IO raise
        KeyError for the unknown sid (ci13, a forking attacker hanging up). A tab of
        another worker joins it through its worker (its departure is handled in order with
        its events, never meanwhile)."""
        if self.span is not None and self.span.is_remote(sid):
            self.span.enter_room(sid, session.room)
            return True
        server = self.socketio.server
        with contextlib.suppress(KeyError):  # the connection is gone from Socket.IO's rooms
            server.enter_room(sid, session.room, namespace="/")
        if server.manager.is_connected(sid, "/"):
            return True
        # Its disconnect has begun: it may already have detached the tab before the
        # handler attached it, so the handler undoes its own attach.
        self.manager.detach(sid)
        return False

    def leave_room(self, sid: str, room: str) -> None:
        if self.span is not None and self.span.is_remote(sid):
            self.span.leave_room(sid, room)
        else:
            self.socketio.server.leave_room(sid, room, namespace="/")

    def send_snapshot(self, session: Session, *, to_room: bool, sid: str = "") -> None:
        """Under the session's lock: a fresh snapshot to every tab (history changed) or to
        one joining tab."""
        if not to_room:
            self.send_snapshot_to_tab(session, sid)
            return
        self.outbox.emit("snapshot", session.snapshot(advance_seq=True), to=session.room)

    def send_snapshot_to_tab(self, session: Session, sid: str) -> None:
        """Under the session's lock: the full state to one tab (joining, or caught up after
        lagging). Changes not yet sent to the other tabs go to them first, in a tick: the
        snapshot marks everything as sent, and they must not miss it."""
        pending = session.tick() if session.tabs - {sid} else None
        if pending is not None:
            self.outbox.emit("tick", pending, to=session.room, skip=[sid])
        self.outbox.emit("snapshot", session.snapshot(advance_seq=False), to=sid)

    def send_tick(self, session: Session) -> None:
        payload = session.tick()
        if payload is not None:
            self.outbox.emit("tick", payload, to=session.room)

    def tend(self, session: Session) -> None:
        """Under the session's lock (the scheduler's round): a tab that lagged and whose
        queue has drained gets one fresh snapshot instead of the ticks it missed."""
        for sid in session.tabs:
            if sid in self.outbox.lagging and self.outbox.caught_up(sid):
                self.send_snapshot_to_tab(session, sid)

    @contextmanager
    def working(self, session: Session, *, refusable: bool = True) -> Iterator[None]:
        """Charge the block's CPU time to `session` and its client; refuse first
        (`session_busy`, `client_busy`) when either has used up its CPU share, unless the command is not
        `refusable`."""
        budgets = session.budgets()  # its own, its client's, the server's (charged only)
        if refusable:
            checked = [b for b in (session.cpu, session.client_cpu) if b is not None]
            for budget, code in zip(checked, ("session_busy", "client_busy"), strict=False):
                if budget.spent():
                    raise Refusal(
                        code,
                        seconds=max(1, math.ceil(budget.wait())),
                        share=round(budget.rate * 100),
                    )
        started = time.thread_time()
        try:
            yield
        finally:
            used = time.thread_time() - started
            for budget in budgets:
                budget.charge(used)

    def joined_session(self, sid: str) -> Session:
        """The session tab `sid` has joined; refused when it has joined none."""
        session = self.manager.session_of(sid)
        if session is None:
            raise Refusal("no_session")
        return session


def engine_class() -> Any:
    """The Simulation class sessions run (SESSION_ENGINE in tests, the real engine else)."""
    return engine_for(current_app)


def scenario_text(rt: Realtime, payload: dict[str, Any]) -> str:
    """The payload's `yaml` text, refused past the size limit with its size in KiB."""
    value = payload.get("yaml")
    if isinstance(value, str) and (size := check.utf8_size(value, "yaml")) > rt.text_limit:
        raise Refusal("text_too_large", size=size // 1024, limit=rt.text_limit // 1024)
    return check.text(payload, "yaml", limit=rt.text_limit)


def parse(text: str) -> Any:
    try:
        return parse_scenario(text)
    except ScenarioError as error:
        raise invalid(error) from None


def invalid(error: ScenarioError) -> Refusal:
    return Refusal("invalid_scenario", errors=error.errors, count=len(error.errors))


def language(payload: dict[str, Any]) -> str:
    value = payload.get("lang")
    if not i18n.is_language(value):
        raise PayloadProblem("bad_language")
    return str(value)


def refusal_for(problem: PayloadProblem) -> Refusal:
    if problem.code == "unknown_action":
        return Refusal("unknown_action", **problem.params)
    return Refusal("invalid_payload", problem=(problem.code, problem.params))


def seconds(value: float) -> str:
    return f"{value:g}"
