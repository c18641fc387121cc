"""Built-in scenarios (`scenarios/*.yaml`): each is valid, bilingual, and plays as its lesson says.

Every test is parametrized over every file in `scenarios/`, so a new scenario is checked the
moment it is added.

The `when` vocabulary of lesson steps
-------------------------------------
A lesson step `{when: X}` fires the first time, at or after the previous step fired, that the
Pod shows `X` as one of:

- the `kubectl get pods` STATUS cell: `webapp.kubectl.pod_columns(pod, now)["STATUS"]`, e.g.
  `ContainerCreating`, `Init:1/2`, `CrashLoopBackOff`, `Terminating`, `Completed`;
- the Pod's `status.phase`: `Pending`, `Running`, `Succeeded`, `Failed`;
- `Deleted`: the Pod object is gone from the API (`sim.pod()` is None, or a DELETED watch event).

The Pod is observed after every engine step and at every resourceVersion the API server handed
out (`sim.pod_versions`, what `kubectl get pods -w` receives), so a status that lasts only an
instant, like `Error` between a crash and an immediate restart, still counts. A step
`{at: T}` fires at virtual second T. Steps must fire in the order they are listed: a guided
narrative that shows step 3 before step 2 is a bug in the scenario (or in the engine).

Each scenario also has its key fact asserted explicitly (`KEY_FACTS`), and together the
scenarios must walk every stage and step of docs/internals.md's step vocabulary and every
row of the troubleshooting table of the article the playground grew from.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from webapp.manifest.simulation_doc import lesson_steps

ROOT = Path(__file__).resolve().parents[2]
SCENARIO_DIR = ROOT / "scenarios"
FILES = sorted(SCENARIO_DIR.glob("*.yaml"))
NAMES = [path.stem for path in FILES]

KUBERNETES_KINDS = {"Pod", "Node", "Service", "ConfigMap", "Secret"}
ACTIONS = {"delete", "set-probe", "crash", "oom", "node-down", "node-up", "apply"}
KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
CJK = re.compile(r"[\u4e00-\u9fff]")

# How long past the last scripted action or timed lesson step a scenario is played.
MARGIN_SECONDS = 120.0
MAX_HORIZON_SECONDS = 900.0
# The kubelet notices a container exit through PLEG within about a second.
PLEG_SLACK = 1.0
# Quiet stretches are still observed this often (virtual seconds).
SAMPLE_EVERY = 5.0


# --- reading the files ------------------------------------------------------------------


def documents(name: str) -> list[Any]:
    return [d for d in yaml.safe_load_all(read(name)) if d is not None]


def read(name: str) -> str:
    return (SCENARIO_DIR / f"{name}.yaml").read_text(encoding="utf-8")


def simulation_doc(name: str) -> dict[str, Any]:
    """The scenario's Simulation document; a real-world scenario has none (an empty one)."""
    docs = [d for d in documents(name) if isinstance(d, dict) and d.get("kind") == "Simulation"]
    assert len(docs) <= 1, f"{name}: expected at most one Simulation document, found {len(docs)}"
    return docs[0] if docs else {}


def real_world(name: str) -> bool:
    """A manifest as people paste it: no Simulation document, no lesson (issue 8)."""
    return not any(isinstance(d, dict) and d.get("kind") == "Simulation" for d in documents(name))


def horizon(name: str) -> float:
    """Virtual seconds to play: past the last scripted action and the last timed lesson step."""
    sim = simulation_doc(name)
    times = [float(s["at"]) for s in sim.get("script") or []]
    times += [float(s["at"]) for s in lesson_steps(sim) if "at" in s]
    return min(max([0.0, *times]) + MARGIN_SECONDS, MAX_HORIZON_SECONDS)


# --- playing a scenario -----------------------------------------------------------------


@dataclass
class Sample:
    t: float
    status: str  # kubectl STATUS, or "Deleted"
    phase: str | None
    pod: dict[str, Any] | None
    slices: list[dict[str, Any]] | None = None
    ready: str | None = None  # kubectl READY
    watch: bool = False  # from sim.pod_versions (an intermediate state at time t)


@dataclass
class Run:
    name: str
    sim: Any
    end: float
    samples: list[Sample] = field(default_factory=list)

    @property
    def transitions(self) -> list[dict[str, Any]]:
        return list(self.sim.transitions)

    def events(self, reason: str | None = None) -> list[dict[str, Any]]:
        return [e for e in self.sim.events() if reason is None or e.get("reason") == reason]

    def statuses(self) -> list[str]:
        """The distinct STATUS values in order, for readable failure messages."""
        seen: list[str] = []
        for s in self.samples:
            label = f"{s.t:g}s {s.status}/{s.phase}"
            if not seen or seen[-1].split(" ", 1)[1] != label.split(" ", 1)[1]:
                seen.append(label)
        return seen

    def last(self) -> Sample:
        return self.samples[-1]

    def between(self, start: float, end: float) -> list[Sample]:
        return [s for s in self.samples if start <= s.t < end]


