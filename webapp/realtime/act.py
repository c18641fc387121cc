"""`act {action, ...}`: a user action on the running Pod now (delete, crash, set-probe,
node-down/up, oom, apply of objects without a Pod)."""

from __future__ import annotations

from typing import Any

from webapp.manifest import ScenarioError, parse_objects
from webapp.realtime.state import Realtime, Refusal, invalid, scenario_text
from webapp.sessions import Session
from webapp.sessions import payloads as check


def on_act(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
    action = check.check_action(payload, yaml_limit=rt.text_limit, timed=False)
    session = rt.joined_session(sid)
    with rt.working(session):
        if action["action"] == "apply":
            apply_objects(rt, session, scenario_text(rt, action))
        else:
            act(rt, session, dict(action))


def apply_objects(rt: Realtime, session: Session, text: str) -> None:
    """Objects without a Pod (a ConfigMap, a Service): the engine's `apply` action."""
    try:
        parse_objects(text)
    except ScenarioError as error:
        raise invalid(error) from None
    act(rt, session, {"action": "apply", "yaml": text})


def act(rt: Realtime, session: Session, action: dict[str, Any]) -> None:
    """Run `action` on the session's engine; an engine refusal becomes `action_refused`."""
    with session.lock:
        try:
            session.act(action)
            session.used = True
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
        if action["action"] == "focus":
            # the single-Pod views now follow another Pod: its whole history, in a snapshot
            rt.send_snapshot(session, to_room=True)
        else:
            rt.send_tick(session)
