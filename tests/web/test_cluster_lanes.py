"""`cluster.lanes`, `cluster.rollouts`, `cluster.scales` and `cluster.milestones`: the
timeline's history of every Pod and of the workloads (webapp/sessions/lanes.py), read from
the run's watch of every Pod and its Deployment versions, and bounded."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from webapp.engine import Simulation
from webapp.engine.core.timefmt import wall_time
from webapp.sessions import lanes as lanes_module
from webapp.sessions.lanes import ClusterLanes
from webapp.sessions.views import StateCache

ROOT = Path(__file__).resolve().parents[2]


def cluster_at(name: str, seconds: float) -> dict[str, Any]:
    sim = Simulation.from_yaml((ROOT / "scenarios" / "workloads" / f"{name}.yaml").read_text())
    cache = StateCache(sim)
    cache.refresh()
    sim.advance(seconds)
    cache.refresh()
    assert cache.cluster is not None
    return cache.cluster


def statuses_of(lanes: dict[str, Any], pod: dict[str, Any]) -> list[str]:
    return [lanes["statuses"][i] if i >= 0 else "" for i in pod["s"][1::2]]


def test_a_rolling_update_keeps_a_lane_for_every_pod_and_marks_the_rollout() -> None:
    cluster = cluster_at("rolling-update", 120)
    lanes = cluster["lanes"]
    pods = lanes["pods"]
    # three old Pods, gone, and three new ones: one lane each, in creation order
    assert len(pods) == 6
    assert [p["owner"].split("/")[0] for p in pods] == ["ReplicaSet"] * 6
    old = [p for p in pods if p["to"] is not None]
    new = [p for p in pods if p["to"] is None]
    assert len(old) == 3 and len(new) == 3
    live = {p["name"] for p in cluster["pods"]}
    assert {p["name"] for p in new} == live
    for pod in old:
        # Pending and ContainerCreating at the same instant: one segment, the last status
        assert statuses_of(lanes, pod)[:2] == ["ContainerCreating", "Running"]
        assert len(pod["d"]) == 1 and pod["d"][0] <= pod["to"]  # its deletion is marked
        assert pod["s"][-2] <= pod["to"]
    for pod in new:
        assert statuses_of(lanes, pod)[-1] == "Running"
        assert pod["from"] >= 30  # made by the rollout at 30 s
    # segments: times rising, no status twice in a row
    for pod in pods:
        times, states = pod["s"][0::2], pod["s"][1::2]
        assert times == sorted(times) and len(set(times)) == len(times)
        assert all(a != b for a, b in itertools.pairwise(states))
    first, second = cluster["rollouts"]
    assert (first["revision"], first["from"], first["result"]) == (1, 0.0, "complete")
    assert (second["revision"], second["from"], second["result"]) == (2, 30.0, "complete")
    # done when the last old Pod went and the new ones were available
    assert second["to"] == max(p["to"] for p in old)
    assert cluster["scales"] == [] and cluster["milestones"] == []


def test_a_stuck_rollout_fails_at_its_deadline_and_undo_starts_another() -> None:
    cluster = cluster_at("deployment-bad-image-undo", 300)
    revisions = [(r["revision"], r["result"]) for r in cluster["rollouts"]]
    assert revisions == [(1, "complete"), (2, "failed"), (3, "complete")]
    lanes = cluster["lanes"]
    bad = next(p for p in lanes["pods"] if "ImagePullBackOff" in statuses_of(lanes, p))
    assert bad["to"] == 150.0 and bad["d"] == [150.0]  # the undo deleted it


def test_scale_events_and_job_milestones() -> None:
    scales = cluster_at("deployment-scale", 120)["scales"]
    assert [(s["name"], s["t"], s["from"], s["replicas"]) for s in scales] == [
        ("web", 30.0, 3, 1),
        ("web", 60.0, 1, 5),
    ]
    job = cluster_at("job-never-backoff-limit", 300)
    assert [(m["name"], m["type"], m["reason"]) for m in job["milestones"]] == [
        ("flaky", "Failed", "BackoffLimitExceeded")
    ]
    assert len(job["lanes"]["pods"]) == 3  # Never: a new Pod per failure, each its lane


def test_restarts_are_marked() -> None:
    lanes = cluster_at("deployment-crash-loop", 600)["lanes"]
    for pod in lanes["pods"]:
        assert len(pod["r"]) >= 3
        assert "CrashLoopBackOff" in statuses_of(lanes, pod)


def _pod(name: str, phase: str, restarts: int = 0, deleting: bool = False) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "ownerReferences": [
        {"kind": "Job", "name": "many", "controller": True}]}  # fmt: skip
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"metadata": meta, "spec": {"containers": [{"name": "app"}]},
            "status": {"phase": phase, "containerStatuses": [
                {"name": "app", "restartCount": restarts, "ready": False,
                 "state": {"running": {}} if phase == "Running" else {"waiting": {"reason": "X"}}}]}}  # fmt: skip


class FakeRun:
    def __init__(self) -> None:
        self.watch_versions: list[tuple[float, str, dict[str, Any]]] = []
        self.deployment_versions: dict[str, list] = {}

    def wall_time(self, t: float | None = None) -> Any:
        return wall_time(int((t or 0) * 1000))


def test_lanes_are_bounded() -> None:
    run = FakeRun()
    reader = ClusterLanes()
    # far more gone Pods than MAX_LANES: the oldest gone lanes go first, counted
    total = lanes_module.MAX_LANES + 30
    for i in range(total):
        run.watch_versions += [(i, "ADDED", _pod(f"p{i}", "Running")),
                               (i + 0.5, "DELETED", _pod(f"p{i}", "Running"))]  # fmt: skip
    run.watch_versions.append((total, "ADDED", _pod("live", "Running")))
    out = reader.lanes(run)
    assert len(out["pods"]) == lanes_module.MAX_LANES
    assert out["dropped"] == total + 1 - lanes_module.MAX_LANES
    assert out["pods"][-1]["name"] == "live" and out["pods"][0]["name"] == "p31"
    # a Pod that changes status very often keeps its last segments and says where they start
    for i in range(200):
        phase = "Running" if i % 2 else "Pending"
        run.watch_versions.append((total + 1 + i, "MODIFIED", _pod("live", phase, restarts=i)))
    out = reader.lanes(run)
    live = out["pods"][-1]
    # 150 lanes share the budget: a few segments and marks each
    lanes_count = lanes_module.MAX_LANES
    share = max(lanes_module.MIN_SEGMENTS, lanes_module.TOTAL_SEGMENTS // lanes_count)
    assert len(live["s"]) == 2 * share
    assert live["cut"] == live["s"][0] == total + 1 + 200 - share
    assert len(live["r"]) == max(lanes_module.MIN_MARKS, lanes_module.TOTAL_MARKS // lanes_count)
    assert live["r"][-1] == total + 200
    assert len(json.dumps(out)) < 40_000
    # alone, a lane keeps up to MAX_SEGMENTS and MAX_MARKS
    alone = FakeRun()
    alone.watch_versions = [(t, kind, pod) for t, kind, pod in run.watch_versions
                            if pod["metadata"]["name"] == "live"]  # fmt: skip
    (lane,) = ClusterLanes().lanes(alone)["pods"]
    assert len(lane["s"]) == 2 * lanes_module.MAX_SEGMENTS
    assert lane["cut"] == lane["s"][0]
    assert len(lane["r"]) == lanes_module.MAX_MARKS


def test_a_name_used_again_continues_its_lane_after_a_gap() -> None:
    run = FakeRun()
    run.watch_versions += [
        (0, "ADDED", _pod("web-0", "Running")),
        (5, "MODIFIED", _pod("web-0", "Running", deleting=True)),
        (6, "DELETED", _pod("web-0", "Running", deleting=True)),
        (9, "ADDED", _pod("web-0", "Pending")),
    ]
    out = ClusterLanes().lanes(run)
    (lane,) = out["pods"]
    assert lane["to"] is None and lane["d"] == [5]
    assert lane["s"][0::2] == [0, 5, 6, 9]
    assert statuses_of(out, lane) == ["Running", "Terminating", "", "X"]  # waiting: X


def test_a_pod_scenario_has_no_cluster() -> None:
    sim = Simulation.from_yaml((ROOT / "scenarios" / "plain-pod.yaml").read_text())
    cache = StateCache(sim)
    cache.refresh()
    assert "cluster" not in cache.state()