def observe(sim: Any, pod_columns: Callable[..., dict[str, str]], t: float) -> Sample:
    pod = sim.pod()
    slices = sim.endpoint_slices() if hasattr(sim, "endpoint_slices") else None
    if pod is None:
        return Sample(t, "Deleted", None, None, slices)
    columns = pod_columns(pod, sim.wall_time(t))
    phase = (pod.get("status") or {}).get("phase")
    return Sample(t, columns["STATUS"], phase, pod, slices, columns["READY"])


@functools.cache
def play(name: str) -> Run:
    """Play a scenario to its horizon, observing the Pod after every step and every watch event."""
    from webapp.engine import Simulation
    from webapp.kubectl import pod_columns

    sim = Simulation.from_yaml(read(name))
    end = horizon(name)
    run = Run(name, sim, end)
    first = observe(sim, pod_columns, sim.now)
    first.watch = True  # the state before anything ran: it sorts with the earliest watch events
    run.samples.append(first)
    while sim.now < end:
        # Every event time, and at least every SAMPLE_EVERY seconds in quiet stretches.
        next_time = sim.next_event_time()
        target = min(sim.now + SAMPLE_EVERY, end)
        if next_time is not None and next_time <= target:
            sim.step()
        else:
            sim.advance(target - sim.now)
        run.samples.append(observe(sim, pod_columns, sim.now))
    for t, kind, pod in getattr(sim, "pod_versions", []):
        if kind == "DELETED":
            run.samples.append(Sample(t, "Deleted", None, None, watch=True))
        else:
            columns = pod_columns(pod, sim.wall_time(t))
            phase = pod["status"].get("phase")
            sample = Sample(t, columns["STATUS"], phase, pod, None, columns["READY"], watch=True)
            run.samples.append(sample)
    # At one instant the watch events come first: a step sample is the state after all of them.
    run.samples.sort(key=lambda s: (s.t, not s.watch))
    return run


def matches(sample: Sample, when: str) -> bool:
    return when in (sample.status, sample.phase)


# --- helpers for key facts --------------------------------------------------------------


def container_status(pod: dict[str, Any] | None, name: str) -> dict[str, Any] | None:
    if pod is None:
        return None
    status = pod.get("status") or {}
    for cs in (status.get("initContainerStatuses") or []) + (status.get("containerStatuses") or []):
        if cs.get("name") == name:
            return cs
    return None


def condition(pod: dict[str, Any] | None, kind: str) -> dict[str, Any] | None:
    for c in ((pod or {}).get("status") or {}).get("conditions") or []:
        if c.get("type") == kind:
            return c
    return None


def states(run: Run, container: str) -> list[tuple[float, dict[str, Any]]]:
    """(t, {"state", "reason", "exitCode"}) of every container state transition."""
    return [
        (tr["t"], tr["after"])
        for tr in run.transitions
        if tr["object"] == f"Container/{container}" and tr["field"] == "state"
    ]


def first_state(run: Run, container: str, state: str) -> float | None:
    return next((t for t, after in states(run, container) if after["state"] == state), None)


def signals(run: Run, container: str) -> dict[str, float]:
    """Virtual second of the first SIGTERM and SIGKILL sent to a container."""
    found: dict[str, float] = {}
    for tr in run.transitions:
        if tr["object"] == f"Container/{container}" and tr["field"] == "signal":
            found.setdefault(tr["after"], tr["t"])
    return found


def endpoint(sample: Sample) -> dict[str, Any] | None:
    """The conditions of the Pod's endpoint in the first EndpointSlice, if listed."""
    for eps in sample.slices or []:
        for ep in eps.get("endpoints") or []:
            return ep.get("conditions")
    return None


def script_time(name: str, action: str) -> float:
    return next(float(s["at"]) for s in simulation_doc(name)["script"] if s["action"] == action)


def messages(run: Run, reason: str) -> list[str]:
    return [e.get("message", "") for e in run.events(reason)]


def assert_close(actual: float | None, expected: float, what: str, slack: float = 0.5) -> None:
    assert actual is not None, f"{what}: never happened"
    assert abs(actual - expected) <= slack, f"{what}: at {actual}s, expected {expected}s"


# --- key facts, one per scenario --------------------------------------------------------


