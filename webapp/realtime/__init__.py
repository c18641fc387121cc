"""Socket.IO handlers: the page's live connection to its session.

Client -> server (docs/internals.md, "The wire, in detail"): `join`, `apply`, `clock`, `act`,
`lang`. Server -> client: `snapshot`, `tick`, `applied` (the answer to `apply`), `error`.
Every handler checks the payload's shape, the client's rate limit and which session the
tab has joined (a tab only ever reaches the session it joined by id); anything wrong
answers with an `error` event in the client's language, never an exception that escapes
the handler.

Where each event is handled (one module per event family, each a plain function
`on_<event>(rt, sid, payload)`):

    connect, disconnect, lang   webapp/realtime/connection.py
    join                        webapp/realtime/join.py
    apply                       webapp/realtime/apply.py
    clock                       webapp/realtime/clock.py
    act                         webapp/realtime/act.py
    terminal                    webapp/realtime/terminal.py

`EVENTS` below is the table the server registers; `dispatch.guarded` wraps each handler in
the checks every event shares. Shared state and helpers: webapp/realtime/state.py.

Settings: TICK_SECONDS, SESSION_TICK_BUDGET, MAX_SESSIONS, SESSION_IDLE_SECONDS, SESSION_END_SECONDS,
ACTIONS_PER_SECOND, SHARE_MAX_TEXT_BYTES, SESSION_SCHEDULER (False: tests step the
scheduler by hand) and, for tests only, SESSION_ENGINE (a Simulation class to use).
"""

from __future__ import annotations

import math

from flask import Flask
from flask_socketio import SocketIO

from webapp import records
from webapp.realtime import act, apply, clock, connection, join, terminal, transport
from webapp.realtime.dispatch import Handler, register
from webapp.realtime.outbox import Outbox
from webapp.realtime.state import Realtime, Refusal
from webapp.sessions import ScenarioCatalog, Scheduler, SessionManager
from webapp.sessions.slices import SeekLoop

__all__ = ["EVENTS", "Realtime", "Refusal", "init_app", "realtime_of"]

# event -> (handler, counted against the client's rate limit)
EVENTS: dict[str, tuple[Handler, bool]] = {
    "lang": (connection.on_lang, False),
    "join": (join.on_join, True),
    "apply": (apply.on_apply, True),
    "clock": (clock.on_clock, True),
    "act": (act.on_act, True),
    "terminal": (terminal.on_terminal, True),
}


def realtime_of(app: Flask) -> Realtime:
    state: Realtime = app.extensions["playground.realtime"]
    return state


def init_app(app: Flask, socketio: SocketIO, catalog: ScenarioCatalog) -> Realtime:
    from webapp.ratelimit import RateLimiter, shared_limiter

    config = app.config
    new_per_minute = float(config["NEW_SESSIONS_PER_MINUTE"])
    transport.install(
        socketio.server.eio, max_message_bytes=int(config["SOCKETIO_TRANSPORT_MAX_BYTES"])
    )
    outbox = Outbox(
        socketio,
        soft_bytes=int(config["SOCKETIO_BACKLOG_SOFT_BYTES"]),
        hard_bytes=int(config["SOCKETIO_BACKLOG_HARD_BYTES"]),
        lag_seconds=float(config["SOCKETIO_LAG_SECONDS"]),
    )
    manager = SessionManager(
        emit=lambda event, payload, to: outbox.emit(event, payload, to),
        max_sessions=int(config["MAX_SESSIONS"]),
        max_per_client=int(config["MAX_SESSIONS_PER_CLIENT"]),
        idle_seconds=float(config["SESSION_IDLE_SECONDS"]),
        unused_idle_seconds=float(config["UNUSED_SESSION_IDLE_SECONDS"]),
        end_seconds=float(config["SESSION_END_SECONDS"]),
        cpu_rate=float(config["SESSION_CPU_SHARE"]),
        cpu_burst=float(config["SESSION_CPU_BURST_SECONDS"]),
        client_cpu_rate=float(config["CLIENT_CPU_SHARE"]),
        client_cpu_burst=float(config["CLIENT_CPU_BURST_SECONDS"]),
        server_cpu_rate=float(config["SERVER_CPU_SHARE"]),
        server_cpu_burst=float(config["SERVER_CPU_BURST_SECONDS"]),
        idle_per_client=int(config["IDLE_SESSIONS_PER_CLIENT"]),
        max_action_bytes=int(config["SESSION_ACTION_BYTES"]) or None,
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
        creations=shared_limiter(config, "new-sessions", new_per_minute / 60.0, new_per_minute),
        catalog=catalog,
        text_limit=int(config["SHARE_MAX_TEXT_BYTES"]),
        run_scheduler=bool(config["SESSION_SCHEDULER"]),
        languages={},
        outbox=outbox,
        seeker=SeekLoop(manager, lambda event, payload, to: outbox.emit(event, payload, to)),
    )
    message_limit = int(config["SOCKETIO_MAX_MESSAGE_BYTES"])
    transport.guard_messages(
        socketio.server.eio,
        limit=message_limit,
        too_large=lambda eio_sid, size: rt.refuse_connection(
            eio_sid,
            Refusal(
                "message_too_large",
                size=math.ceil(size / 1024),
                limit=message_limit // 1024,
            ),
        ),
        malformed=lambda eio_sid: rt.refuse_connection(
            eio_sid, Refusal("invalid_payload", problem=("malformed", {}))
        ),
    )
    outbox.local = bool(config.get("REDIS_URL"))

    rt.leaving.append(terminal.stop)  # a tab that leaves stops its running command
    rt.keeper = records.init_app(app, manager, rt.hang_up)
    rt.scheduler.tend = rt.tend
    rt.scheduler.manage_memory = bool(config["SESSION_GC_FREEZE"])
    rt.scheduler.after_round = outbox.sweep
    rt.scheduler.lagging = outbox.lagging.keys
    app.extensions["playground.realtime"] = rt
    register(
        socketio, rt, EVENTS, connect=connection.on_connect, disconnect=connection.on_disconnect
    )
    return rt
