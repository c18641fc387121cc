"""Socket.IO handlers: the page's live connection to its session.

Client -> server (docs/internals.md, "The wire, in detail"): `join`, `apply`, `clock`, `act`,
`lang`. Server -> client: `snapshot`, `tick`, `error`. Every handler checks the payload's
shape, the client's rate limit and which session the tab has joined (a tab only ever
reaches the session it joined by id); anything wrong answers with an `error` event in the
client's language, never an exception that escapes the handler.

Settings: TICK_SECONDS, SESSION_TICK_BUDGET, MAX_SESSIONS, SESSION_IDLE_SECONDS, SESSION_END_SECONDS,
ACTIONS_PER_SECOND, SHARE_MAX_TEXT_BYTES, SESSION_SCHEDULER (False: tests step the
scheduler by hand) and, for tests only, SESSION_ENGINE (a Simulation class to use).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from flask import Flask, current_app, request
from flask_socketio import SocketIO, join_room, leave_room

from webapp import i18n, storage
from webapp.manifest import ScenarioError, localize_errors, parse_objects, parse_scenario
from webapp.sessions import (
    MAX_SPEED,
    MIN_SPEED,
    PayloadProblem,
    ScenarioCatalog,
    Scheduler,
    Session,
    SessionManager,
    TooManySessions,
    valid_speed,
)
from webapp.sessions import payloads as check

log = logging.getLogger(__name__)

CLOCK_OPS = ("play", "pause", "step", "speed", "seek")


class Refusal(Exception):
    """An answer to the client as an `error` event: a catalogue code and its parameters."""

    def __init__(self, code: str, errors: list[dict[str, Any]] | None = None, **params: Any):
        super().__init__(code)
        self.code = code
        self.errors = errors
        self.params = params


def _engine_class() -> Any:
    engine = current_app.config.get("SESSION_ENGINE")
    if engine is None:
        from webapp.engine import Simulation

        engine = Simulation
    return engine


@dataclass
class Realtime:
    """Per-app state of the Socket.IO layer."""

    socketio: SocketIO
    manager: SessionManager
    scheduler: Scheduler
    limiter: Any  # webapp.ratelimit.RateLimiter
    catalog: ScenarioCatalog
    text_limit: int
    run_scheduler: bool
    languages: dict[str, str]

    def lang(self, sid: str) -> str:
        return self.languages.get(sid, i18n.DEFAULT_LANGUAGE)

    def error_payload(self, refusal: Refusal, lang: str) -> dict[str, Any]:
        params = dict(refusal.params)
        if "problem" in params:
            code, problem_params = params["problem"]
            params["problem"] = i18n.problem(code, lang, **problem_params)
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

    def send_snapshot(self, session: Session, *, to_room: bool, sid: str = "") -> None:
        """Under the session's lock: a fresh snapshot to every tab (history changed) or to
        one joining tab."""
        payload = session.snapshot(advance_seq=to_room)
        self.socketio.emit("snapshot", payload, to=session.room if to_room else sid)

    def send_tick(self, session: Session) -> None:
        payload = session.tick()
        if payload is not None:
            self.socketio.emit("tick", payload, to=session.room)


def realtime_of(app: Flask) -> Realtime:
    state: Realtime = app.extensions["playground.realtime"]
    return state


def init_app(app: Flask, socketio: SocketIO, catalog: ScenarioCatalog) -> Realtime:
    from webapp.ratelimit import RateLimiter

    config = app.config
    manager = SessionManager(
        emit=lambda event, payload, to: socketio.emit(event, payload, to=to),
        max_sessions=int(config["MAX_SESSIONS"]),
        idle_seconds=float(config["SESSION_IDLE_SECONDS"]),
        end_seconds=float(config["SESSION_END_SECONDS"]),
    )
    rt = Realtime(
        socketio=socketio,
        manager=manager,
        scheduler=Scheduler(
            manager,
            period=float(config["TICK_SECONDS"]),
            ticks_per_second=float(config["SESSION_TICK_BUDGET"]),
        ),
        limiter=RateLimiter(float(config["ACTIONS_PER_SECOND"])),
        catalog=catalog,
        text_limit=int(config["SHARE_MAX_TEXT_BYTES"]),
        run_scheduler=bool(config["SESSION_SCHEDULER"]),
        languages={},
    )
    app.extensions["playground.realtime"] = rt
    _register(socketio, rt)
    return rt


def _register(socketio: SocketIO, rt: Realtime) -> None:
    def handler(event: str, *, limited: bool = True) -> Callable[[Callable[..., None]], None]:
        """Register `fn(sid, payload)` for `event` behind the checks every event shares."""

        def decorate(fn: Callable[[str, dict[str, Any]], None]) -> None:
            @wraps(fn)
            def on_event(*args: Any) -> None:
                sid = request.sid  # type: ignore[attr-defined]
                try:
                    if len(args) != 1:
                        raise PayloadProblem("arguments")
                    payload = check.require_object(args[0])
                    if limited and not rt.limiter.allow(sid):
                        raise Refusal("rate_limited", limit=int(rt.limiter.rate))
                    fn(sid, payload)
                except PayloadProblem as problem:
                    _refuse(sid, _refusal_for(problem))
                except Refusal as refusal:
                    _refuse(sid, refusal)
                except Exception:
                    log.exception("%s handler failed", event)
                    _refuse(sid, Refusal("internal_error"))

            socketio.on(event)(on_event)

        return decorate

    def _refuse(sid: str, refusal: Refusal) -> None:
        socketio.emit("error", rt.error_payload(refusal, rt.lang(sid)), to=sid)

    def joined_session(sid: str) -> Session:
        session = rt.manager.session_of(sid)
        if session is None:
            raise Refusal("no_session")
        return session

    @socketio.on("connect")
    def on_connect() -> None:
        socketio.emit("hello", {"server": "pod-lifecycle-playground"}, to=request.sid)  # type: ignore[attr-defined]

    @socketio.on("disconnect")
    def on_disconnect(*_: Any) -> None:
        sid = request.sid  # type: ignore[attr-defined]
        rt.manager.detach(sid)
        rt.limiter.forget(sid)
        rt.languages.pop(sid, None)

    @handler("lang", limited=False)
    def on_lang(sid: str, payload: dict[str, Any]) -> None:
        check.only_fields(payload, ["lang"])
        rt.languages[sid] = _language(payload)

    @handler("join")
    def on_join(sid: str, payload: dict[str, Any]) -> None:
        check.only_fields(payload, ["session", "yaml", "scenario", "share", "lang"])
        if "lang" in payload:
            rt.languages[sid] = _language(payload)
        sources = [k for k in ("session", "yaml", "scenario", "share") if k in payload]
        if len(sources) > 1:
            raise PayloadProblem("one_source")
        if sources == ["session"]:
            session = rt.manager.get(check.text(payload, "session"))
            if session is None:
                raise Refusal("unknown_session")
        else:
            session = _new_session(rt, sid, payload, sources[0] if sources else None)
        previous = rt.manager.attach(sid, session)
        if previous is not None:
            leave_room(previous.room, sid=sid)
        with session.lock:
            join_room(session.room, sid=sid)
            rt.send_snapshot(session, to_room=False, sid=sid)
        if rt.run_scheduler:
            rt.scheduler.start(socketio.start_background_task, socketio.sleep)

    @handler("apply")
    def on_apply(sid: str, payload: dict[str, Any]) -> None:
        check.only_fields(payload, ["yaml"])
        session = joined_session(sid)
        text = _scenario_text(rt, payload)
        try:
            scenario = parse_scenario(text)
        except ScenarioError as error:
            if not all(e["code"] == "no_pod" for e in error.errors):
                raise _invalid(error) from None
            _apply_objects(session, text)
            return
        sim = _engine_class().from_scenario(scenario, seed=session.seed)
        with session.lock:
            session.restart(sim)
            rt.send_snapshot(session, to_room=True)

    def _apply_objects(session: Session, text: str) -> None:
        """Objects without a Pod (a ConfigMap, a Service): the engine's `apply` action."""
        try:
            parse_objects(text)
        except ScenarioError as error:
            raise _invalid(error) from None
        _act(session, {"action": "apply", "yaml": text})

    @handler("clock")
    def on_clock(sid: str, payload: dict[str, Any]) -> None:
        check.only_fields(payload, ["op", "value"])
        op = check.text(payload, "op")
        if op not in CLOCK_OPS:
            raise Refusal("unknown_clock_op", op=op)
        session = joined_session(sid)
        value = check.number(payload, "value") if op in ("speed", "seek") else None
        with session.lock:
            end = session.clock.end
            if op == "play":
                if session.sim.now >= end:
                    raise Refusal("at_end", end=_seconds(end))
                session.clock.play()
            elif op == "pause":
                session.clock.pause()
            elif op == "step":
                session.step()
            elif op == "speed":
                assert value is not None
                if not valid_speed(value):
                    raise Refusal("bad_speed", min=MIN_SPEED, max=_seconds(MAX_SPEED))
                session.clock.set_speed(value)
            else:
                assert value is not None
                if not 0 <= value <= end:
                    raise Refusal("bad_seek", end=_seconds(end))
                session.seek(value)
                rt.send_snapshot(session, to_room=True)
                return
            rt.send_tick(session)

    @handler("act")
    def on_act(sid: str, payload: dict[str, Any]) -> None:
        action = check.check_action(payload, yaml_limit=rt.text_limit, timed=False)
        session = joined_session(sid)
        if action["action"] == "apply":
            _apply_objects(session, _scenario_text(rt, action))
        else:
            _act(session, dict(action))

    def _act(session: Session, action: dict[str, Any]) -> None:
        with session.lock:
            try:
                session.act(action)
            except Exception as error:
                code = getattr(error, "code", None)
                if not isinstance(code, str):
                    raise
                params = getattr(error, "params", None) or {}
                raise Refusal(
                    "action_refused",
                    reason=str(error),
                    action_code=code,
                    action_params={k: v for k, v in params.items() if k != "errors"},
                ) from None
            rt.send_tick(session)