def fact_plain_pod(run: Run) -> None:
    assert any(
        re.fullmatch(r"Successfully assigned default/web to \S+", m)
        for m in messages(run, "Scheduled")
    ), messages(run, "Scheduled")
    pod = run.last().pod
    assert run.last().status == "Running" and run.last().phase == "Running"
    for kind in ("PodScheduled", "Initialized", "ContainersReady", "Ready"):
        assert (condition(pod, kind) or {}).get("status") == "True", kind


def started(run: Run, container: str) -> float | None:
    """When the runtime started the container (a command that ends at once, like
    write-page's echo, may never show as running in the API)."""
    return next((tr["t"] for tr in run.transitions if tr["object"] == f"Container/{container}"
                 and tr["field"] == "runtime" and tr["after"] == "started"), None)  # fmt: skip


def fact_init_containers(run: Run) -> None:
    order = [
        started(run, "wait-for-db"),
        first_state(run, "wait-for-db", "terminated"),
        started(run, "write-page"),
        first_state(run, "write-page", "terminated"),
        first_state(run, "app", "running"),
    ]
    assert None not in order, order
    assert order == sorted(order), f"init containers out of order: {order}"
    for name in ("wait-for-db", "write-page"):
        terminated = (container_status(run.last().pod, name) or {})["state"]["terminated"]
        assert terminated["exitCode"] == 0 and terminated["reason"] == "Completed"


def fact_sidecar(run: Run) -> None:
    shipper = first_state(run, "log-shipper", "running")
    migrate = first_state(run, "migrate", "running")
    assert shipper is not None and migrate is not None and shipper <= migrate
    both = [
        s
        for s in run.samples
        if s.pod is not None
        and "running" in (container_status(s.pod, "log-shipper") or {}).get("state", {})
        and "running" in (container_status(s.pod, "app") or {}).get("state", {})
    ]
    assert both, "the sidecar was never running next to the app"
    assert any(s.status == "Running" and s.ready == "2/2" for s in both)
    app_exit = first_state(run, "app", "terminated")
    sidecar_term = signals(run, "log-shipper").get("SIGTERM")
    assert app_exit is not None and sidecar_term is not None
    assert sidecar_term >= app_exit - PLEG_SLACK, "the sidecar was stopped before the app exited"


def fact_poststart_and_startup_probe(run: Run) -> None:
    hook = [t["t"] for t in run.transitions if t["step"] == "postStart"]
    running = first_state(run, "jenkins", "running")
    assert hook and running is not None
    assert running - hook[0] >= 6 - PLEG_SLACK, "reported Running before postStart returned"
    during = run.between(hook[0] + 1, running)
    assert during and {s.status for s in during} == {"ContainerCreating"}, run.statuses()
    probes = [
        (t["t"], t["field"], t["after"])
        for t in run.transitions
        if t["object"] == "Container/jenkins" and t["field"].startswith("probe.")
    ]
    started = next((t for t, f, a in probes if f == "probe.startup" and a == "success"), None)
    assert started is not None, "the startup probe never succeeded"
    gated = [(t, f) for t, f, _ in probes if f != "probe.startup" and t < started]
    assert not gated, f"liveness/readiness ran before the startup probe passed: {gated}"
    assert any(m.startswith("Startup probe failed: ") for m in messages(run, "Unhealthy"))
    assert (container_status(run.last().pod, "jenkins") or {}).get("ready") is True


def fact_liveness_restart(run: Run) -> None:
    assert "Container app failed liveness probe, will be restarted" in messages(run, "Killing")
    assert (container_status(run.last().pod, "app") or {})["restartCount"] == 1
    after_start = [s for s in run.samples if s.t >= (first_state(run, "app", "running") or 0)]
    assert {s.phase for s in after_start} == {"Running"}
    assert "CrashLoopBackOff" not in {s.status for s in run.samples}


def fact_readiness_endpoints(run: Run) -> None:
    window = run.between(45, 75)
    assert window, "no observation between 45 s and 75 s"
    out = [s for s in window if (endpoint(s) or {}).get("ready") is False]
    assert out, f"the endpoint never turned not ready: {[endpoint(s) for s in window]}"
    for s in out:
        assert s.status == "Running", s.status
        assert (container_status(s.pod, "app") or {})["restartCount"] == 0
    final = run.last()
    assert (endpoint(final) or {}).get("ready") is True, endpoint(final)
    assert (container_status(final.pod, "app") or {})["restartCount"] == 0
    assert not run.events("Killing"), "a readiness failure must never kill a container"


def fact_startup_probe_never_passes(run: Run) -> None:
    assert "Container web failed startup probe, will be restarted" in messages(run, "Killing")
    assert not any(
        (container_status(s.pod, "web") or {}).get("started") for s in run.samples if s.pod
    ), "started turned true although the startup probe never passes"
    gated = [
        t
        for t in run.transitions
        if t["object"] == "Container/web" and t["field"] in ("probe.liveness", "probe.readiness")
    ]
    assert not gated, f"liveness/readiness probes ran: {gated[:3]}"
    assert "CrashLoopBackOff" in {s.status for s in run.samples}


