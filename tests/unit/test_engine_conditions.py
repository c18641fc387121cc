"""Condition generators (pkg/kubelet/status/generate.go and generate_test.go), §2 and §1.7."""

from __future__ import annotations

import pytest

from webapp.engine.kubelet.conditions import (
    generate_containers_ready_condition,
    generate_pod_initialized_condition,
    generate_pod_ready_condition,
    generate_pod_ready_to_start_containers_condition,
    mark_pod_not_ready,
    pod_conditions,
)

T0, T1 = "2026-01-01T00:00:00Z", "2026-01-01T00:00:05Z"


def status(name: str, ready: bool = False, state: str = "running", started=None) -> dict:
    s = {"name": name, "ready": ready, "state": {state: {}}}
    if started is not None:
        s["started"] = started
    return s


def pod(containers=("a",), init=(), statuses=(), init_statuses=(), gates=(), conditions=()):
    def container(entry):
        if isinstance(entry, tuple):
            return {"name": entry[0], "restartPolicy": entry[1]}
        return {"name": entry}

    p = {
        "spec": {
            "initContainers": [container(c) for c in init],
            "containers": [container(c) for c in containers],
        },
        "status": {},
    }
    if gates:
        p["spec"]["readinessGates"] = [{"conditionType": g} for g in gates]
    if statuses:
        p["status"]["containerStatuses"] = list(statuses)
    if init_statuses:
        p["status"]["initContainerStatuses"] = list(init_statuses)
    if conditions:
        p["status"]["conditions"] = list(conditions)
    return p


def cond(type_, status_, reason=None, message=None):
    c = {"type": type_, "status": status_}
    if reason:
        c["reason"] = reason
    if message:
        c["message"] = message
    return c


@pytest.mark.parametrize(("sandbox_ready", "expected"), [(True, "True"), (False, "False")])
def test_pod_ready_to_start_containers(sandbox_ready, expected):
    condition = generate_pod_ready_to_start_containers_condition(sandbox_ready)
    assert condition == {"type": "PodReadyToStartContainers", "status": expected}


CR = "ContainersReady"
CONTAINERS_READY_CASES = [
    ("no statuses", pod(), "Running", cond(CR, "False", "UnknownContainerStatuses")),
    (
        "one unknown",
        pod(("a", "b"), statuses=[status("a", True)]),
        "Running",
        cond(CR, "False", "ContainersNotReady", "containers with unknown status: [b]"),
    ),
    (
        "one unready",
        pod(("a", "b"), statuses=[status("a", True), status("b")]),
        "Running",
        cond(CR, "False", "ContainersNotReady", "containers with unready status: [b]"),
    ),
    (
        "unknown and unready, unknown first",
        pod(("a", "b", "c"), statuses=[status("a"), status("c", True)]),
        "Pending",
        cond(
            CR,
            "False",
            "ContainersNotReady",
            "containers with unknown status: [b], containers with unready status: [a]",
        ),
    ),
    (
        "two unready listed with a space",
        pod(("a", "b"), statuses=[status("a"), status("b")]),
        "Running",
        cond(CR, "False", "ContainersNotReady", "containers with unready status: [a b]"),
    ),
    ("all ready", pod(("a",), statuses=[status("a", True)]), "Running", cond(CR, "True")),
    (
        "sidecar counts",
        pod(("a",), (("proxy", "Always"),), [status("a", True)], [status("proxy")]),
        "Running",
        cond(CR, "False", "ContainersNotReady", "containers with unready status: [proxy]"),
    ),
    (
        "sidecar ready too",
        pod(("a",), (("proxy", "Always"),), [status("a", True)], [status("proxy", True)]),
        "Running",
        cond(CR, "True"),
    ),
    (
        "regular init container does not count",
        pod(("a",), ("init",), [status("a", True)], [status("init", False, "terminated")]),
        "Running",
        cond(CR, "True"),
    ),
    (
        "succeeded, all known",
        pod(("a",), statuses=[status("a", False, "terminated")]),
        "Succeeded",
        cond(CR, "False", "PodCompleted"),
    ),
    (
        "succeeded with an unknown container is not completed",
        pod(("a", "b"), statuses=[status("a", False, "terminated")]),
        "Succeeded",
        cond(
            CR,
            "False",
            "ContainersNotReady",
            "containers with unknown status: [b], containers with unready status: [a]",
        ),
    ),
    (
        "failed",
        pod(("a",), statuses=[status("a", True)]),
        "Failed",
        cond(CR, "False", "PodFailed"),
    ),
]


