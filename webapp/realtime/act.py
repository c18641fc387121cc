"""`act {action, ...}`: a user action on the running session now (delete, crash, set-probe,
node-down/up, oom, scale, ..., and `apply`: kubectl apply of objects; the `apply` event
answers with the lines kubectl prints, webapp/realtime/apply.py)."""

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


def apply_objects(
    rt: Realtime, session: Session, text: str, *, whole_scenario: bool = False
) -> list[str]:
    """``kubectl apply`` of the objects to the running session: the engine's `apply`
    action (engine/kubectl_apply.py). Returns the lines kubectl prints. A located error in
    the text is `invalid_scenario`; the API server's refusal `action_refused` with
    kubectl's own text. ``whole_scenario``: the editor's text, whose Simulation document
    is left out (it is no API object)."""
    try:
        parse_objects(text, skip_simulation=whole_scenario)
    except ScenarioError as error:
        raise invalid(error) from None
    act(rt, session, {"action": "apply", "yaml": text})
    return list(getattr(session.sim, "apply_result", None) or [])


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
            # kubectl's own words for an API server's refusal (engine/kubectl_apply.py)
            reason = params.get("kubectl") or str(error)
            raise Refusal(
                "action_refused",
                reason=reason,
                action_code=code,
                action_params={
                    k: v for k, v in params.items() if k not in ("errors", "status", "kubectl")
                },
            ) from None
        if action["action"] == "focus":
            # the single-Pod views now follow another Pod: its whole history, in a snapshot
            rt.send_snapshot(session, to_room=True)
        else:
            rt.send_tick(session)