def fact_crash_loop_backoff(run: Run) -> None:
    gaps: list[float] = []
    crashed: float | None = None
    for t, after in states(run, "app"):
        if after["state"] == "terminated":
            crashed = t
        elif after["state"] == "running" and crashed is not None:
            gaps.append(t - crashed)
            crashed = None
    expected = [0, 10, 20, 40]
    assert len(gaps) >= len(expected), f"restart gaps {gaps}"
    for gap, want in zip(gaps, expected, strict=False):
        assert want <= gap <= want + PLEG_SLACK, f"restart gaps {gaps}, expected {expected}"
    after_start = [s for s in run.samples if s.t >= (first_state(run, "app", "running") or 0)]
    assert {s.phase for s in after_start} == {"Running"}, "the phase left Running"
    for cs in [container_status(s.pod, "app") for s in run.samples if s.status == "Error"]:
        assert cs is not None and cs["state"]["terminated"]["exitCode"] == 1


def fact_job_succeeds(run: Run) -> None:
    done = [s for s in run.samples if s.status == "Completed"]
    assert done and done[-1].phase == "Succeeded"
    terminated = (container_status(done[-1].pod, "report") or {})["state"]["terminated"]
    assert terminated["exitCode"] == 0 and terminated["reason"] == "Completed"
    assert (container_status(done[-1].pod, "report") or {})["restartCount"] == 0
    assert "Terminating" not in {s.status for s in run.samples}
    gone = next(s.t for s in run.samples if s.status == "Deleted")
    assert_close(gone, script_time(run.name, "delete"), "removal of a Succeeded Pod")


def fact_job_fails(run: Run) -> None:
    final = run.last()
    assert final.phase == "Failed" and final.status == "Error", (final.phase, final.status)
    cs = container_status(final.pod, "import") or {}
    assert cs["state"]["terminated"]["exitCode"] == 1 and cs["restartCount"] == 0


def fact_onfailure_restart(run: Run) -> None:
    final = run.last()
    assert final.phase == "Succeeded" and final.status == "Completed"
    cs = container_status(final.pod, "resize") or {}
    assert cs["restartCount"] == 1
    assert cs["lastState"]["terminated"]["exitCode"] == 1
    assert cs["state"]["terminated"]["exitCode"] == 0


def fact_image_pull_backoff(run: Run) -> None:
    image = "registry.example.com/shop/frontend:2.4.0"
    failed = [e for e in run.events("Failed") if e["message"].startswith("Failed to pull image")]
    assert failed and failed[0]["type"] == "Warning"
    assert failed[0]["message"].startswith(f'Failed to pull image "{image}": ')
    backoff = [e for e in run.events("BackOff") if image in e["message"]]
    assert backoff and {e["type"] for e in backoff} == {"Normal"}, backoff
    assert backoff[0]["message"] == f'Back-off pulling image "{image}"'
    fix = script_time(run.name, "apply")
    assert {s.phase for s in run.between(0, fix)} == {"Pending"}
    assert run.last().status == "Running"


def fact_err_image_never_pull(run: Run) -> None:
    image = "registry.example.com/team/batch-tool:1.4"
    want = f'Container image "{image}" is not present with pull policy of Never'
    assert want in messages(run, "ErrImageNeverPull")
    assert {e["type"] for e in run.events("ErrImageNeverPull")} == {"Warning"}
    assert not run.events("Pulling"), "pull policy Never must never pull"
    assert run.last().phase == "Pending" and run.last().status == "ErrImageNeverPull"


def fact_create_container_config_error(run: Run) -> None:
    assert 'Error: configmap "shop-config" not found' in messages(run, "Failed")
    fix = script_time(run.name, "apply")
    assert {s.phase for s in run.between(0, fix)} == {"Pending"}
    assert first_state(run, "shop", "running") is not None
    assert (first_state(run, "shop", "running") or 0) >= fix
    assert (container_status(run.last().pod, "shop") or {})["restartCount"] == 0


def fact_oom_killed(run: Run) -> None:
    oom = [a for _, a in states(run, "stress") if a.get("reason") == "OOMKilled"]
    assert oom, states(run, "stress")
    assert {a["exitCode"] for a in oom} == {137}
    last = container_status(run.last().pod, "stress") or {}
    assert last["lastState"]["terminated"]["reason"] == "OOMKilled"
    assert "CrashLoopBackOff" in {s.status for s in run.samples}


