"""The Pod condition DisruptionTarget as Kubernetes sets it before an eviction's delete,
and Job podFailurePolicy rules on it.

- The Eviction API (``pkg/registry/core/pod/storage/eviction.go`` addConditionAndDeletePod):
  status True, reason ``EvictionByEvictionAPI``, message ``Eviction API: evicting``; also
  for a terminal, Pending or deleted Pod (the PDB check is skipped, the condition is not).
- The taint-eviction controller (``pkg/controller/tainteviction/taint_eviction.go``
  addConditionAndDeletePod): reason ``DeletionByTaintManager``, message ``Taint manager:
  deleting due to NoExecute taint``, once the toleration of the unreachable taint ran out.
- ``podutil.UpdatePodCondition``: a new type is appended; the transition time is kept while
  the status does not change.
"""

from __future__ import annotations

import pytest

from webapp.engine import Simulation
from webapp.engine.api.podutil import update_pod_condition
from webapp.engine.controllers.rules import disruption

NODES = """\
apiVersion: v1
kind: Node
metadata: {name: node-1}
---
apiVersion: v1
kind: Node
metadata: {name: node-2}
---
"""
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: nginx, image: "nginx:1.27"}
---
"""
JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: work}
spec:
  backoffLimit: 0
  podFailurePolicy:
    rules:
    - action: ACTION
      onPodConditions:
      - type: DisruptionTarget
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: work
        image: busybox:1.36
        command: ["sh", "-c", "trap 'exit 143' TERM; sleep 60 & wait"]
---
"""


def script(*actions: str) -> str:
    lines = "".join(f"- {action}\n" for action in actions)
    return f"apiVersion: playground/v1\nkind: Simulation\nmetadata: {{name: t}}\nscript:\n{lines}"


def disruption_target(pod: dict) -> dict | None:
    for condition in pod["status"].get("conditions") or []:
        if condition["type"] == "DisruptionTarget":
            return condition
    return None


def versions_of(sim, name: str) -> list[tuple[float, str, dict]]:
    return [
        (t, kind, pod) for t, kind, pod in sim.watch_versions if pod["metadata"]["name"] == name
    ]


# -- UpdatePodCondition ---------------------------------------------------------------


CONDITION = {"type": "DisruptionTarget", "status": "True", "reason": "R", "message": "M"}


@pytest.mark.parametrize(
    ("before", "condition", "changed", "time"),
    [
        ([], CONDITION, True, "now"),  # a new type is appended
        ([dict(CONDITION, lastProbeTime=None, lastTransitionTime="then")], CONDITION, False, "then"),
        ([dict(CONDITION, lastProbeTime=None, lastTransitionTime="then")],
         dict(CONDITION, message="other"), True, "then"),  # same status: time kept
        ([dict(CONDITION, status="False", lastProbeTime=None, lastTransitionTime="then")],
         CONDITION, True, "now"),  # the status changed
    ],
)  # fmt: skip
def test_update_pod_condition(before, condition, changed, time) -> None:
    ready = {"type": "Ready", "status": "True"}
    updated, was_changed = update_pod_condition([ready, *before], condition, "now")
    assert was_changed is changed
    assert updated[0] == ready and updated[-1]["type"] == "DisruptionTarget"
    assert updated[-1]["lastTransitionTime"] == time
    assert (updated[-1]["message"], len(updated)) == (condition["message"], 2)


# -- the Eviction API -----------------------------------------------------------------


def test_eviction_of_a_terminal_pod_skips_the_budget_but_not_the_condition() -> None:
    pod = {"metadata": {"name": "p", "labels": {"app": "web"}}, "status": {"phase": "Succeeded"}}
    budget = {"metadata": {"name": "b", "generation": 1},
              "spec": {"selector": {"matchLabels": {"app": "web"}}},
              "status": {"observedGeneration": 1, "disruptionsAllowed": 0}}  # fmt: skip
    result = disruption.evict(pod, [budget], now=5)
    assert result.allowed and result.pdb_status is None
    assert (result.condition["reason"], result.condition["message"]) == (
        "EvictionByEvictionAPI", "Eviction API: evicting"
    )  # fmt: skip