def _new_session(rt: Realtime, sid: str, payload: dict[str, Any], source: str | None) -> Session:
    engine = _engine_class()
    future: list[dict[str, Any]] = []
    if source == "yaml":
        sim = engine.from_scenario(_parse(_scenario_text(rt, payload)), seed=0)
    elif source == "share":
        link = storage.store_of(current_app).get(check.text(payload, "share"))
        if link is None:
            raise Refusal("share_not_found")
        scenario = _parse(link["yaml"])
        at = float(link["at"])
        past = [a for a in link["actions"] if a["at"] <= at]
        future = [a for a in link["actions"] if a["at"] > at]
        sim = engine.replay(scenario, past, until=at, seed=0)
    else:
        name = check.text(payload, "scenario") if source == "scenario" else None
        scenario = rt.catalog.get(name) if name else _default_scenario(rt)
        if scenario is None:
            raise Refusal("unknown_scenario", name=name or "")
        sim = engine.from_scenario(scenario, seed=0)
    try:
        return rt.manager.create(sim, future)
    except TooManySessions as error:
        raise Refusal("too_many_sessions", limit=error.limit) from None


def _default_scenario(rt: Realtime) -> Any:
    names = rt.catalog.names()
    return rt.catalog.get("plain-pod" if "plain-pod" in names else (names or [""])[0])


def _scenario_text(rt: Realtime, payload: dict[str, Any]) -> str:
    value = payload.get("yaml")
    if isinstance(value, str) and len(value.encode("utf-8")) > rt.text_limit:
        raise Refusal(
            "text_too_large",
            size=len(value.encode("utf-8")) // 1024,
            limit=rt.text_limit // 1024,
        )
    return check.text(payload, "yaml", limit=rt.text_limit)


def _parse(text: str) -> Any:
    try:
        return parse_scenario(text)
    except ScenarioError as error:
        raise _invalid(error) from None


def _invalid(error: ScenarioError) -> Refusal:
    return Refusal("invalid_scenario", errors=error.errors, count=len(error.errors))


def _language(payload: dict[str, Any]) -> str:
    value = payload.get("lang")
    if not i18n.is_language(value):
        raise PayloadProblem("bad_language")
    return str(value)


def _refusal_for(problem: PayloadProblem) -> Refusal:
    if problem.code == "unknown_action":
        return Refusal("unknown_action", **problem.params)
    return Refusal("invalid_payload", problem=(problem.code, problem.params))


def _seconds(value: float) -> str:
    return f"{value:g}"
