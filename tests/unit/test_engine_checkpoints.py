"""Checkpoints (engine/checkpoint.py): a restored run goes on exactly as the original, a
replay that resumes from a checkpoint equals the full replay, and a session's checkpoints
stay bounded in number, bytes and the logs they keep alive."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest

from tests.unit.engine_support import pod_yaml, scenario, simulation_doc
from webapp.engine import Simulation
from webapp.engine.checkpoint import CheckpointStore
from webapp.manifest import parse_scenario
from webapp.sessions.session import Session

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))
PROBED = """\
- name: app
  image: nginx:1.27
  readinessProbe: {httpGet: {path: /, port: 80}, periodSeconds: 1}
  livenessProbe: {httpGet: {path: /, port: 80}, periodSeconds: 3}
  lifecycle: {preStop: {exec: {command: [sleep, "20"]}}}
- name: side
  image: nginx:1.27
  readinessProbe: {exec: {command: [cat, /tmp/ok]}, periodSeconds: 2}
"""
TEXT = scenario(
    pod_yaml(PROBED, spec_extra="terminationGracePeriodSeconds: 60"),
    simulation_doc(
        "images:\n  nginx:1.27: {pullSeconds: 1}\n"
        "containers:\n  app: {hooks: {preStop: {seconds: 20}}}\n"
        "  side: {exitAfterSeconds: 45, exitCode: 1}\n"
    ),
)
ACTIONS = [
    {"at": 12.0, "action": "set-probe", "container": "app", "probe": "readiness", "healthy": False},
    {"at": 70.5, "action": "set-probe", "container": "app", "probe": "readiness", "healthy": True},
    {"at": 140.0, "action": "crash", "container": "app", "exitCode": 3},
    {"at": 140.0, "action": "node-down"},
    {"at": 200.0, "action": "node-up"},
    {"at": 330.0, "action": "delete"},
]


def observed(sim: Simulation) -> str:
    return json.dumps(
        {"trace": sim.trace(), "versions": sim.pod_versions, "now": sim.now,
         "nodes": sim.nodes(), "actions": sim.actions, "rv": sim._resource_version},
        sort_keys=True, default=str,
    )  # fmt: skip


def live(text: str, actions: list[dict], until: float, store: CheckpointStore | None = None):
    sim = Simulation.from_yaml(text)
    sim.checkpoints = store
    for action in actions:
        if action["at"] > until:
            break
        sim.advance(action["at"] - sim.now)
        sim.act({k: v for k, v in action.items() if k != "at"})
    sim.advance(until - sim.now)
    return sim


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_a_restored_run_goes_on_exactly_as_the_original(path):
    text = path.read_text(encoding="utf-8")
    sim = Simulation.from_yaml(text)
    for stop in (0.0, 1.0, 4.5, 30.0, 95.0, 250.0):
        sim.advance(stop - sim.now)
        checkpoint = sim.checkpoint()
        if checkpoint is None:
            continue
        first, second = Simulation.restore(checkpoint), Simulation.restore(checkpoint)
        assert observed(first) == observed(sim)
        first.advance(400 - first.now)
        second.advance(123)  # one restore does not disturb another
        second.advance(400 - second.now)
        twin = Simulation.from_yaml(text)
        twin.advance(400)
        assert observed(first) == observed(second) == observed(twin)


def test_no_checkpoint_while_a_kubelet_step_is_under_way():
    sim = live(TEXT, ACTIONS, 335)  # the preStop hook (20 s) runs from 330
    assert sim.clock.processes > 0
    assert sim.checkpoint() is None
    sim.advance(30)
    assert sim.clock.processes == 0 and sim.checkpoint() is not None


@pytest.mark.parametrize("coasting", [True, False])
def test_resuming_from_checkpoints_equals_the_full_replay_for_many_times_and_histories(
    coasting, monkeypatch
):
    monkeypatch.setattr(Simulation, "coasting", coasting)
    store = CheckpointStore(interval=20, min_work=20, max_work=100)
    live(TEXT, ACTIONS, 600, store)
    assert len(store.items) >= (4 if coasting else 15)
    rng = random.Random(7)
    times = [rng.uniform(0, 600) for _ in range(25)] + [0, 12.0, 140.0, 330.0, 331.0, 600]
    scenario_ = parse_scenario(TEXT)
    for t in times:
        past = [a for a in ACTIONS if a["at"] <= t]
        fast = Simulation.replay(scenario_, past, t, checkpoints=store)
        slow = Simulation.replay(scenario_, past, t)
        assert observed(fast) == observed(slow), t
        start = store.best(scenario_, past, round(t * 1000), 0, fast.horizon_ms)
        if t >= 30:
            assert start is not None
        if start is not None:  # it redid at most about max_work events one by one
            assert fast.clock.steps - Simulation.restore(start).clock.steps <= 2 * store.max_work
    # Another history: an action the checkpoints after it have not seen.
    other = [*ACTIONS[:2], {"at": 100.0, "action": "delete", "gracePeriodSeconds": 5}]
    for t in (99.0, 100.0, 150.0, 500.0):
        past = [a for a in other if a["at"] <= t]
        fast = Simulation.replay(scenario_, past, t, checkpoints=store)
        assert observed(fast) == observed(Simulation.replay(scenario_, past, t)), t


def test_the_store_stays_within_its_budget_by_thinning_out():
    store = CheckpointStore(interval=5, budget=60_000, min_work=10, max_work=40)
    live(TEXT, ACTIONS, 600, store)
    assert store.size <= 60_000
    assert store.interval_ms > 5000 and store.max_work > 40
    steps = [Simulation.restore(item).clock.steps for item in store.items]
    assert max(b - a for a, b in itertools.pairwise(steps)) <= 2 * store.max_work


def test_a_sessions_seeks_keep_at_most_two_logs_alive():
    session = Session(Simulation.from_yaml(TEXT), end=3600)
    rng = random.Random(3)
    for i in range(40):
        session.seek(round(rng.uniform(0, 900), 1))
        if i % 7 == 3 and session.sim.pod() is not None:
            session.act({"action": "set-probe", "container": "app", "probe": "readiness",
                         "healthy": bool(i % 2)})  # fmt: skip
    logs = {id(item.transitions) for item in session.checkpoints.items}
    assert len(logs | {id(session.sim.transitions)}) <= 2
    # and the session is where a full replay of its actions would be
    replayed = Simulation.replay(session.scenario, session.sim.actions, session.sim.now)
    assert observed(replayed) == observed(session.sim)


def test_a_seek_in_the_worst_scenario_replays_at_most_about_one_interval():
    containers = "".join(
        f"- name: c{i}\n  image: busybox:1.36\n"
        + "".join(
            f"  {p}: {{exec: {{command: [cat, /tmp/ok]}}, periodSeconds: 1}}\n"
            for p in ("startupProbe", "livenessProbe", "readinessProbe")
        )
        for i in range(20)
    )
    session = Session(Simulation.from_yaml(pod_yaml(containers)), end=7200)
    session.seek(7200)
    store = session.checkpoints
    assert store.size <= 1_500_000
    for t in (10.0, 3599.5, 7100.0, 65.0):
        start = store.best(session.scenario, [], round(t * 1000), 0, session.sim.horizon_ms)
        base = 0 if start is None else Simulation.restore(start).clock.steps
        session.seek(t)
        assert session.sim.now == t
        assert session.sim.clock.steps - base <= store.max_work  # events redone one by one


def test_a_forward_seek_resumes_from_a_checkpoint_ahead_when_there_is_one():
    session = Session(Simulation.from_yaml(TEXT), end=3600)
    session.checkpoints.max_work = session.checkpoints.min_work = 20
    session.seek(600)
    session.seek(5)
    before = session.sim
    session.seek(590)
    assert session.sim is not before  # restored from a checkpoint, not run on from 5 s
    replayed = Simulation.replay(session.scenario, session.sim.actions, 590)
    assert observed(session.sim) == observed(replayed)


def test_consecutive_pod_versions_share_what_did_not_change():
    sim = live(TEXT, ACTIONS, 200)
    shared = 0
    for (_, _, old), (_, _, new) in itertools.pairwise(sim.pod_versions):
        for a, b in zip(old["status"].get("containerStatuses") or [],
                        new["status"].get("containerStatuses") or [], strict=False):  # fmt: skip
            shared += a is b
    assert shared > 5
