"""Bounded seeks in a cluster run (engine/cluster.py): checkpoints, coasting and slices.

Every case compares against the plain run: coasting (steady probe ticks of every Pod done at
once) must give exactly the run ticked one by one; a run resumed from any checkpoint, a run
advanced in slices, and a session's seeks (back from a checkpoint, forward in slices) must
give exactly the run reached in one go, byte for byte, for every scenario under
scenarios/workloads and random cluster setups."""

from __future__ import annotations

import contextlib
import json
import random
from pathlib import Path

import pytest

from webapp.engine import ActionError, Simulation
from webapp.engine.checkpoint import CheckpointStore, ClusterCheckpoint
from webapp.engine.cluster import ClusterSimulation, CountedRandom
from webapp.manifest import parse_scenario
from webapp.sessions import slices
from webapp.sessions.session import Session

ROOT = Path(__file__).resolve().parents[2]
WORKLOADS = sorted((ROOT / "scenarios" / "workloads").glob("*.yaml"))


def observed(sim: ClusterSimulation) -> str:
    """Everything a run shows: every object, Event, Pod (transitions, watch versions, logs
    and processes), the watch across Pods, the Deployments' versions, traffic, the clock."""
    pods = {}
    for index, run in enumerate(sim.created):
        pods[f"{index}:{run.pod_name}"] = {
            "versions": list(run.pod_versions),
            "logs": run.logs_by_container_id(),
            "pids": [
                [i.container_id, i.process.next_pid, i.process.running]
                for record in (run.kubelet.records if run.kubelet else [])
                for i in record.instances
                if i.process is not None
            ],
        }
    return json.dumps(
        {"trace": sim.trace(), "watch": sim.watch_versions, "pods": pods, "now": sim.now,
         "rollouts": sim.deployment_versions, "nodes": sim.nodes(), "actions": sim.actions,
         "focus": sim.focus_name, "processed": sim.clock.processed},
        sort_keys=True, default=str,
    )  # fmt: skip


def last_script(scenario) -> float:
    return max([a.get("at", 0) for a in scenario.simulation.get("script") or []] + [0])


# User actions tried on every scenario (those that do not apply are refused and skipped):
# a scale, a delete of the focus Pod, a crash and a probe change on it, a rollout.
TRIED = [
    (35.0, {"action": "scale", "name": "web", "replicas": 4}),
    (55.0, {"action": "delete"}),
    (75.0, {"action": "crash", "container": None, "exitCode": 3}),
    (95.0, {"action": "set-probe", "container": None, "probe": "readiness", "healthy": False}),
    (130.0, {"action": "rollout-restart", "name": "web"}),
    (170.0, {"action": "scale", "name": "web", "replicas": 2}),
]


def play(scenario, script, until: float, *, coasting: bool = True, store=None,
         stop_every: int | None = None) -> ClusterSimulation:  # fmt: skip
    """The run to `until` with `script` acted at its times (refused actions skipped); with
    `stop_every`, advanced in slices that stop every that many asks."""
    sim = Simulation.from_scenario(scenario)
    assert isinstance(sim, ClusterSimulation)
    sim.coasting = coasting
    sim.checkpoints = store
    asked = [0]

    def stop() -> bool:
        asked[0] += 1
        return asked[0] % stop_every == 0

    def reach(t: float) -> None:
        while not sim.advance_to(t, stop if stop_every else None):
            pass

    for at, action in sorted(script, key=lambda item: item[0]):
        if at > until:
            break
        reach(at)
        with contextlib.suppress(ActionError):
            sim.act(dict(action))
    reach(until)
    return sim


def small_store() -> CheckpointStore:
    return CheckpointStore(interval=20.0, budget=50_000_000, min_work=4, max_work=80)


# -- random cluster setups ------------------------------------------------------------------


