"""Same scenario + same actions → byte-identical traces; replay equals the live run."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from webapp.engine import ActionError, Simulation
from webapp.engine.core.transitions import expand_runs
from webapp.manifest import parse_scenario

SCENARIOS = sorted(Path(__file__).resolve().parents[2].joinpath("scenarios").glob("*.yaml"))
ACTIONS = [
    (15.0, {"action": "set-probe", "container": None, "probe": "liveness", "healthy": False}),
    (40.0, {"action": "crash", "container": None, "exitCode": 2}),
    (70.0, {"action": "node-down"}),
    (140.0, {"action": "node-up"}),
    (200.0, {"action": "delete", "gracePeriodSeconds": 5}),
]


def run_live(text: str, seed: int = 0) -> Simulation:
    sim = Simulation.from_yaml(text, seed=seed)
    for at, action in ACTIONS:
        sim.advance(at - sim.now)
        action = {k: v for k, v in action.items() if v is not None}
        with contextlib.suppress(ActionError):
            sim.act(action)
    sim.advance(300 - sim.now)
    return sim


def dump(sim: Simulation) -> str:
    return json.dumps(sim.trace(), sort_keys=True)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_same_scenario_and_actions_give_byte_identical_traces(path):
    text = path.read_text(encoding="utf-8")
    assert dump(run_live(text)) == dump(run_live(text))


def test_a_different_seed_changes_only_random_identities():
    text = SCENARIOS[0].read_text(encoding="utf-8")
    a, b = run_live(text, seed=1), run_live(text, seed=2)
    assert a.pod_versions and b.pod_versions
    assert a.uid != b.uid


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_replay_at_t_equals_the_live_sim_at_t(path):
    text = path.read_text(encoding="utf-8")
    live = run_live(text)
    scenario = parse_scenario(text)
    for until in (30.0, 150.0, 300.0):
        replayed = Simulation.replay(scenario, live.actions, until)
        # A probe run the live sim extended after `until` is shorter in the replay: compare
        # every run, expanded (the compaction is only how the log stores them).
        prefix = [t for t in expand_runs(live.transitions) if t["t"] <= until]
        assert expand_runs(replayed.transitions)[: len(prefix)] == prefix
        versions = [v for v in live.pod_versions if v[0] <= until]
        assert replayed.pod_versions == versions


def test_replay_of_the_full_log_is_identical():
    text = SCENARIOS[0].read_text(encoding="utf-8")
    live = run_live(text)
    replayed = Simulation.replay(parse_scenario(text), live.actions, live.now)
    assert dump(replayed) == dump(live)
    assert replayed.actions == live.actions


def test_invalid_actions_raise_and_are_not_logged():
    sim = Simulation.from_yaml(SCENARIOS[0].read_text(encoding="utf-8"))
    with pytest.raises(ActionError) as error:
        sim.act({"action": "explode"})
    assert error.value.code == "unknown_action"
    with pytest.raises(ActionError) as error:
        sim.act({"action": "crash", "container": "nope"})
    assert error.value.code == "unknown_container"
    assert sim.actions == []


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_an_action_at_second_0_of_a_new_run_equals_its_replay(path):
    """A run never advanced has not run its second 0 yet; an action taken then (delete
    before pressing play) used to run before that work live and after it in every replay
    (a seek back, a share link, a rebuild from a record)."""
    text = path.read_text(encoding="utf-8")
    live = Simulation.from_yaml(text)
    live.act({"action": "delete", "gracePeriodSeconds": 5})
    live.advance(60)
    replayed = Simulation.replay(parse_scenario(text), live.actions, live.now)
    assert dump(replayed) == dump(live)


def test_a_refused_action_at_second_0_of_a_new_run_changes_nothing():
    text = SCENARIOS[0].read_text(encoding="utf-8")
    sim, twin = Simulation.from_yaml(text), Simulation.from_yaml(text)
    with pytest.raises(ActionError):
        sim.act({"action": "crash", "container": "nope"})
    assert dump(sim) == dump(twin)
    assert sim.next_event_time() == twin.next_event_time() == 0
