"""The state cache (webapp/sessions/views.py) sends the Events as they are after every
change, including a repeat that only bumps an Event's count with no transition (the cache
used to key on the transition revision alone and kept the old count)."""

from __future__ import annotations

import json

import pytest

from tests.worst_case import crash_loop_pod
from webapp.engine import Simulation
from webapp.paths import resource_dir
from webapp.sessions import Session


@pytest.mark.parametrize("name", ["crash-loop-backoff", "liveness-restart", "worst-crash-loop"])
def test_every_step_sends_the_events_as_they_are(name: str) -> None:
    if name == "worst-crash-loop":
        text = crash_loop_pod(4)
    else:
        text = (resource_dir("scenarios") / f"{name}.yaml").read_text()
    session = Session(Simulation.from_yaml(text), end=7200.0)
    steps = 0
    while session.sim.now < 400 and steps < 3000:
        session.step()
        steps += 1
        tick = session.tick()
        state = session.cache.state()
        assert json.dumps(state["events"]) == json.dumps(session.sim.events()), (
            f"stale events at {session.sim.now} s (step {steps})"
        )
        assert tick is None or session.cache.events is state["events"]