def random_setup(seed: int) -> tuple[str, list[tuple[float, dict]]]:
    """A Deployment (or a ReplicaSet) of 1 to 5 Pods whose containers run a small program
    (a file that comes and goes, or an exit) with exec probes that can coast (`cat`, `true`,
    `false`, `test`) at random periods and thresholds, and random user actions."""
    rng = random.Random(seed)
    kind = rng.choice(["Deployment", "Deployment", "ReplicaSet"])
    replicas = rng.randint(1, 5)
    containers = []
    for c in range(rng.randint(1, 2)):
        up, down = rng.randint(5, 60), rng.randint(5, 60)
        program = rng.choice([
            f"touch /tmp/ok; sleep {up}; rm /tmp/ok; sleep {down}; touch /tmp/ok; sleep 1d",
            f"touch /tmp/ok; sleep {up}; exit {rng.choice([0, 1, 2])}",
            "touch /tmp/ok; sleep 1d",
        ])  # fmt: skip
        lines = [f"      - name: c{c}", "        image: busybox:1.36",
                 f'        command: ["sh", "-c", "{program}"]']  # fmt: skip
        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            if rng.random() < 0.3:
                continue
            command = rng.choice(
                ['["cat", "/tmp/ok"]', '["true"]', '["false"]', '["test", "-f", "/tmp/ok"]']
            )
            if probe == "livenessProbe" and command == '["false"]':
                command = '["true"]'
            lines += [f"        {probe}:", f"          exec: {{command: {command}}}",
                      f"          periodSeconds: {rng.randint(1, 3)}",
                      f"          failureThreshold: {rng.randint(1, 4)}",
                      f"          initialDelaySeconds: {rng.randint(0, 5)}"]  # fmt: skip
        containers += lines
    text = "\n".join(
        [
            "apiVersion: apps/v1",
            f"kind: {kind}",
            "metadata: {name: web}",
            "spec:",
            f"  replicas: {replicas}",
            "  selector: {matchLabels: {app: web}}",
            "  template:",
            "    metadata: {labels: {app: web}}",
            "    spec:",
            "      containers:",
            *containers,
        ]
    )
    script = []
    for _ in range(rng.randint(0, 6)):
        at = float(rng.randint(1, 280))
        action = rng.choice([
            {"action": "scale", "kind": kind, "name": "web", "replicas": rng.randint(0, 6)},
            {"action": "delete"},
            {"action": "crash", "container": None, "exitCode": rng.randint(0, 3)},
            {"action": "set-probe", "container": None,
             "probe": rng.choice(["liveness", "readiness"]), "healthy": rng.random() < 0.5},
            {"action": "rollout-restart", "name": "web"},
        ])  # fmt: skip
        script.append((at, action))
    return text + "\n", script


RANDOM_SEEDS = list(range(14))


# -- coasting -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", WORKLOADS, ids=lambda p: p.stem)
def test_every_workload_scenario_coasts_exactly(path):
    scenario = parse_scenario(path.read_text(encoding="utf-8"))
    until = last_script(scenario) + 240
    coasted = play(scenario, TRIED, until, coasting=True)
    ticked = play(scenario, TRIED, until, coasting=False)
    assert observed(coasted) == observed(ticked)


def test_random_cluster_setups_coast_exactly():
    saved = 0
    for seed in RANDOM_SEEDS:
        text, script = random_setup(seed)
        scenario = parse_scenario(text)
        coasted = play(scenario, script, 400.0, coasting=True)
        ticked = play(scenario, script, 400.0, coasting=False)
        assert observed(coasted) == observed(ticked), seed
        saved += coasted.clock.processed - coasted.clock.steps
    assert saved > 10_000  # the setups do coast (ticks done at once, not one by one)


