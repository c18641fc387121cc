"""Where transitions go (stage / step), back-off ``seconds``, and the container behind a
Pod-level transition (docs/internals.md "A transition")."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.engine_support import pod_yaml, scenario, simulate, simulation_doc, transitions
from webapp.engine import Simulation
from webapp.engine.core.timefmt import go_duration

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))


def played(path: Path, seconds: float = 400) -> Simulation:
    sim = Simulation.from_yaml(path.read_text(encoding="utf-8"), seed=0)
    sim.advance(seconds)
    return sim


def kinds(sim: Simulation) -> dict[str, str]:
    return {r.name: r.kind for r in sim.kubelet.records} if sim.kubelet else {}


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_init_containers_and_sidecars_live_in_stage_2(path: Path):
    sim = played(path)
    kind_of = kinds(sim)
    for tr in sim.transitions:
        kind = kind_of.get(tr["container"] or "", "app")
        if not tr["object"].startswith("Container/") or kind == "app":
            continue
        if tr["stage"] in (1, 5):
            assert tr["stage"] == 1 or kind == "sidecar" or sim.deletion_ms is not None, tr
            continue
        assert (tr["stage"], tr["step"]) == (2, kind), tr


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_app_container_exits_and_backoffs_stay_in_stage_4(path: Path):
    sim = played(path)
    kind_of = kinds(sim)
    for tr in sim.transitions:
        if kind_of.get(tr["container"] or "", "app") != "app" or tr["stage"] == 5:
            continue
        if tr["field"] == "runtime" and tr["after"] == "exited":
            assert (tr["stage"], tr["step"]) == (4, "exit"), tr
        if isinstance(tr["after"], dict) and tr["after"]["reason"] == "CrashLoopBackOff":
            assert (tr["stage"], tr["step"]) == (4, "backoff"), tr
        if isinstance(tr["after"], dict) and tr["after"]["reason"] == "ImagePullBackOff":
            assert (tr["stage"], tr["step"]) == (1, "pull"), tr


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_seconds_only_where_a_back_off_wait_starts(path: Path):
    for tr in played(path).transitions:
        reason = tr["after"].get("reason") if isinstance(tr["after"], dict) else None
        starts_wait = reason in ("CrashLoopBackOff", "ImagePullBackOff") or (
            tr["field"] == "image" and tr["after"] == "failed"
        )
        assert ("seconds" in tr) == starts_wait, tr
        if reason == "CrashLoopBackOff":
            assert f"back-off {go_duration(round(tr['seconds'] * 1000))} " in tr["cause"], tr


def test_crash_loop_seconds_double_from_10():
    sim = played(ROOT / "scenarios" / "crash-loop-backoff.yaml")
    waits = [t["seconds"] for t in transitions(sim, step="backoff", field="state")]
    assert waits == [10, 20, 40, 80, 160, 300]


def test_image_pull_seconds_are_the_image_back_off():
    sim = played(ROOT / "scenarios" / "image-pull-backoff.yaml", 60)
    failed = transitions(sim, field="image", after="failed")
    assert [t["seconds"] for t in failed] == [10, 20, 40]
    pulls = [t["t"] for t in transitions(sim, field="image", after="pulling")]
    assert [b - a["t"] for a, b in zip(failed, pulls[1:], strict=False)] == [10, 20]


SIDECAR_WITH_PROBES = scenario(
    simulation_doc("""
        containers:
          shipper: {sigtermSeconds: 0}
        """),
    pod_yaml(
        """
        - name: app
          image: nginx:1.27
        """,
        init="""
        - name: shipper
          image: busybox:1.36
          command: [sleep, infinity]
          restartPolicy: Always
          startupProbe: {exec: {command: ["true"]}, periodSeconds: 1}
          readinessProbe: {exec: {command: ["true"]}, periodSeconds: 5}
          livenessProbe: {exec: {command: ["true"]}, periodSeconds: 5}
          lifecycle: {postStart: {exec: {command: ["true"]}}}
        """,
    ),
)


def test_sidecar_probes_hooks_and_readiness_are_stage_2():
    sim = simulate(SIDECAR_WITH_PROBES, 30)
    mine = [t for t in sim.transitions if t["object"] == "Container/shipper"]
    fields = {t["field"] for t in mine}
    assert {
        "probe.startup",
        "probe.readiness",
        "probe.liveness",
        "hook.postStart",
        "ready",
    } <= fields
    for tr in mine:
        if tr["step"] != "pull":
            assert (tr["stage"], tr["step"]) == (2, "sidecar"), tr


def test_sidecar_stop_on_delete_is_stage_5():
    sim = simulate(SIDECAR_WITH_PROBES, 20)
    sim.act({"action": "delete"})
    sim.advance(40)
    stops = transitions(sim, container="shipper", field="signal")
    assert stops and all(t["stage"] == 5 and t["step"] == "sigterm" for t in stops)


def test_pod_conditions_name_the_container_that_flipped_them():
    sim = played(ROOT / "scenarios" / "crash-loop-backoff.yaml", 30)
    later = [t for t in sim.transitions if t["field"].startswith("conditions.") and t["t"] > 2]
    assert later and all(t["container"] == "app" for t in later if "Ready" in t["field"])
    first = [t for t in sim.transitions if t["field"].startswith("conditions.") and t["t"] == 0]
    assert first and all(t["container"] is None for t in first), "a first status has no cause"


def test_initialized_names_the_last_init_container():
    sim = played(ROOT / "scenarios" / "init-containers.yaml", 60)
    (done,) = transitions(sim, field="conditions.Initialized", after="True")
    assert done["container"] == "write-page"


def test_endpoints_follow_the_container_whose_readiness_changed():
    sim = played(ROOT / "scenarios" / "readiness-endpoints.yaml")
    ready = [t for t in sim.transitions if t["field"].startswith("endpoints.") and t["stage"] == 4]
    named = [t for t in ready if t["container"]]
    assert named, ready
    assert {t["container"] for t in named} == {"app"}


def test_no_single_cause_stays_null():
    sim = played(ROOT / "scenarios" / "sidecar.yaml", 60)
    # Deletion: the app and the sidecar turn not ready together.
    (ready,) = transitions(sim, field="conditions.Ready", after="False", stage=5)
    assert ready["container"] is None
    lost = played(ROOT / "scenarios" / "node-lost.yaml", 120)
    marked = [
        t for t in transitions(lost, field="conditions.Ready") if t["object"].startswith("Pod/")
    ]
    assert marked[-1]["container"] is None, "MarkPodsNotReady: the node, not a container"
    slices = played(ROOT / "scenarios" / "graceful-shutdown-prestop.yaml", 90)
    assert all(
        t["container"] is None
        for t in slices.transitions
        if t["field"].startswith("endpoints.") and t["stage"] == 5 and "terminating" in t["field"]
    )


def test_ready_without_a_readiness_probe_is_not_a_probe_step():
    # crash-loop-backoff has no readiness probe: READY follows the process, so the diagram
    # must not light (or fail) a readiness probe box.
    sim = played(ROOT / "scenarios" / "crash-loop-backoff.yaml", 60)
    flips = [
        t
        for t in sim.transitions
        if t["field"] in ("ready", "conditions.Ready", "conditions.ContainersReady")
        and t["container"] == "app"
    ]
    assert flips and all(t["step"] == "running" for t in flips), flips


def test_ready_with_a_readiness_probe_is_the_readiness_step():
    sim = played(ROOT / "scenarios" / "readiness-endpoints.yaml", 120)
    flips = transitions(sim, field="ready", container="app")
    assert flips and all(t["step"] == "readiness" for t in flips), flips


@pytest.mark.parametrize("name", ["job-succeeds", "job-fails"])
def test_nothing_after_the_outcome_points_back_to_an_earlier_stage(name: str):
    # The sandbox torn down after the end (PodReadyToStartContainers False) belongs to the
    # outcome, so the page's "where the Pod is now" does not jump back to stage 1.
    sim = played(ROOT / "scenarios" / f"{name}.yaml", 120)
    (end,) = [t for t in sim.transitions if t["field"] == "phase" and t["step"] == "outcome"]
    after = [t for t in sim.transitions if t["seq"] > end["seq"] and t["object"].startswith("Pod/")]
    assert after, "the kubelet tears the sandbox down after the end"
    assert all(t["stage"] == 5 for t in after), after
