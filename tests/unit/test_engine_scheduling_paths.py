"""Scheduling paths the documentation shows: scheduling gates, ``spec.nodeName``.

| test                                      | documented behaviour                                         |
|-------------------------------------------|--------------------------------------------------------------|
| test_scheduling_gates_hold_the_pod        | Pod Scheduling Readiness: STATUS SchedulingGated, no events   |
| test_removing_gates_lets_it_schedule      | gates may be removed by an update; then the Pod schedules     |
| test_adding_a_gate_is_forbidden           | only deletion is allowed                                      |
| test_node_name_bypasses_the_scheduler     | Assign Pods to Nodes, nodeName: no Scheduled event            |
| test_kubelet_rejects_a_pod_that_does_not_fit | OutOfcpu / OutOfmemory, phase Failed, Pod was rejected     |
| test_unknown_node_name_stays_pending_until_pod_gc | Pending, then PodGC marks it Failed and removes it    |
"""

from __future__ import annotations

import textwrap

import pytest

from tests.unit.engine_support import events, simulate, transitions
from webapp.engine import ActionError, ScenarioError
from webapp.engine.scheduler import default_nodes
from webapp.kubectl import pod_columns
from webapp.manifest.simulation_doc import DEFAULT_NODE_NAMES

GATED = textwrap.dedent("""\
    apiVersion: v1
    kind: Pod
    metadata:
      name: test-pod
    spec:
      schedulingGates:
      - name: example.com/foo
      - name: example.com/bar
      containers:
      - name: pause
        image: registry.k8s.io/pause:3.6
    """)


def status_column(sim) -> str:
    return pod_columns(sim.pod(), sim.wall_time())["STATUS"]


def test_scheduling_gates_hold_the_pod() -> None:
    sim = simulate(GATED, 7)
    assert pod_columns(sim.pod(), sim.wall_time()) == {
        "NAME": "test-pod", "READY": "0/1", "STATUS": "SchedulingGated", "RESTARTS": "0", "AGE": "7s",
    }  # fmt: skip
    (condition,) = sim.pod()["status"]["conditions"]
    assert (condition["type"], condition["status"], condition["reason"], condition["message"]) == (
        "PodScheduled", "False", "SchedulingGated", "Scheduling is blocked due to non-empty scheduling gates",
    )  # fmt: skip
    sim.advance(600)
    assert events(sim) == []  # no FailedScheduling for a gated Pod
    assert sim.pod()["status"]["phase"] == "Pending"


def test_removing_gates_lets_it_schedule() -> None:
    sim = simulate(GATED, 10)
    sim.act({"action": "apply", "yaml": GATED.replace("  - name: example.com/bar\n", "")})
    sim.advance(5)
    assert status_column(sim) == "SchedulingGated"
    sim.act({"action": "apply", "yaml": GATED.replace(
        "  schedulingGates:\n  - name: example.com/foo\n  - name: example.com/bar\n", "")})  # fmt: skip
    sim.advance(10)
    assert status_column(sim) == "Running"
    assert events(sim)[0]["reason"] == "Scheduled"


def test_adding_a_gate_is_forbidden() -> None:
    sim = simulate(GATED, 5)
    with pytest.raises(ActionError) as caught:
        sim.act({"action": "apply", "yaml": GATED.replace("example.com/bar", "example.com/baz")})
    assert caught.value.message == (
        'Pod "test-pod" is invalid: spec.schedulingGates[1].name: Forbidden: only deletion is '
        "allowed, but found new scheduling gate 'example.com/baz'"
    )


def test_node_name_and_gates_cannot_come_together() -> None:
    with pytest.raises(ScenarioError) as caught:
        simulate(GATED.replace("spec:\n", "spec:\n  nodeName: node-1\n"))
    (error,) = caught.value.errors
    assert (error["path"], error["code"]) == ("spec.nodeName", "node_name_gated")


NODE_NAME = textwrap.dedent("""\
    apiVersion: v1
    kind: Pod
    metadata:
      name: nginx
    spec:
      nodeName: {node}
      containers:
      - name: nginx
        image: nginx
    """)


def test_node_name_bypasses_the_scheduler() -> None:
    sim = simulate(NODE_NAME.format(node="node-2"), 30)
    assert status_column(sim) == "Running"
    assert events(sim, "Scheduled") == [] and events(sim, "FailedScheduling") == []
    assert {e["source"].get("host") for e in events(sim)} == {"node-2"}
    scheduled = next(c for c in sim.pod()["status"]["conditions"] if c["type"] == "PodScheduled")
    assert scheduled["status"] == "True"


@pytest.mark.parametrize(
    ("requests", "reason", "message"),
    [
        ('cpu: "4"', "OutOfcpu", "Node didn't have enough resource: cpu, requested: 4000, used: 0, capacity: 2000"),
        ("memory: 8Gi", "OutOfmemory",
         "Node didn't have enough resource: memory, requested: 8589934592, used: 0, capacity: 4294967296"),
    ],
)  # fmt: skip
def test_kubelet_rejects_a_pod_that_does_not_fit(requests: str, reason: str, message: str) -> None:
    text = (
        NODE_NAME.format(node="node-2") + f"    resources:\n      requests:\n        {requests}\n"
    )
    sim = simulate(text, 30)
    status = sim.pod()["status"]
    assert (status["phase"], status["reason"], status["message"]) == (
        "Failed",
        reason,
        f"Pod was rejected: {message}",
    )
    assert "conditions" not in status and "startTime" not in status
    (event,) = events(sim)
    assert (event["type"], event["reason"], event["message"]) == ("Warning", reason, message)
    assert event["source"] == {"component": "kubelet", "host": "node-2"}
    assert status_column(sim) == reason
    assert transitions(sim, field="runtime") == []  # nothing ever started


def test_unknown_node_name_stays_pending_until_pod_gc() -> None:
    sim = simulate(NODE_NAME.format(node="kube-01"), 50)
    assert status_column(sim) == "Pending"
    assert sim.pod()["status"] == {"phase": "Pending", "qosClass": "BestEffort"}
    assert events(sim) == []
    sim.advance(30)
    assert sim.pod() is None
    last = sim.pod_versions[-1][2]["status"]
    assert last["phase"] == "Failed"
    (condition,) = last["conditions"]
    assert (condition["type"], condition["reason"], condition["message"]) == (
        "DisruptionTarget", "DeletionByPodGC", "PodGC: node no longer exists",
    )  # fmt: skip
    assert transitions(sim, field="exists")[0]["t"] == 60.0


def test_a_node_that_appears_takes_the_pod() -> None:
    node = "apiVersion: v1\nkind: Node\nmetadata: {name: kube-01}\nstatus:\n  allocatable: {cpu: '2', memory: 4Gi, pods: '110'}\n  capacity: {cpu: '2', memory: 4Gi, pods: '110'}\n"
    sim = simulate(NODE_NAME.format(node="kube-01"), 10)
    sim.act({"action": "apply", "yaml": node})
    sim.advance(20)
    assert status_column(sim) == "Running"


def test_default_node_names_agree() -> None:
    assert tuple(n["metadata"]["name"] for n in default_nodes()) == DEFAULT_NODE_NAMES
