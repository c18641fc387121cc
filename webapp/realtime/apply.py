"""`apply {yaml}`: the editor's text. A scenario with a Pod restarts the session's history
from second 0; objects without a Pod are applied to the running cluster (see `act`)."""

from __future__ import annotations

from typing import Any

from webapp.manifest import ScenarioError, parse_scenario
from webapp.realtime.act import apply_objects
from webapp.realtime.state import Realtime, engine_class, invalid, scenario_text
from webapp.sessions import payloads as check


def on_apply(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
    check.only_fields(payload, ["yaml"])
    session = rt.joined_session(sid)
    text = scenario_text(rt, payload)
    with rt.working(session):
        try:
            scenario = parse_scenario(text)
        except ScenarioError as error:
            if not all(e["code"] == "no_pod" for e in error.errors):
                raise invalid(error) from None
            apply_objects(rt, session, text)
            return
        sim = engine_class().from_scenario(scenario, seed=session.seed)
        with session.lock:
            session.restart(sim)
            session.used = True
            rt.send_snapshot(session, to_room=True)