def fact_graceful_shutdown_prestop(run: Run) -> None:
    deleted_at = script_time(run.name, "delete")
    at_delete = next(s for s in run.samples if s.t >= deleted_at and s.slices is not None)
    assert at_delete.t == deleted_at and at_delete.status == "Terminating"
    ep = endpoint(at_delete) or {}
    assert ep.get("terminating") is True and ep.get("ready") is False, ep
    hook = [t["t"] for t in run.transitions if t["step"] == "preStop"]
    assert hook and hook[0] == deleted_at
    sent = signals(run, "api")
    assert_close(sent.get("SIGTERM"), deleted_at + 10, "SIGTERM after the 10 s preStop")
    assert "SIGKILL" not in sent, "an app that exits in 3 s must not be SIGKILLed"
    exits = [a for _, a in states(run, "api") if a["state"] == "terminated"]
    assert exits and (exits[-1]["exitCode"], exits[-1]["reason"]) == (0, "Completed"), exits
    gone = next(s.t for s in run.samples if s.status == "Deleted")
    assert_close(gone, deleted_at + 13, "removal", slack=PLEG_SLACK)


def fact_sigterm_ignored(run: Run) -> None:
    deleted_at = script_time(run.name, "delete")
    sent = signals(run, "worker")
    assert_close(sent.get("SIGTERM"), deleted_at, "SIGTERM")
    assert_close(sent.get("SIGKILL"), deleted_at + 30, "SIGKILL at the end of the grace period")
    exits = [a for _, a in states(run, "worker") if a["state"] == "terminated"]
    assert exits and exits[-1]["exitCode"] == 137, exits


def fact_prestop_longer_than_grace(run: Run) -> None:
    deleted_at = script_time(run.name, "delete")
    sent = signals(run, "app")
    assert_close(sent.get("SIGTERM"), deleted_at + 30, "SIGTERM when preStop used up the grace")
    assert_close(sent.get("SIGKILL"), deleted_at + 32, "SIGKILL 2 s (the minimum) after SIGTERM")
    exits = [(t, a) for t, a in states(run, "app") if a["state"] == "terminated"]
    assert exits and exits[-1][1]["exitCode"] == 137, exits
    assert_close(exits[-1][0], deleted_at + 32, "exit 137")


def fact_unschedulable(run: Run) -> None:
    failed = messages(run, "FailedScheduling")
    assert failed and failed[0].startswith("0/3 nodes are available: 3 Insufficient cpu."), failed
    fix = script_time(run.name, "apply")
    before = run.between(1, fix)
    assert before and {s.status for s in before} == {"Pending"}, run.statuses()
    scheduled = condition(before[-1].pod, "PodScheduled") or {}
    assert scheduled.get("status") == "False" and scheduled.get("reason") == "Unschedulable"
    assert not (before[-1].pod or {}).get("spec", {}).get("nodeName")
    final = run.last()
    assert final.status == "Running" and final.pod is not None
    assert final.pod["spec"]["nodeName"] == "big-node"


def fact_node_lost(run: Run) -> None:
    down = script_time(run.name, "node-down")
    up = script_time(run.name, "node-up")
    not_ready = next(
        (
            t["t"]
            for t in run.transitions
            if t["object"] == "Node/worker-1"
            and t["field"] == "conditions.Ready"
            and t["after"] in ("False", "Unknown")
        ),
        None,
    )
    assert not_ready is not None and down + 50 <= not_ready <= down + 55, not_ready
    terminating = next((s.t for s in run.samples if s.status == "Terminating"), None)
    assert terminating is not None and not_ready + 300 <= terminating <= not_ready + 305
    limbo = run.between(not_ready + 1, terminating)
    assert limbo
    for s in limbo:
        assert s.phase == "Running" and s.status == "Running", (s.t, s.phase, s.status)
        assert (condition(s.pod, "Ready") or {}).get("status") == "False", s.t
    # taint_eviction.go addConditionAndDeletePod: the DisruptionTarget condition is patched
    # in first (a watch sees that version, still Running), then the Pod is deleted.
    patched = [s for s in run.samples if s.t == terminating and s.status == "Running"]
    assert patched and all(s.watch for s in patched)
    target = condition(patched[-1].pod, "DisruptionTarget") or {}
    assert (target.get("status"), target.get("reason")) == ("True", "DeletionByTaintManager")
    still = [s for s in run.between(terminating, up) if s not in patched]
    assert still and {s.status for s in still} == {"Terminating"}
    gone = next((s.t for s in run.samples if s.status == "Deleted"), None)
    assert gone is not None and gone >= up


def fact_init_container_fails(run: Run) -> None:
    assert first_state(run, "app", "running") is None, "the app started after a failed init"
    assert "Running" not in {s.phase for s in run.samples}
    seen = {s.status for s in run.samples}
    assert {"Init:Error", "Init:CrashLoopBackOff"} <= seen, seen
    restarts = (container_status(run.last().pod, "migrate") or {})["restartCount"]
    assert restarts >= 3, restarts