@pytest.mark.parametrize(
    ("name", "api_pod", "phase", "expected"),
    CONTAINERS_READY_CASES,
    ids=[c[0] for c in CONTAINERS_READY_CASES],
)
def test_generate_containers_ready_condition(name, api_pod, phase, expected):
    assert generate_containers_ready_condition(api_pod, phase) == expected


INIT = "Initialized"
INITIALIZED_CASES = [
    ("no init containers, no statuses", pod(), "Pending", cond(INIT, "True")),
    (
        "init containers, no statuses",
        pod(init=("x",)),
        "Pending",
        cond(INIT, "False", "UnknownContainerStatuses"),
    ),
    (
        "init container running",
        pod(init=("x", "y"), init_statuses=[status("x")]),
        "Pending",
        cond(
            INIT,
            "False",
            "ContainersNotInitialized",
            "containers with unknown status: [y], containers with incomplete status: [x]",
        ),
    ),
    (
        "init container done (ready) but the next one is unknown",
        pod(init=("x", "y"), init_statuses=[status("x", True, "terminated")]),
        "Pending",
        cond(INIT, "False", "ContainersNotInitialized", "containers with unknown status: [y]"),
    ),
    (
        "all init containers ready",
        pod(
            init=("x",),
            init_statuses=[status("x", True, "terminated")],
            statuses=[status("a", False, "waiting")],
        ),
        "Pending",
        cond(INIT, "True"),
    ),
    (
        "sidecar running but not started",
        pod(init=(("s", "Always"),), init_statuses=[status("s", False, "running", False)]),
        "Pending",
        cond(INIT, "False", "ContainersNotInitialized", "containers with incomplete status: [s]"),
    ),
    (
        "sidecar started",
        pod(init=(("s", "Always"),), init_statuses=[status("s", False, "running", True)]),
        "Pending",
        cond(INIT, "True"),
    ),
    (
        "a regular container started: initialized even while the sidecar restarts",
        pod(
            init=(("s", "Always"),),
            init_statuses=[status("s", False, "waiting")],
            statuses=[status("a")],
        ),
        "Running",
        cond(INIT, "True"),
    ),
    (
        "succeeded with all init statuses known",
        pod(
            init=("x",),
            init_statuses=[status("x", False, "terminated")],
            statuses=[status("a", False, "terminated")],
        ),
        "Succeeded",
        cond(INIT, "True", "PodCompleted"),
    ),
    (
        "failed init container under Never",
        pod(init=("x",), init_statuses=[status("x", False, "terminated")]),
        "Failed",
        cond(INIT, "False", "ContainersNotInitialized", "containers with incomplete status: [x]"),
    ),
]


@pytest.mark.parametrize(
    ("name", "api_pod", "phase", "expected"),
    INITIALIZED_CASES,
    ids=[c[0] for c in INITIALIZED_CASES],
)
def test_generate_pod_initialized_condition(name, api_pod, phase, expected):
    assert generate_pod_initialized_condition(api_pod, phase) == expected


R = "Ready"
READY_CASES = [
    (
        "copies ContainersNotReady",
        pod(),
        cond(CR, "False", "ContainersNotReady", "containers with unready status: [a]"),
        cond(R, "False", "ContainersNotReady", "containers with unready status: [a]"),
    ),
    (
        "copies PodCompleted",
        pod(),
        cond(CR, "False", "PodCompleted"),
        cond(R, "False", "PodCompleted"),
    ),
    ("ready without gates", pod(), cond(CR, "True"), cond(R, "True")),
    (
        "gate condition missing",
        pod(gates=["example.com/lb"]),
        cond(CR, "True"),
        cond(
            R,
            "False",
            "ReadinessGatesNotReady",
            'corresponding condition of pod readiness gate "example.com/lb" does not exist.',
        ),
    ),
    (
        "gate condition False, another missing",
        pod(gates=["g1", "g2"], conditions=[cond("g1", "False")]),
        cond(CR, "True"),
        cond(
            R,
            "False",
            "ReadinessGatesNotReady",
            'the status of pod readiness gate "g1" is not "True", but False, '
            'corresponding condition of pod readiness gate "g2" does not exist.',
        ),
    ),
    (
        "all gates True",
        pod(gates=["g1", "g2"], conditions=[cond("g1", "True"), cond("g2", "True")]),
        cond(CR, "True"),
        cond(R, "True"),
    ),
]


@pytest.mark.parametrize(
    ("name", "api_pod", "containers_ready", "expected"),
    READY_CASES,
    ids=[c[0] for c in READY_CASES],
)
def test_generate_pod_ready_condition(name, api_pod, containers_ready, expected):
    assert generate_pod_ready_condition(api_pod, "Running", containers_ready) == expected


