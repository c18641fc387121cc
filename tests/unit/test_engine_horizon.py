"""The horizon (issue 12): a run never goes past its last virtual second, whichever way it is
driven (advance, step, replay, scripted actions), and a scenario that reaches past it is a
located ScenarioError up front."""

from __future__ import annotations

import pytest

from tests.unit.engine_support import pod_yaml, scenario, simulation_doc
from webapp.engine import ScenarioError, Simulation
from webapp.manifest import DEFAULT_HORIZON_SECONDS, parse_scenario

PROBED = "- name: app\n  image: nginx:1.27\n  readinessProbe: {httpGet: {path: /, port: 80}, periodSeconds: 1}\n"
TEXT = scenario(pod_yaml(PROBED), simulation_doc("images:\n  nginx:1.27: {pullSeconds: 1}\n"))


def test_the_default_horizon_is_a_sessions_end():
    sim = Simulation.from_yaml(TEXT)
    assert sim.horizon == DEFAULT_HORIZON_SECONDS == 7200.0
    sim.advance(1e9)
    assert sim.now == 7200.0
    assert max(t["t"] for t in sim.transitions) <= 7200.0


def test_advance_and_step_stop_at_the_horizon():
    sim = Simulation.from_yaml(TEXT, horizon=30)
    sim.advance(25)
    sim.advance(25)
    assert sim.now == 30.0
    assert max(t["t"] for t in sim.transitions) <= 30.0
    assert sim.step() is False
    assert sim.next_event_time() is None
    count = len(sim.transitions)
    sim.advance(1000)
    assert len(sim.transitions) == count


def test_replay_never_runs_past_the_horizon_nor_applies_later_actions():
    sim = Simulation.from_yaml(TEXT, horizon=30)
    sim.advance(20)
    sim.act({"action": "set-probe", "container": "app", "probe": "readiness", "healthy": False})
    late = {"at": 40.0, "action": "delete"}
    replayed = Simulation.replay(sim.scenario, [*sim.actions, late], until=1e12, horizon=30)
    assert replayed.now == 30.0
    assert replayed.actions == sim.actions
    sim.advance(100)
    assert replayed.trace() == sim.trace()


def test_a_script_past_the_horizon_is_a_located_error_up_front():
    text = scenario(pod_yaml(PROBED), simulation_doc("script:\n- {at: 150, action: delete}\n"))
    Simulation.from_yaml(text)  # within the default horizon
    with pytest.raises(ScenarioError) as caught:
        Simulation.from_yaml(text, horizon=100)
    [error] = caught.value.errors
    assert (error["path"], error["code"], error["doc"]) == ("script[0].at", "beyond_horizon", 1)
    assert error["line"] == 18  # lines count from the start of the text


def test_a_parsed_scenario_is_checked_against_the_simulations_horizon():
    text = scenario(pod_yaml(PROBED), simulation_doc("lesson:\n- {at: 500, text: later}\n"))
    parsed = parse_scenario(text)
    with pytest.raises(ScenarioError) as caught:
        Simulation.from_scenario(parsed, horizon=400)
    [error] = caught.value.errors
    assert (error["path"], error["code"]) == ("lesson[0].at", "beyond_horizon")


@pytest.mark.parametrize("horizon", [float("nan"), float("inf"), -1])
def test_the_horizon_itself_is_a_finite_number(horizon):
    with pytest.raises(ValueError):
        Simulation.from_scenario(parse_scenario(TEXT), horizon=horizon)