def fact_container_cannot_run(run: Run) -> None:
    want = """Error: container's runAsUser breaks non-root policy (pod: "legacy-app_default("""
    failed = messages(run, "Failed")
    assert any(m.startswith(want) and m.endswith(')", container: app)') for m in failed), failed
    assert first_state(run, "app", "running") is None, "a root container ran under runAsNonRoot"
    assert run.last().phase == "Pending" and run.last().status == "CreateContainerConfigError"


def _deleted_at(name: str, at: float, until: float) -> Any:
    """A real-world scenario played to ``at``, deleted as a learner would press Delete."""
    from webapp.engine import Simulation

    sim = Simulation.from_yaml(read(name))
    sim.advance(at)
    sim.act({"action": "delete"})
    sim.advance(until - at)
    return sim


def fact_busybox_no_command(run: Run) -> None:
    seen = {s.status for s in run.samples}
    assert {"Completed", "CrashLoopBackOff"} <= seen, run.statuses()
    terminated = (container_status(run.last().pod, "busybox") or {})["lastState"]["terminated"]
    assert (terminated["exitCode"], terminated["reason"]) == (0, "Completed")


def fact_sh_pid1_slow_stop(run: Run) -> None:
    assert run.last().status == "Running"
    sim = _deleted_at(run.name, 20, 60)
    kill = next(t for t in sim.transitions if t["field"] == "signal" and t["after"] == "SIGKILL")
    assert kill["t"] == 50.0  # the whole 30 s grace period
    last = container_status(sim.pod_versions[-1][2], "worker")["state"]["terminated"]
    assert (last["exitCode"], last["reason"]) == (137, "Error")


def fact_liveness_exec(run: Run) -> None:
    unhealthy = run.events("Unhealthy")
    assert unhealthy and unhealthy[0]["message"] == (
        "Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n"
    )
    assert (
        messages(run, "Killing")[0] == "Container liveness failed liveness probe, will be restarted"
    )
    assert (container_status(run.last().pod, "liveness") or {})["restartCount"] >= 1


def fact_init_wait_for_service(run: Run) -> None:
    assert run.last().status == "Init:1/2", run.statuses()
    done = (container_status(run.last().pod, "init-myservice") or {})["state"]["terminated"]
    assert (done["exitCode"], done["reason"]) == (0, "Completed")


def fact_termination_demo(run: Run) -> None:
    status = container_status(run.last().pod, "termination-demo-container") or {}
    terminated = status["lastState"].get("terminated") or status["state"].get("terminated")
    assert terminated["message"] == "Sleep expired\n"


def fact_scheduling_gated(run: Run) -> None:
    assert {s.status for s in run.samples if s.pod} == {"SchedulingGated"}
    assert run.events() == []


def fact_node_name_out_of_cpu(run: Run) -> None:
    assert run.last().status == "OutOfcpu" and run.last().phase == "Failed"
    assert run.events("Scheduled") == []
    assert messages(run, "OutOfcpu") == [
        "Node didn't have enough resource: cpu, requested: 4000, used: 0, capacity: 2000"
    ]


def fact_lifecycle_demo(run: Run) -> None:
    assert run.last().status == "Running"
    sim = _deleted_at(run.name, 20, 40)
    assert [e["message"] for e in sim.events() if e["reason"] == "FailedPreStopHook"] == [
        "PreStopHook failed"
    ]
    last = container_status(sim.pod_versions[-1][2], "lifecycle-demo-container")["state"][
        "terminated"
    ]
    assert (last["exitCode"], last["reason"]) == (0, "Completed")


KEY_FACTS: dict[str, Callable[[Run], None]] = {
    "busybox-no-command": fact_busybox_no_command,
    "sh-pid1-slow-stop": fact_sh_pid1_slow_stop,
    "liveness-exec": fact_liveness_exec,
    "init-wait-for-service": fact_init_wait_for_service,
    "termination-demo": fact_termination_demo,
    "scheduling-gated": fact_scheduling_gated,
    "node-name-out-of-cpu": fact_node_name_out_of_cpu,
    "lifecycle-demo": fact_lifecycle_demo,
    "plain-pod": fact_plain_pod,
    "init-containers": fact_init_containers,
    "sidecar": fact_sidecar,
    "poststart-and-startup-probe": fact_poststart_and_startup_probe,
    "liveness-restart": fact_liveness_restart,
    "readiness-endpoints": fact_readiness_endpoints,
    "startup-probe-never-passes": fact_startup_probe_never_passes,
    "crash-loop-backoff": fact_crash_loop_backoff,
    "job-succeeds": fact_job_succeeds,
    "job-fails": fact_job_fails,
    "onfailure-restart": fact_onfailure_restart,
    "image-pull-backoff": fact_image_pull_backoff,
    "err-image-never-pull": fact_err_image_never_pull,
    "create-container-config-error": fact_create_container_config_error,
    "oom-killed": fact_oom_killed,
    "graceful-shutdown-prestop": fact_graceful_shutdown_prestop,
    "sigterm-ignored": fact_sigterm_ignored,
    "prestop-longer-than-grace": fact_prestop_longer_than_grace,
    "unschedulable": fact_unschedulable,
    "node-lost": fact_node_lost,
    "init-container-fails": fact_init_container_fails,
    "container-cannot-run": fact_container_cannot_run,
}