SCHEDULED = {"type": "PodScheduled", "status": "True"}


def running_pod() -> dict:
    return pod(("app",), statuses=[status("app", True)])


def test_pod_conditions_in_kubelet_order_with_times():
    conditions = pod_conditions(
        running_pod(), phase="Running", sandbox_ready=True, scheduled=SCHEDULED, previous=[], now=T0
    )
    assert [c["type"] for c in conditions] == [
        "PodReadyToStartContainers",
        "Initialized",
        "Ready",
        "ContainersReady",
        "PodScheduled",
    ]
    assert conditions[2] == {
        "type": "Ready",
        "status": "True",
        "lastProbeTime": None,
        "lastTransitionTime": T0,
    }
    assert all(c["lastTransitionTime"] == T0 and c["lastProbeTime"] is None for c in conditions)


def test_last_transition_time_kept_only_when_status_unchanged():
    first = pod_conditions(
        pod(("app",), statuses=[status("app", False)]),
        phase="Running",
        sandbox_ready=True,
        scheduled=SCHEDULED,
        previous=[],
        now=T0,
    )
    second = pod_conditions(
        running_pod(),
        phase="Running",
        sandbox_ready=True,
        scheduled=SCHEDULED,
        previous=first,
        now=T1,
    )
    times = {c["type"]: c["lastTransitionTime"] for c in second}
    assert times == {
        "PodReadyToStartContainers": T0,
        "Initialized": T0,
        "Ready": T1,
        "ContainersReady": T1,
        "PodScheduled": T0,
    }
    assert "reason" not in second[2] and "message" not in second[2]
    assert first[2]["message"] == "containers with unready status: [app]"


def test_unscheduled_pod_has_only_pod_scheduled_false():
    message = "0/3 nodes are available: 3 Insufficient cpu."
    scheduled = {
        "type": "PodScheduled",
        "status": "False",
        "reason": "Unschedulable",
        "message": message,
    }
    conditions = pod_conditions(
        pod(("app",)),
        phase="Pending",
        sandbox_ready=False,
        scheduled=scheduled,
        previous=[],
        now=T0,
    )
    assert conditions == [
        {
            "type": "PodScheduled",
            "status": "False",
            "lastProbeTime": None,
            "lastTransitionTime": T0,
            "reason": "Unschedulable",
            "message": message,
        }
    ]


def test_conditions_not_owned_by_the_kubelet_are_copied_first():
    gate = {
        "type": "example.com/lb",
        "status": "True",
        "lastProbeTime": None,
        "lastTransitionTime": T0,
    }
    api_pod = running_pod()
    api_pod["spec"]["readinessGates"] = [{"conditionType": "example.com/lb"}]
    api_pod["status"]["conditions"] = [gate, {"type": "Ready", "status": "False"}]
    conditions = pod_conditions(
        api_pod, phase="Running", sandbox_ready=True, scheduled=SCHEDULED, previous=[], now=T1
    )
    assert conditions[0] == gate
    assert conditions[3]["type"] == "Ready" and conditions[3]["status"] == "True"


def test_node_controller_override_flips_only_ready_and_keeps_its_reason():
    first = pod_conditions(
        running_pod(), phase="Running", sandbox_ready=True, scheduled=SCHEDULED, previous=[], now=T0
    )
    lost = pod_conditions(
        running_pod(),
        phase="Running",
        sandbox_ready=True,
        scheduled=SCHEDULED,
        previous=first,
        now=T1,
        overrides={"Ready": {"status": "False"}},
    )
    ready = next(c for c in lost if c["type"] == "Ready")
    assert ready == {
        "type": "Ready",
        "status": "False",
        "lastProbeTime": None,
        "lastTransitionTime": T1,
    }
    others = [c for c in lost if c["type"] != "Ready"]
    assert others == [c for c in first if c["type"] != "Ready"]


def test_mark_pod_not_ready_flips_ready_only():
    before = pod_conditions(
        running_pod(), phase="Running", sandbox_ready=True, scheduled=SCHEDULED, previous=[], now=T0
    )
    after = mark_pod_not_ready(before, T1)
    changed = [(b, a) for b, a in zip(before, after, strict=True) if b != a]
    assert changed == [
        (
            {"type": "Ready", "status": "True", "lastProbeTime": None, "lastTransitionTime": T0},
            {"type": "Ready", "status": "False", "lastProbeTime": None, "lastTransitionTime": T1},
        )
    ]
    assert mark_pod_not_ready(after, "later") == after  # already False: nothing changes
