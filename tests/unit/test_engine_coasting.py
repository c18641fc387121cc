"""Coasting (kubelet/coasting.py) does steady probe ticks many at once with exactly the
result of running them one by one: the same transitions, Events, watch history and the same
order of everything after. Each case runs with and without it and compares everything."""

from __future__ import annotations

import contextlib
import json
import random
from pathlib import Path

import pytest

from tests.unit.engine_support import pod_yaml, scenario, simulation_doc
from webapp.engine import ActionError, Simulation
from webapp.engine.kubelet.processes import steady_command
from webapp.manifest import parse_scenario

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))


def observed(sim: Simulation) -> str:
    return json.dumps(
        {"trace": sim.trace(), "versions": sim.pod_versions, "now": sim.now,
         "nodes": sim.nodes(), "actions": sim.actions, "processes": processes(sim)},
        sort_keys=True, default=str,
    )  # fmt: skip


def processes(sim: Simulation) -> list:
    """What the process model holds that a probe run could change: logs, PIDs, files."""
    found = []
    for record in sim.kubelet.records if sim.kubelet is not None else []:
        for instance in record.instances:
            process = instance.process
            if process is not None:
                found.append([instance.container_id, process.log_lines(), process.next_pid,
                              process.notes, process.fs.read("/tmp/log"), process.running])  # fmt: skip
    return found


def run(text: str, script: list[tuple[float, dict]], until: float, *, coasting: bool,
        steps: list[float] | None = None) -> Simulation:  # fmt: skip
    sim = Simulation.from_scenario(parse_scenario(text))
    sim.coasting = coasting
    pending = sorted(script, key=lambda item: item[0])
    stops = sorted({*(steps or []), until})
    for stop in stops:
        while pending and pending[0][0] <= stop:
            at, action = pending.pop(0)
            sim.advance(at - sim.now)
            with contextlib.suppress(ActionError):
                sim.act(dict(action))
        sim.advance(stop - sim.now)
    return sim


def assert_same(text: str, script: list[tuple[float, dict]], until: float, **kwargs) -> Simulation:
    coasted = run(text, script, until, coasting=True, **kwargs)
    ticked = run(text, script, until, coasting=False, **kwargs)
    assert observed(coasted) == observed(ticked)
    assert coasted.clock.processed == ticked.clock.processed  # every tick counted, none lost
    return coasted


ACTIONS = [
    (15.0, {"action": "set-probe", "container": None, "probe": "liveness", "healthy": False}),
    (40.0, {"action": "crash", "container": None, "exitCode": 2}),
    (70.0, {"action": "node-down"}),
    (140.0, {"action": "node-up"}),
    (170.0, {"action": "set-probe", "container": None, "probe": "readiness", "healthy": False}),
    (260.0, {"action": "delete", "gracePeriodSeconds": 45}),
]


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_scenario_coasts_exactly(path):
    text = path.read_text(encoding="utf-8")
    containers = parse_scenario(text).pod["spec"]["containers"]
    script = [(at, {**a, "container": containers[0]["name"]} if "container" in a else a)
              for at, a in ACTIONS]  # fmt: skip
    assert_same(text, [], 900)
    assert_same(text, script, 900, steps=[0.5, 7.3, 33.0, 100.1, 400.0])


def random_scenario(rng: random.Random) -> str:
    containers, behaviours = "", ""
    for i in range(rng.randint(1, 4)):
        containers += f"- name: c{i}\n  image: nginx:1.27\n"
        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            if rng.random() < 0.7:
                containers += (
                    f"  {probe}:\n    httpGet: {{path: /, port: 80}}\n"
                    f"    periodSeconds: {rng.choice([1, 1, 2, 3, 5, 7])}\n"
                    f"    initialDelaySeconds: {rng.choice([0, 0, 1, 4, 9])}\n"
                    f"    failureThreshold: {rng.choice([1, 2, 3, 5])}\n"
                )
                if probe == "readinessProbe":
                    containers += f"    successThreshold: {rng.choice([1, 2, 3])}\n"
        health = {
            p: rng.choice(["healthy", "healthy", "failing"])
            for p in ("liveness", "readiness", "startup")
        }
        behaviours += (
            f"  c{i}:\n    startSeconds: {rng.choice([0, 0, 2, 6.5, 15])}\n"
            f"    probes: {json.dumps(health)}\n"
        )
        if rng.random() < 0.3:
            behaviours += f"    exitAfterSeconds: {rng.choice([5, 30, 90])}\n    exitCode: 1\n"
    spec = f"restartPolicy: {rng.choice(['Always', 'Always', 'OnFailure', 'Never'])}\n"
    doc = simulation_doc("images:\n  nginx:1.27: {pullSeconds: 1}\ncontainers:\n" + behaviours)
    return scenario(pod_yaml(containers, spec_extra=spec), doc)


def random_script(rng: random.Random, text: str) -> list[tuple[float, dict]]:
    names = [c["name"] for c in parse_scenario(text).pod["spec"]["containers"]]
    script = []
    for _ in range(rng.randint(0, 6)):
        at = round(rng.uniform(0, 500), rng.choice([0, 1, 3]))
        kind = rng.choice(["set-probe", "set-probe", "crash", "node-down", "node-up", "delete"])
        if kind == "set-probe":
            action = {"action": kind, "container": rng.choice(names),
                      "probe": rng.choice(["liveness", "readiness", "startup"]),
                      "healthy": rng.random() < 0.5}  # fmt: skip
        elif kind == "crash":
            action = {"action": kind, "container": rng.choice(names), "exitCode": 1}
        elif kind == "delete":
            action = {"action": kind, "gracePeriodSeconds": rng.choice([1, 30, 120])}
        else:
            action = {"action": kind}
        script.append((at, action))
    return script


