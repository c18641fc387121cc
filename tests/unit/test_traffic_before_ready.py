"""The rolling-update headline (issue 20): requests made before any Pod was Ready are the
Service not serving yet, not failures of the run or of a rollout. The cluster payload
says how many there were (`traffic.beforeReady`), and the page subtracts them
(static/js/cluster.js trafficHeadline, tests/js/cluster.test.mjs)."""

from __future__ import annotations

from pathlib import Path

from webapp.engine import Simulation
from webapp.sessions.views import cluster_state

ROOT = Path(__file__).resolve().parents[2]


def test_requests_before_any_pod_was_ready_are_counted_apart() -> None:
    sim = Simulation.from_yaml((ROOT / "scenarios/workloads/rolling-update.yaml").read_text())
    sim.advance(5)
    early = cluster_state(sim)["traffic"]
    assert early["beforeReady"] == early["sent"] == early["failed"] == early["noEndpoints"] > 0
    sim.advance(75)
    traffic = cluster_state(sim)["traffic"]
    before = traffic["beforeReady"]
    assert before == traffic["noEndpoints"], "every no-endpoint request came before a Pod was Ready"
    assert before < traffic["sent"]
    rollout = traffic["rollouts"][-1]
    assert rollout["revision"] == 2 and 0 < rollout["failed"] == traffic["failed"] - before
    assert sim.traffic()["sent"] == traffic["sent"], "the engine's totals are unchanged"
    assert "beforeReady" not in sim.traffic()