def test_drain_marks_each_evicted_pod_before_deleting_it() -> None:
    sim = Simulation.from_yaml(NODES + DEPLOYMENT + script("{at: 10, action: drain, node: node-1}"))
    sim.advance(12)
    (name,) = [n for n, run in sim.runs.items() if run.node_name == "node-1"]
    versions = versions_of(sim, name)
    marked = next(i for i, (_t, _k, pod) in enumerate(versions) if disruption_target(pod))
    t, kind, pod = versions[marked]
    assert (t, kind) == (10.0, "MODIFIED")
    assert "deletionTimestamp" not in pod["metadata"]  # patched first, deleted next
    assert "deletionTimestamp" in versions[marked + 1][2]["metadata"]
    assert disruption_target(pod) == {
        "type": "DisruptionTarget", "status": "True", "lastProbeTime": None,
        "lastTransitionTime": "2026-01-01T00:00:10Z", "reason": "EvictionByEvictionAPI",
        "message": "Eviction API: evicting",
    }  # fmt: skip
    # the kubelet copies it into every status it writes while the Pod terminates
    assert all(disruption_target(p) for _t, _k, p in versions[marked:])
    others = [n for n, run in sim.runs.items() if run.node_name != "node-1"]
    assert others and not any(disruption_target(sim.pod(n)) for n in others)


def test_the_taint_manager_marks_a_pod_it_deletes_after_its_toleration() -> None:
    sim = Simulation.from_yaml(
        NODES + DEPLOYMENT + script("{at: 10, action: node-down, node: node-1}")
    )
    sim.advance(5)
    (name,) = [n for n, run in sim.runs.items() if run.node_name == "node-1"]
    sim.advance(354)  # down at 10, NotReady at 60, toleration 300 s
    assert disruption_target(sim.pod(name)) is None
    sim.advance(2)
    condition = disruption_target(sim.pod(name))
    assert (condition["status"], condition["reason"], condition["message"]) == (
        "True", "DeletionByTaintManager", "Taint manager: deleting due to NoExecute taint"
    )  # fmt: skip
    assert condition["lastTransitionTime"] == "2026-01-01T00:06:00Z"
    assert "deletionTimestamp" in sim.pod(name)["metadata"]


# -- Job podFailurePolicy onPodConditions DisruptionTarget -------------------------------


def drained_job(action: str) -> Simulation:
    sim = Simulation.from_yaml(
        NODES + JOB.replace("ACTION", action) + script("{at: 10, action: drain, node: node-1}")
    )
    sim.advance(120)
    return sim


def job_conditions(sim) -> list[tuple[str, str, str]]:
    (job,) = sim.objects("Job")
    return [(c["type"], c["reason"], c.get("message", "")) for c in job["status"]["conditions"]]


def test_ignore_does_not_count_the_evicted_pod_and_replaces_it() -> None:
    sim = drained_job("Ignore")
    (job,) = sim.objects("Job")
    assert (job["status"]["failed"], job["status"]["succeeded"]) == (0, 1)
    assert job_conditions(sim)[-1][:2] == ("Complete", "CompletionsReached")
    assert len(sim.runs) == 2  # the evicted Pod and its replacement on node-2


def test_fail_job_fails_the_job_with_the_rules_message() -> None:
    sim = drained_job("FailJob")
    (evicted,) = sim.runs
    message = (
        f"Pod default/{evicted} has condition DisruptionTarget matching FailJob rule at index 0"
    )
    assert job_conditions(sim) == [
        ("FailureTarget", "PodFailurePolicy", message), ("Failed", "PodFailurePolicy", message)
    ]  # fmt: skip
    assert len(sim.runs) == 1


def test_count_counts_it_against_the_backoff_limit() -> None:
    sim = drained_job("Count")
    (job,) = sim.objects("Job")
    assert job["status"]["failed"] == 1
    assert job_conditions(sim)[-1][:2] == ("Failed", "BackoffLimitExceeded")


def test_a_deleted_job_pod_stays_until_its_tracking_finalizer_is_removed() -> None:
    sim = drained_job("Count")
    (evicted,) = sim.runs
    last = [pod for _t, kind, pod in versions_of(sim, evicted) if kind != "DELETED"][-1]
    assert last["status"]["phase"] == "Failed"  # the Job controller saw it fail ...
    assert "finalizers" not in last["metadata"]  # ... and released it: then it went
