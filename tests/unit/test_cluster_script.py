"""A scripted action of a workload scenario that no longer applies when its time comes is
shown as a ``script`` transition (as a Pod scenario shows it), never skipped in silence."""

from __future__ import annotations

from webapp.engine import Simulation

SCENARIO = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: nginx, image: "nginx:1.27"}
---
apiVersion: playground/v1
kind: Simulation
metadata: {name: t}
script:
- {at: 5, action: delete, name: web-gone-12345}
- {at: 6, action: rollout-undo, name: web}
- {at: 7, action: rollout-resume, name: web}
- {at: 8, action: scale, name: web, replicas: 2}
"""


def skipped(sim) -> list[tuple[float, str, str]]:
    return [(t["t"], t["object"], t["cause"]) for t in sim.transitions if t["field"] == "script"]


def test_actions_that_no_longer_apply_are_recorded_on_the_focus_pod() -> None:
    sim = Simulation.from_yaml(SCENARIO)
    sim.advance(10)
    assert skipped(sim) == [
        (5.0, "Pod/web-gone-12345",
         'Scripted delete at 5s did not apply: pods "web-gone-12345" not found'),
        (6.0, "Deployment/web", "Scripted rollout-undo at 6s did not apply: "
         'error: no rollout history found for deployment "web"'),
        (7.0, "Deployment/web",
         'Scripted rollout-resume at 7s did not apply: error: deployments.apps "web" is not paused'),
    ]  # fmt: skip
    assert sim.objects("Deployment")[0]["spec"]["replicas"] == 2  # the one that applied ran
    assert all(t["after"] == "skipped" for t in sim.transitions if t["field"] == "script")


def test_a_skipped_delete_of_a_pod_that_ran_is_shown_on_that_pod() -> None:
    text = SCENARIO.split("script:")[0] + "script:\n- {at: 5, action: delete, name: NAME}\n"
    first = Simulation.from_yaml(text.replace("NAME", "x"))
    first.advance(1)
    (name,) = first.runs
    # the same seed names the Pod the same: delete it twice, the second finds it gone
    text = text.replace("NAME", name) + f"- {{at: 9, action: delete, name: {name}}}\n"
    sim = Simulation.from_yaml(text)
    sim.advance(12)
    assert [(t, o) for t, o, _ in skipped(sim)] == [(9.0, f"Pod/{name}")]
    assert sim.runs[name].pod_removed
    assert [t["field"] for t in sim.runs[name].transitions].count("script") == 1
