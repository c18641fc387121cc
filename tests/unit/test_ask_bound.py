"""The look ahead's bounds (webapp/classes/ahead.py) fit every question a teacher may ask:
600 virtual seconds (asking.MAX_SECONDS) of the costliest valid run, a crash-looping Pod of
20 containers with 3 exec probes each every second, once its back-off has reached the cap."""

from __future__ import annotations

from tests.worst_case import CRASH_LOOP_POD
from webapp.classes import ahead, asking
from webapp.engine import Simulation
from webapp.manifest.scenario import parse_scenario
from webapp.sessions.budget import slice_stop

STEADY = 1200.0  # past 10+20+40+80+160+300 s of back-off: every later 600 s is alike


def test_the_costliest_allowed_question_fits_the_event_bound() -> None:
    sim = Simulation(parse_scenario(CRASH_LOOP_POD), seed=0)
    sim.advance(STEADY)
    ahead_of = Simulation.restore(sim.checkpoint())
    stop = slice_stop(None, cpu_seconds=float("inf"), events=ahead.ASK_EVENTS)
    stop.watch(ahead_of)
    # advance_to says False when the stop ended it short of the moment.
    assert ahead_of.advance_to(STEADY + asking.MAX_SECONDS, stop)
    used = stop._clock.processed - stop._first
    # The event bound leaves room: a change that makes a second dearer in events shows here.
    assert 30_000 < used < 0.8 * ahead.ASK_EVENTS
