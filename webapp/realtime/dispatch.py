"""Registering handlers with Socket.IO behind the checks every event shares.

A handler is `fn(rt, sid, payload)`. `guarded` gives it exactly one JSON object as
`payload`, counts the event against the tab's rate limit, and turns every refusal into an
`error` event in the tab's language; an unexpected exception is logged and answered with
`internal_error`, never let out of the handler.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from flask import current_app, has_app_context, request
from flask_socketio import SocketIO

from webapp.clients import current_client
from webapp.realtime.state import Realtime, Refusal, refusal_for
from webapp.sessions import PayloadProblem
from webapp.sessions import payloads as check
from webapp.storage import report_fault, write_fault

log = logging.getLogger("webapp.realtime")

Handler = Callable[[Realtime, str, dict[str, Any]], None]


def current_sid() -> str:
    sid: str = request.sid  # type: ignore[attr-defined]
    return sid


def guarded(rt: Realtime, event: str, fn: Handler, *, limited: bool) -> Callable[..., None]:
    rt.handlers[event] = (fn, limited)

    def on_event(*args: Any) -> None:
        sid = current_sid()

        def work() -> None:
            if len(args) != 1:
                raise PayloadProblem("arguments")
            payload = check.require_object(args[0])
            if limited and not rt.limiter.allow(sid):
                raise Refusal("rate_limited", limit=int(rt.limiter.rate))
            # A tab of a class that lives on another worker: its event goes there.
            client = current_client()
            if rt.span is not None and rt.span.route(event, sid, payload, client):
                return
            for gate in rt.gates:
                gate(event, sid, payload)
            # One handler of a client address at a time (issue 26, F1): its tabs' work
            # takes turns instead of crowding the GIL.
            with rt.turns.held(client):
                fn(rt, sid, payload)

        answered(rt, event, sid, work)

    on_event.__name__ = f"on_{event}"
    return on_event


def answered(rt: Realtime, event: str, sid: str, work: Callable[[], None]) -> None:
    """Run `work`, turning every refusal into an `error` event in the tab's language; an
    unexpected exception is logged and answered with `internal_error`."""
    try:
        work()
    except PayloadProblem as problem:
        rt.refuse(sid, refusal_for(problem), event)
    except Refusal as refusal:
        rt.refuse(sid, refusal, event)
        for hook in rt.refusals:
            hook(event, sid, refusal)
    except Exception as error:
        cause = write_fault(error)
        if cause is not None:  # a full or read-only disk, Redis down: said, not a bug
            log.warning("%s: the store cannot be written: %s", event, cause)
            if has_app_context():
                report_fault(current_app, cause)
            rt.refuse(sid, Refusal("storage_unavailable"), event)
            return
        log.exception("%s handler failed", event)
        rt.refuse(sid, Refusal("internal_error"), event)


def forwarded(rt: Realtime, event: str, sid: str, payload: Any) -> None:
    """An event of a tab on another worker, forwarded to this one, the home of its class
    (webapp/classes/span.py): the same checks as for a tab of this worker."""
    found = rt.handlers.get(event)
    if found is None:
        return  # as Socket.IO does with an event nobody handles
    fn, limited = found

    def work() -> None:
        checked = check.require_object(payload)
        if limited and not rt.limiter.allow(sid):
            raise Refusal("rate_limited", limit=int(rt.limiter.rate))
        for gate in rt.gates:
            gate(event, sid, checked)
        fn(rt, sid, checked)

    answered(rt, event, sid, work)


def left(rt: Realtime, sid: str) -> None:
    """A tab on another worker disconnected (or its worker is gone)."""
    for hook in rt.leaving:
        hook(sid)
    rt.manager.detach(sid)
    rt.limiter.forget(sid)
    rt.languages.pop(sid, None)
    rt.outbox.table_tabs.discard(sid)


def register(
    socketio: SocketIO,
    rt: Realtime,
    events: Mapping[str, tuple[Handler, bool]],
    *,
    connect: Callable[[Realtime, str], None],
    disconnect: Callable[[Realtime, str], None],
) -> None:
    socketio.on("connect")(lambda *_: connect(rt, current_sid()))
    socketio.on("disconnect")(lambda *_: disconnect(rt, current_sid()))
    for event, (fn, limited) in events.items():
        socketio.on(event)(guarded(rt, event, fn, limited=limited))