@pytest.mark.parametrize("seed", range(40))
def test_random_probe_setups_and_actions_coast_exactly(seed):
    rng = random.Random(seed)
    text = random_scenario(rng)
    script = random_script(rng, text)
    steps = sorted(round(rng.uniform(0, 600), 2) for _ in range(rng.randint(0, 5)))
    assert_same(text, script, 600, steps=steps)


def test_the_worst_scenario_coasts_exactly_and_mostly_coasts():
    # A command that keeps running: busybox's own CMD (sh) exits at once in the process model.
    containers = "".join(
        f"- name: c{i}\n  image: busybox:1.36\n"
        '  command: ["sh", "-c", "touch /tmp/ok && sleep 1d"]\n'
        + "".join(
            f"  {p}: {{exec: {{command: [cat, /tmp/ok]}}, periodSeconds: 1}}\n"
            for p in ("startupProbe", "livenessProbe", "readinessProbe")
        )
        for i in range(20)
    )
    text = pod_yaml(containers)
    script = [
        (100.0, {"action": "set-probe", "container": "c3", "probe": "readiness", "healthy": False}),
        (250.0, {"action": "crash", "container": "c7", "exitCode": 3}),
        (400.0, {"action": "set-probe", "container": "c3", "probe": "readiness", "healthy": True}),
        (500.0, {"action": "delete", "gracePeriodSeconds": 30}),
    ]
    sim = assert_same(text, script, 600, steps=[50.0, 300.0])
    coasted = Simulation.from_yaml(text)
    coasted.advance(600)
    assert coasted.clock.processed > 30_000  # the ticks all happened ...
    assert len(coasted.transitions) < 300  # ... and are kept as runs
    assert sim.pod() is None


# -- the coasting rule with the process model (PodProcesses.steady_probe) -------------------


def test_the_steady_command_rule():
    assert steady_command(["true"]) and steady_command(["/bin/cat", "/tmp/ok"])
    assert steady_command(["test", "-f", "/tmp/ok"]) and steady_command(["/usr/bin/false"])
    for argv in (["sh", "-c", "true"], ["date"], ["echo", "hi"], ["cat", "/dev/random"],
                 ["cat", "/proc/1/fd/1"], ["/tmp/cat", "x"], ["touch", "/tmp/ok"]):  # fmt: skip
        assert not steady_command(argv), argv


def _busybox(probe: str, command: str = "touch /tmp/ok && sleep 1d") -> str:
    return pod_yaml(
        f"- name: app\n  image: busybox:1.36\n  command: [sh, -c, {json.dumps(command)}]\n"
        f"  livenessProbe: {{{probe}, periodSeconds: 1}}\n"
        f"  readinessProbe: {{{probe}, periodSeconds: 2}}\n"
    )


def test_steady_probe_answers_without_changing_anything_or_refuses():
    steady = Simulation.from_yaml(_busybox("exec: {command: [cat, /tmp/ok]}"))
    steady.advance(30)
    kubelet = steady.kubelet
    record = kubelet.by_name["app"]
    worker = record.probes["liveness"]
    before = processes(steady)
    assert worker._probe_at(steady.clock.now_ms, dry=True) == ("success", "", False)
    assert processes(steady) == before  # the dry run took no PID, wrote nothing
    for probe in ('exec: {command: [sh, -c, "date >> /tmp/log"]}', "exec: {command: [date]}"):
        sim = Simulation.from_yaml(_busybox(probe))
        sim.advance(30)
        worker = sim.kubelet.by_name["app"].probes["liveness"]
        assert worker._probe_at(sim.clock.now_ms, dry=True) is None, probe
        assert worker.repeats(worker.timer.at_ms, worker.timer.at_ms + 60_000) is None, probe


UNSTEADY = [
    # the same (empty) answer every run, but each run writes a line: never skipped
    'exec: {command: [sh, -c, "date >> /tmp/log"]}',
    # the time in the output
    "exec: {command: [date]}",
    # a new PID in the output each run
    'exec: {command: [sh, -c, "echo $$"]}',
]
STEADY = ["exec: {command: [cat, /tmp/ok]}", "exec: {command: [cat, /tmp/missing]}"]


def probe_runs(sim: Simulation) -> int:
    return sum(
        (item.get("repeat") or {}).get("count", 1)
        for item in sim.transitions
        if item["field"] in ("probe.liveness", "probe.readiness")
    )


@pytest.mark.parametrize("probe", UNSTEADY + STEADY)
def test_process_model_probes_coast_exactly(probe):
    sim = assert_same(_busybox(probe), [], 300, steps=[3.0, 61.5])
    if probe == STEADY[0]:
        assert len(sim.transitions) < 60  # the steady runs are kept as runs
    if "/tmp/log" in probe:
        written = sim.kubelet.by_name["app"].newest.process.fs.read("/tmp/log")
        assert len(written.splitlines()) == probe_runs(sim) > 400  # every run wrote its line


def test_http_probes_against_nginx_run_for_real_and_stay_exact():
    text = pod_yaml(
        "- name: web\n  image: nginx:1.27\n"
        "  livenessProbe: {httpGet: {path: /, port: 80}, periodSeconds: 1}\n"
        "  readinessProbe: {tcpSocket: {port: 80}, periodSeconds: 1}\n"
    )
    sim = assert_same(text, [], 120, steps=[10.0])
    logs = sim.container_logs("web")
    assert logs is not None
    access = [line for line in logs if "kube-probe" in line[2]]
    assert len(access) > 100  # one access log line per liveness run: none was skipped