@pytest.mark.parametrize("crashing", [True, False], ids=["crash-looping", "steady"])
def test_coasting_orders_ticks_of_many_pods_as_one_by_one(crashing):
    """Twenty Pods whose probes of different periods (1, 2, 3 s) tick at the same instants:
    the timers scheduled after a coast run in the order the ticks would have scheduled
    them, crash-looping (little to coast) or steady (most ticks coasted)."""
    text = WORST_CLUSTER.replace("replicas: 100", "replicas: 20")
    if not crashing:
        text = text[: text.index("---")]
    script = [(120.0, {"action": "scale", "name": "web", "replicas": 7}),
              (150.0, {"action": "set-probe", "container": None, "probe": "readiness",
                       "healthy": False})]  # fmt: skip
    scenario = parse_scenario(text)
    coasted = play(scenario, script, 300.0, coasting=True)
    ticked = play(scenario, script, 300.0, coasting=False)
    assert observed(coasted) == observed(ticked)
    assert coasted.clock.steps < coasted.clock.processed * (0.9 if crashing else 0.2)


# -- checkpoints ----------------------------------------------------------------------------


def resumed(scenario, script, until: float, checkpoint: ClusterCheckpoint) -> ClusterSimulation:
    """The run from `checkpoint` on, with the script's actions after it, to `until`."""
    sim = ClusterSimulation.restore(checkpoint)
    for action in [dict(a) for a in script]:
        if action["at"] > until:
            break
        sim.advance_to(action.pop("at"))
        sim.act(action)
    sim.advance_to(until)
    return sim


