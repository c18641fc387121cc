"""`apply {yaml, restart?}`: the editor's text.

Without ``restart`` it is ``kubectl apply`` of the text's objects to the running session
(engine/kubectl_apply.py, through the engine's ``apply`` action, so it is in the session's
timeline and replays): the clock and the history are kept, and the tab is answered with
``applied`` ``{mode: "apply", lines}``, the lines kubectl prints (``deployment.apps/web
configured``). The playground's Simulation document is no API object: it is left as it is
(``simulationKept``). A refusal (a located error in the text, or the API server's, such as
a Pod field that may not change) is an ``error`` and changes nothing.

With ``restart: true`` the session starts over from this text at second 0 (``applied``
``{mode: "restart"}`` after the new snapshot).
"""

from __future__ import annotations

from typing import Any

from webapp.manifest import ScenarioError, has_simulation, parse_scenario
from webapp.realtime.act import apply_objects
from webapp.realtime.state import Realtime, engine_class, invalid, scenario_text
from webapp.sessions import PayloadProblem
from webapp.sessions import payloads as check


def on_apply(rt: Realtime, sid: str, payload: dict[str, Any]) -> None:
    check.only_fields(payload, ["yaml", "restart"])
    restart = payload.get("restart", False)
    if not isinstance(restart, bool):
        raise PayloadProblem("not_boolean", field="restart")
    session = rt.joined_session(sid)
    text = scenario_text(rt, payload)
    with rt.working(session):
        if not restart:
            lines = apply_objects(rt, session, text, whole_scenario=True)
            answer = {"mode": "apply", "lines": lines}
            if has_simulation(text):
                answer["simulationKept"] = True
            rt.outbox.emit("applied", answer, to=sid)
            return
        try:
            scenario = parse_scenario(text)
        except ScenarioError as error:
            raise invalid(error) from None
        sim = engine_class().from_scenario(scenario, seed=session.seed)
        with session.lock:
            session.restart(sim)
            session.used = True
            rt.send_snapshot(session, to_room=True)
        rt.outbox.emit("applied", {"mode": "restart", "lines": []}, to=sid)
