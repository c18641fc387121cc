"""Golden traces of the workload scenarios (scenarios/workloads/): controller and kubelet
Events, `kubectl get deploy,rs,pods,endpointslices` at the end, the traffic counts, and each
Pod's transitions. Regenerate on purpose only:

    REGEN_GOLDEN=1 python -m pytest -q tests/unit/test_workload_golden.py -p no:playwright
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from webapp.engine import Simulation
from webapp.kubectl import pod_columns
from webapp.kubectl.workloads import (
    get_deployments,
    get_endpointslices,
    get_jobs,
    get_pdbs,
    get_replicasets,
    get_statefulsets,
)

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden" / "workloads"
SCENARIOS = sorted((ROOT / "scenarios" / "workloads").glob("*.yaml"))
SECONDS = 200


def golden_trace(text: str) -> dict:
    sim = Simulation.from_yaml(text, seed=0)
    sim.advance(SECONDS)
    now = sim.wall_time()
    trace = sim.trace()
    return {
        "seconds": SECONDS,
        "get": {
            "deployments": get_deployments(sim.objects("Deployment"), now),
            "replicasets": get_replicasets(sim.objects("ReplicaSet"), now),
            "pods": [pod_columns(p, now) for p in sim.objects("Pod")],
            "endpointslices": get_endpointslices(sim.objects("EndpointSlice"), now),
            "jobs": get_jobs(sim.objects("Job"), now),
            "statefulsets": get_statefulsets(sim.objects("StatefulSet"), now),
            "pdbs": get_pdbs(sim.objects("PodDisruptionBudget"), now),
            "drains": {node: run.lines for node, run in sim.drains.items()},
        },
        "events": [
            {
                "object": f"{e['involvedObject']['kind']}/{e['involvedObject']['name']}",
                **{k: e[k] for k in ("type", "reason", "message", "count", "firstTimestamp")},
            }
            for e in trace["events"]
        ],
        "traffic": trace["traffic"],
        "pods": {name: entry["transitions"] for name, entry in trace["pods"].items()},
    }


def dumps(value: dict) -> str:
    return json.dumps(value, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_workload_golden_trace(path: Path) -> None:
    actual = dumps(golden_trace(path.read_text(encoding="utf-8")))
    golden = GOLDEN / f"{path.stem}.json"
    if os.environ.get("REGEN_GOLDEN") == "1":
        GOLDEN.mkdir(parents=True, exist_ok=True)
        golden.write_text(actual, encoding="utf-8")
        return
    assert golden.exists(), f"no golden trace for {path.name}; run with REGEN_GOLDEN=1"
    assert actual == golden.read_text(encoding="utf-8"), f"{path.stem}: trace differs"


def test_the_traffic_lessons_show_what_they_promise() -> None:
    """Without preStop the rollout drops requests; with the preStop sleep none (only the
    first seconds before any Pod is Ready have no endpoints in both)."""
    plain = golden_trace((ROOT / "scenarios/workloads/rolling-update.yaml").read_text())
    slept = golden_trace((ROOT / "scenarios/workloads/rolling-update-prestop.yaml").read_text())
    assert plain["traffic"]["failed"] > plain["traffic"]["noEndpoints"]
    assert slept["traffic"]["failed"] == slept["traffic"]["noEndpoints"]


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_a_workload_run_is_the_same_forward_sliced_and_replayed(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    forward = Simulation.from_yaml(text)
    forward.advance(40)
    forward.advance(80)
    replayed = Simulation.replay(forward.scenario, forward.actions, 120)
    assert dumps(forward.trace()) == dumps(replayed.trace())


def test_min_ready_seconds_slows_the_rollout_down() -> None:
    def last_scaling(name: str) -> str:
        sim = Simulation.from_yaml((ROOT / f"scenarios/workloads/{name}.yaml").read_text())
        sim.advance(SECONDS)
        return [e["lastTimestamp"] for e in sim.events() if e["reason"] == "ScalingReplicaSet"][-1]

    assert last_scaling("rolling-update-min-ready") > last_scaling("rolling-update-prestop")