# The troubleshooting table of the article (/work/shared/seed): row -> (scenario, a STATUS the
# learner sees there). ContainerCannotRun was dockershim's reason; with containerd the security
# context case it names shows as CreateContainerConfigError (see that scenario's lesson).
TROUBLESHOOTING_ROWS = {
    "CrashLoopBackOff": ("crash-loop-backoff", "CrashLoopBackOff"),
    "ImagePullBackOff": ("image-pull-backoff", "ImagePullBackOff"),
    "CreateContainerConfigError": ("create-container-config-error", "CreateContainerConfigError"),
    "OOMKilled": ("oom-killed", "OOMKilled"),
    "ContainerCannotRun": ("container-cannot-run", "CreateContainerConfigError"),
}


# --- the files themselves ---------------------------------------------------------------


def test_there_are_enough_scenarios() -> None:
    assert len(FILES) >= 18, NAMES
    assert len([n for n in NAMES if real_world(n)]) >= 6, "real-world manifests (no Simulation)"


def test_every_scenario_has_a_key_fact() -> None:
    assert sorted(KEY_FACTS) == sorted(NAMES)


def texts(value: Any, where: str) -> Iterator[tuple[str, str]]:
    assert isinstance(value, dict), f"{where}: needs a map with en and zh"
    assert set(value) == {"en", "zh"}, f"{where}: languages {sorted(value)}"
    for lang in ("en", "zh"):
        text = value[lang]
        assert isinstance(text, str) and text.strip(), f"{where}.{lang} is empty"
        yield lang, text


@pytest.mark.parametrize("name", NAMES)
def test_structure_and_languages(name: str) -> None:
    docs = documents(name)
    kinds = [d.get("kind") for d in docs]
    if real_world(name):
        assert kinds.count("Pod") == 1 and set(kinds) <= KUBERNETES_KINDS, kinds
        pod = next(d for d in docs if d.get("kind") == "Pod")
        assert pod["metadata"]["name"] == name, "the file name must equal the Pod's name"
        assert KEBAB.match(name), name
        text = read(name)
        assert text.startswith("#"), "a real-world scenario says what it shows in a comment"
        assert CJK.search(next(line for line in text.splitlines() if line.startswith("# zh:")))
        return
    assert kinds.count("Pod") == 1 and kinds.count("Simulation") == 1, kinds
    assert set(kinds) <= KUBERNETES_KINDS | {"Simulation"}, kinds
    sim = simulation_doc(name)
    assert sim["apiVersion"] == "playground/v1"
    assert sim["metadata"]["name"] == name, "the file name must equal metadata.name"
    assert KEBAB.match(name), name
    for key in ("title", "description"):
        for lang, text in texts(sim.get(key), key):
            assert lang == "en" or CJK.search(text), f"{key}.zh is not Chinese"
    lesson = lesson_steps(sim)
    assert 3 <= len(lesson) <= 6, f"{len(lesson)} lesson steps"
    for i, step in enumerate(lesson):
        assert ("at" in step) != ("when" in step), f"lesson[{i}] needs exactly one of at/when"
        for lang, text in texts(step.get("text"), f"lesson[{i}].text"):
            assert lang == "en" or CJK.search(text), f"lesson[{i}].text.zh is not Chinese"
    for i, step in enumerate(sim.get("script") or []):
        assert step["action"] in ACTIONS, f"script[{i}].action {step['action']!r}"
        assert isinstance(step["at"], int | float), f"script[{i}].at"


@pytest.mark.parametrize("name", NAMES)
def test_parses(name: str) -> None:
    from webapp.manifest import parse_scenario

    scenario = parse_scenario(read(name))
    assert scenario.simulation["name"] == name
    if real_world(name):
        return
    for key in ("title", "description"):
        assert scenario.simulation[key]["en"] != scenario.simulation[key]["zh"]