def check_checkpoints(scenario, script, until: float) -> int:
    straight = play(scenario, script, until)
    store = small_store()
    kept = play(scenario, script, until, store=store)
    assert observed(kept) == observed(straight)
    assert store.items and all(isinstance(item, ClusterCheckpoint) for item in store.items)
    picks = store.items if len(store.items) <= 6 else store.items[:: len(store.items) // 5]
    for item in picks:
        rest = kept.actions[len(item.actions) :]
        assert observed(resumed(scenario, rest, until, item)) == observed(straight), item.at
    # A seek back: the replay from the nearest checkpoint is the replay from second 0.
    back = round(until * 0.4, 3)
    past = [a for a in kept.actions if a["at"] <= back]
    fresh = ClusterSimulation.replay(scenario, past, back)
    assert observed(ClusterSimulation.replay(scenario, past, back, checkpoints=store)) == observed(
        fresh
    )
    return len(store.items)


@pytest.mark.parametrize("path", WORKLOADS, ids=lambda p: p.stem)
def test_every_workload_scenario_resumes_exactly_from_its_checkpoints(path):
    scenario = parse_scenario(path.read_text(encoding="utf-8"))
    check_checkpoints(scenario, TRIED, last_script(scenario) + 240)


@pytest.mark.parametrize("seed", RANDOM_SEEDS[:6])
def test_random_cluster_setups_resume_exactly_from_their_checkpoints(seed):
    text, script = random_setup(seed)
    check_checkpoints(parse_scenario(text), script, 300.0)


def test_a_checkpoint_restores_any_number_of_times_and_stays_as_it_was():
    scenario = parse_scenario((ROOT / "scenarios/workloads/rolling-update.yaml").read_text())
    store = small_store()
    play(scenario, [], 200.0, store=store)
    item = store.items[len(store.items) // 2]
    state = item.state
    first = resumed(scenario, [], 200.0, item)
    second = resumed(scenario, [], 200.0, item)
    assert observed(first) == observed(second)
    assert item.state is state
    # the restored runs are independent: acting on one leaves the other as it was
    first.act({"action": "scale", "name": "web", "replicas": 1})
    assert observed(second) == observed(resumed(scenario, [], 200.0, item))


def test_the_checkpoint_budget_holds_and_thins_as_for_one_pod():
    scenario = parse_scenario(WORST_CLUSTER.replace("replicas: 100", "replicas: 20"))
    store = CheckpointStore(interval=60.0, budget=200_000, min_work=20, max_work=100)
    sim = play(scenario, [], 1500.0, store=store)
    assert store.size <= store.budget
    assert store.interval_ms > 60_000  # thinned: every other one dropped, the spacing doubled
    assert len(store.items) >= 2
    assert observed(resumed(scenario, [], 1500.0, store.items[-1])) == observed(sim)


def test_a_pod_random_generator_pickles_small_and_goes_on_exactly():
    import pickle

    plain, counted = random.Random("0/pod/web-x"), CountedRandom("0/pod/web-x")
    for i in range(2000):
        draw = [lambda r: r.random(), lambda r: r.getrandbits(128), lambda r: r.randint(2, 254),
                lambda r: r.choice("bcdfg"), lambda r: r.getrandbits(0)][i % 5]  # fmt: skip
        assert draw(plain) == draw(counted)
        if i % 250 == 0:
            counted = pickle.loads(pickle.dumps(counted))
    assert len(pickle.dumps(counted)) < 200
    assert plain.random() == counted.random()


# -- slices and sessions --------------------------------------------------------------------


@pytest.mark.parametrize("path", WORKLOADS, ids=lambda p: p.stem)
def test_every_workload_scenario_in_slices_is_the_run_in_one_go(path):
    scenario = parse_scenario(path.read_text(encoding="utf-8"))
    until = last_script(scenario) + 240
    one_go = play(scenario, TRIED, until)
    assert observed(play(scenario, TRIED, until, stop_every=7, store=small_store())) == observed(
        one_go
    )


def session_state(session: Session) -> str:
    snapshot = session.snapshot(advance_seq=False)
    keep = {k: snapshot[k] for k in ("transitions", "cluster", "pod", "events", "actions")}
    return json.dumps([keep, observed(session.sim)], sort_keys=True, default=str)


@pytest.mark.parametrize("path", WORKLOADS, ids=lambda p: p.stem)
def test_a_session_seeks_back_from_a_checkpoint_and_forward_in_slices(path, monkeypatch):
    text = path.read_text(encoding="utf-8")
    scenario = parse_scenario(text)
    end = last_script(scenario) + 240
    session = Session(Simulation.from_scenario(scenario), end=7200)
    # closer checkpoints than a server's (some scenarios run only 50 events in all)
    session.checkpoints = session.sim.checkpoints = small_store()
    session.seek(60.0)
    with contextlib.suppress(ActionError):
        session.act({"action": "delete"})
    session.seek(end)
    actions = list(session.actions)
    assert session.checkpoints.items  # the run kept checkpoints on its way
    back = round(end / 2, 3)

    def reference(t: float) -> Session:
        past = [a for a in actions if a["at"] <= t]
        twin = Session(ClusterSimulation.replay(scenario, past, t), end=7200)
        twin.future = [a for a in actions if a["at"] > t]
        return twin

    expected = reference(back)
    built = []
    init = ClusterSimulation.__init__

    def counted(self, *args, **kwargs):
        built.append(1)
        init(self, *args, **kwargs)

    monkeypatch.setattr(ClusterSimulation, "__init__", counted)
    session.seek(back)  # back: from the nearest checkpoint, not from second 0
    assert built == [] and session.sim.now == back
    monkeypatch.undo()
    assert session_state(session) == session_state(expected)
    # forward again, in slices of a few events each, through the kept future
    slices.begin_seek(session, end)
    while not slices.run_slice(session, slices.slice_stop(session.sim, events=50)):
        pass
    assert session_state(session) == session_state(reference(end))
    # back in slices: restores a checkpoint at or before the target first
    slices.begin_seek(session, back)
    while not slices.run_slice(session, slices.slice_stop(session.sim, events=50)):
        pass
    assert session_state(session) == session_state(reference(back))


WORST_CLUSTER = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 100
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: busybox:1.36
        command: ["sh", "-c", "touch /tmp/ok && sleep 1d"]
        startupProbe:
          exec: {command: [cat, /tmp/ok]}
          periodSeconds: 1
        livenessProbe:
          exec: {command: [cat, /tmp/ok]}
          periodSeconds: 2
        readinessProbe:
          exec: {command: [cat, /tmp/ok]}
          periodSeconds: 3
---
apiVersion: playground/v1
kind: Simulation
metadata: {name: cluster-crash}
containers:
  app: {exitAfterSeconds: 10, exitCode: 1}
"""
