"""`connect`, `disconnect` and `lang`: a tab's connection and the language of its errors."""

from __future__ import annotations

from typing import Any

from webapp.realtime.state import Realtime, language
from webapp.sessions import payloads as check


def on_connect(rt: Realtime, sid: str) -> None:
    rt.outbox.emit("hello", {"server": "pod-lifecycle-playground"}, to=sid)


def on_disconnect(rt: Realtime, sid: str) -> None:
    if rt.socketio.server.manager.is_connected(sid, "/"):
        # A client sending an event named "disconnect" (42["disconnect",...]) while it stays
        # connected: Socket.IO dispatches it to this handler like any event. A real
        # disconnect has already marked the client as leaving.
        return
    rt.outbox.release(sid)
    for hook in rt.leaving:
        hook(sid)
    catch_up_before_leaving(rt, sid)
    rt.manager.detach(sid)
    rt.limiter.forget(sid)
    rt.languages.pop(sid, None)


def catch_up_before_leaving(rt: Realtime, sid: str) -> None:
    """A playing session is paced only when something is due, so its engine may be up to a
    resync behind the clock its tab showed; taking its lock brings it to the clock's time
    (PacingLock) while the tab is still counted. A session whose last tab leaves then holds
    still at the moment the page showed, and a reload resumes there (ci18: a reload at
    4.12 s resumed at 3.10 s). Never waits: a handler holding the lock has caught it up."""
    session = rt.manager.session_of(sid)
    if session is not None and session.lock.acquire(blocking=False):
        session.lock.release()


def on_lang(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
    """`lang {lang}`: the language of this tab's `error` messages."""
    check.only_fields(payload, ["lang"])
    rt.languages[sid] = language(payload)