# --- playing them -----------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_every_lesson_step_happens_in_order(name: str) -> None:
    run = play(name)
    fired = 0.0
    for i, step in enumerate(lesson_steps(simulation_doc(name))):
        if "at" in step:
            at = float(step["at"])
            assert at <= run.end, f"lesson[{i}] at {at}s is past the run's end {run.end}s"
            assert at >= fired, (
                f"lesson[{i}] at {at}s comes before the previous step, which fired at "
                f"{fired}s; statuses: {run.statuses()}"
            )
            fired = at
            continue
        when = step["when"]
        hit = next((s.t for s in run.samples if s.t >= fired and matches(s, when)), None)
        assert hit is not None, (
            f"lesson[{i}] when={when!r} never reached at or after {fired}s; "
            f"statuses: {run.statuses()}"
        )
        fired = hit


@pytest.mark.parametrize("name", NAMES)
def test_key_fact(name: str) -> None:
    assert name in KEY_FACTS, f"{name} has no key fact in KEY_FACTS"
    KEY_FACTS[name](play(name))


def internals_step_vocabulary() -> dict[str, set[int]]:
    """Step name -> the stages docs/internals.md lists it under."""
    text = (ROOT / "docs" / "internals.md").read_text(encoding="utf-8")
    vocabulary: dict[str, set[int]] = {}
    for stage, steps in re.findall(r"^- stage (\d): (.+)$", text, re.MULTILINE):
        for step in re.findall(r"`([A-Za-z]+)`", steps):
            vocabulary.setdefault(step, set()).add(int(stage))
    for stages, step in re.findall(r"^- `(outcome)` \(stage (.+?)\)", text, re.MULTILINE):
        vocabulary.setdefault(stages, set()).update(int(n) for n in re.findall(r"\d", step))
    return vocabulary


def test_scenarios_cover_every_stage_and_step() -> None:
    vocabulary = internals_step_vocabulary()
    assert len(vocabulary) >= 20, vocabulary
    seen: set[tuple[int, str]] = set()
    for name in NAMES:
        seen.update((tr["stage"], tr["step"]) for tr in play(name).transitions)
    assert {stage for stage, _ in seen} >= {1, 2, 3, 4, 5}, seen
    missing = sorted(
        step
        for step, stages in vocabulary.items()
        if not any((stage, step) in seen for stage in stages)
    )
    assert not missing, f"no scenario walks the steps {missing} in their documented stage"


def test_scenarios_cover_the_troubleshooting_table() -> None:
    for row, (name, status) in TROUBLESHOOTING_ROWS.items():
        assert name in NAMES, f"row {row}: no scenario {name}"
        seen = {s.status for s in play(name).samples}
        assert status in seen, f"row {row}: {name} never shows {status}; saw {sorted(seen)}"
        sim = simulation_doc(name)
        told = " ".join(
            [sim["title"]["en"], sim["description"]["en"]]
            + [step["text"]["en"] for step in lesson_steps(sim)]
        )
        assert row in told, f"row {row}: {name}'s lesson never names it"


# --- what the scenario picker shows (issue 20) -----------------------------------------------


def test_every_built_in_scenario_has_a_title_in_the_picker_not_its_file_name() -> None:
    from webapp.sessions.catalog import ScenarioCatalog

    listing = ScenarioCatalog(ROOT / "scenarios").listing()
    files = [p for p in (ROOT / "scenarios").glob("**/*.yaml") if p.parent.name != "plans"]
    assert len(listing) == len(files)  # scenarios/plans holds lesson plans, not scenarios
    for entry in listing:
        title = entry["title"]
        for lang in ("en", "zh"):
            assert title[lang].strip() and title[lang] != entry["name"], (entry["name"], lang)
        assert CJK.search(title["zh"]), f"{entry['name']}: the Chinese title is Chinese"


def test_every_built_in_scenario_description_ends_with_a_whole_sentence() -> None:
    from webapp.sessions.catalog import ScenarioCatalog

    for entry in ScenarioCatalog(ROOT / "scenarios").listing():
        for lang, text in entry["description"].items():
            assert text.strip()[-1] in '.。!！?？)）…”"', (entry["name"], lang, text[-60:])


def test_a_manifest_comment_gives_the_title_and_keeps_it_out_of_the_description() -> None:
    from webapp.manifest.scenario import comment_description, comment_title

    text = "# title: A Pod\n# zh-title: 一个 Pod\n# It runs.\n# zh: 它在运行。\napiVersion: v1\n"
    assert comment_title(text) == {"en": "A Pod", "zh": "一个 Pod"}
    assert comment_description(text) == {"en": "It runs.", "zh": "它在运行。"}
    assert comment_title("# title: Only English\nkind: Pod\n") == {
        "en": "Only English",
        "zh": "Only English",
    }
    assert comment_title("# It runs.\n") == {}
