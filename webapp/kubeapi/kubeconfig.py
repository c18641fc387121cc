"""`POST /api/kubeconfig {scenario? | yaml? | share? | session?, speed?, paused?}` ->
`201 {kubeconfig, server, token, session, page}` (shared/ARCHITECTURE.md "Kubernetes API").

With `session` (an id the caller holds, as the page does) it answers for that session;
otherwise it starts one, built as a tab's `join` builds it, that plays at `speed` (default
1) from this moment unless `paused`. Refusals are the /api/* JSON `{code, message}` in the
language of Accept-Language.
"""

from __future__ import annotations

from typing import Any

from flask import current_app, request

from webapp import i18n
from webapp.clients import current_client
from webapp.kubeapi.objects import bring_to_now
from webapp.kubeapi.sessions import kubeconfig_text, state_of
from webapp.realtime import join
from webapp.realtime.state import Refusal, refusal_for
from webapp.sessions import MAX_SPEED, MIN_SPEED, PayloadProblem, valid_speed
from webapp.sessions import payloads as check

FIELDS = ("scenario", "yaml", "share", "session", "speed", "paused")


def post() -> Any:
    rt = current_app.extensions["playground.realtime"]
    lang = i18n.negotiate_language(request.headers.get("Accept-Language"))
    try:
        return _post(rt)
    except PayloadProblem as problem:
        return rt.error_payload(refusal_for(problem), lang), 400
    except Refusal as refusal:
        status = (
            429
            if refusal.code in ("new_sessions_rate_limited", "client_busy")
            else (
                404
                if refusal.code in ("unknown_session", "unknown_scenario", "share_not_found")
                else 503
                if refusal.code == "too_many_sessions"
                else 400
            )
        )
        headers = {"Retry-After": "60"} if status in (429, 503) else {}
        return rt.error_payload(refusal, lang), status, headers


def _post(rt: Any) -> tuple[dict[str, Any], int]:
    try:
        body = request.get_json(silent=True, force=True)
    except RecursionError:
        body = None
    if body is None and not request.get_data():
        body = {}
    if not isinstance(body, dict):
        raise PayloadProblem("not_object")
    check.only_fields(body, FIELDS)
    sources = [k for k in join.SOURCES if k in body]
    if len(sources) > 1:
        raise PayloadProblem("one_source")
    speed = check.number(body, "speed") if "speed" in body else 1.0
    if not valid_speed(speed):
        raise Refusal("bad_speed", min=MIN_SPEED, max=f"{MAX_SPEED:g}")
    paused = body.get("paused", False)
    if not isinstance(paused, bool):
        raise PayloadProblem("not_boolean", field="paused")
    if sources == ["session"]:
        session = rt.manager.get(check.text(body, "session"))
        if session is None:
            raise Refusal("unknown_session")
        if session.owner is not None:
            raise Refusal("class_session_private")
    else:
        client = current_client()
        join.busy(rt, client)
        if not rt.creations.allow(client):
            raise Refusal("new_sessions_rate_limited", limit=int(rt.creations.burst))
        session = join.new_session(rt, None, body, sources[0] if sources else None, client)
        if rt.keeper is not None:
            rt.keeper.claim(session)
        with session.lock:
            session.used = True
            session.clock.set_speed(speed)
            if not paused:
                session.clock.play()
            bring_to_now(session)  # it plays from this moment
    token = state_of(current_app).token_for(session)
    server = request.url_root.rstrip("/") + f"/kube/{token}"
    return {
        "kubeconfig": kubeconfig_text(server, token),
        "server": server,
        "token": token,
        "session": session.public_id,
        "page": f"/#session={session.public_id}",
    }, 201
