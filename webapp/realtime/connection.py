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
    rt.manager.detach(sid)
    rt.limiter.forget(sid)
    rt.languages.pop(sid, None)


def on_lang(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
    """`lang {lang}`: the language of this tab's `error` messages."""
    check.only_fields(payload, ["lang"])
    rt.languages[sid] = language(payload)
