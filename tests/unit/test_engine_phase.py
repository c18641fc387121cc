"""getPhase: the kubelet's TestPodPhase* tables (pkg/kubelet/kubelet_pods_test.go), as data.

Each table keeps the upstream test names and the upstream podIsTerminal /
podHasInitialized arguments. Expected values were checked against
KUBERNETES-SEMANTICS §1 and the getPhase source.
"""

from __future__ import annotations

import pytest

from webapp.engine.api.podutil import container_should_restart, is_sidecar
from webapp.engine.kubelet.phase import has_any_active_regular_container_started, pod_phase

# --- the helpers of kubelet_pods_test.go ------------------------------------------------


def waiting(name: str) -> dict:
    return {"name": name, "state": {"waiting": {}}}


def waiting_with_last_termination(name: str) -> dict:
    return {"name": name, "state": {"waiting": {}}, "lastState": {"terminated": {"exitCode": 0}}}


def waiting_with_non_zero_termination(name: str) -> dict:
    return {"name": name, "state": {"waiting": {}}, "lastState": {"terminated": {"exitCode": -1}}}


def running(name: str) -> dict:
    return {"name": name, "state": {"running": {}}}


def started(name: str) -> dict:
    return {"name": name, "state": {"running": {}}, "started": True}


def stopped(name: str) -> dict:
    return {"name": name, "state": {"terminated": {}}}


def succeeded(name: str) -> dict:
    return {"name": name, "state": {"terminated": {"exitCode": 0}}}


def failed(name: str, exit_code: int = -1) -> dict:
    return {"name": name, "state": {"terminated": {"exitCode": exit_code}}}


def spec(restart_policy: str, init: list | None = None, containers=("containerA", "containerB")):
    """A PodSpec; init entries are names, or (name, container restartPolicy) pairs."""

    def container(entry) -> dict:
        if isinstance(entry, dict):
            return entry
        if isinstance(entry, tuple):
            return {"name": entry[0], "restartPolicy": entry[1]}
        return {"name": entry}

    return {
        "nodeName": "machine",
        "initContainers": [container(c) for c in init or []],
        "containers": [container(c) for c in containers],
        "restartPolicy": restart_policy,
    }


def pod(pod_spec: dict, init_statuses=(), statuses=()) -> dict:
    status: dict = {}
    if init_statuses:
        status["initContainerStatuses"] = list(init_statuses)
    if statuses:
        status["containerStatuses"] = list(statuses)
    return {"spec": pod_spec, "status": status}


A, B, X, Y = "containerA", "containerB", "containerX", "containerY"
SIDECAR_X = (X, "Always")

# (test name, pod, podIsTerminal, podHasInitialized, expected phase)
ALWAYS = spec("Always")
RESTART_ALWAYS = [
    ("waiting", pod(ALWAYS), False, False, "Pending"),
    ("all running", pod(ALWAYS, (), [running(A), running(B)]), False, False, "Running"),
    (
        "all stopped with restart always",
        pod(ALWAYS, (), [stopped(A), stopped(B)]),
        False,
        False,
        "Running",
    ),
    (
        "all succeeded with restart always, but the pod is terminal",
        pod(ALWAYS, (), [succeeded(A), succeeded(B)]),
        True,
        False,
        "Succeeded",
    ),
    (
        "all stopped with restart always, but the pod is terminal",
        pod(ALWAYS, (), [succeeded(A), failed(B)]),
        True,
        False,
        "Failed",
    ),
    (
        "mixed state #1 with restart always",
        pod(ALWAYS, (), [running(A), stopped(B)]),
        False,
        False,
        "Running",
    ),
    ("mixed state #2 with restart always", pod(ALWAYS, (), [running(A)]), False, False, "Pending"),
    (
        "mixed state #3 with restart always",
        pod(ALWAYS, (), [running(A), waiting(B)]),
        False,
        False,
        "Pending",
    ),
    (
        "backoff crashloop container with restart always",
        pod(ALWAYS, (), [running(A), waiting_with_last_termination(B)]),
        False,
        False,
        "Running",
    ),
]

NEVER = spec("Never")
RESTART_NEVER = [
    ("waiting", pod(NEVER), False, False, "Pending"),
    (
        "all running with restart never",
        pod(NEVER, (), [running(A), running(B)]),
        False,
        False,
        "Running",
    ),
    (
        "all succeeded with restart never",
        pod(NEVER, (), [succeeded(A), succeeded(B)]),
        False,
        False,
        "Succeeded",
    ),
    (
        "all failed with restart never",
        pod(NEVER, (), [failed(A), failed(B)]),
        False,
        False,
        "Failed",
    ),
    (
        "mixed state #1 with restart never",
        pod(NEVER, (), [running(A), succeeded(B)]),
        False,
        False,
        "Running",
    ),
    ("mixed state #2 with restart never", pod(NEVER, (), [running(A)]), False, False, "Pending"),
    (
        "mixed state #3 with restart never",
        pod(NEVER, (), [running(A), waiting(B)]),
        False,
        False,
        "Pending",
    ),
]

ON_FAILURE = spec("OnFailure")
RESTART_ON_FAILURE = [
    ("waiting", pod(ON_FAILURE), False, False, "Pending"),
    (
        "all running with restart onfailure",
        pod(ON_FAILURE, (), [running(A), running(B)]),
        False,
        False,
        "Running",
    ),
    (
        "all succeeded with restart onfailure",
        pod(ON_FAILURE, (), [succeeded(A), succeeded(B)]),
        False,
        False,
        "Succeeded",
    ),
    (
        "all failed with restart never",  # sic: the upstream name
        pod(ON_FAILURE, (), [failed(A), failed(B)]),
        False,
        False,
        "Running",
    ),
    (
        "mixed state #1 with restart onfailure",
        pod(ON_FAILURE, (), [running(A), succeeded(B)]),
        False,
        False,
        "Running",
    ),
    (
        "mixed state #2 with restart onfailure",
        pod(ON_FAILURE, (), [running(A)]),
        False,
        False,
        "Pending",
    ),
    (
        "mixed state #3 with restart onfailure",
        pod(ON_FAILURE, (), [running(A), waiting(B)]),
        False,
        False,
        "Pending",
    ),
    (
        "backoff crashloop container with restart onfailure",
        pod(ON_FAILURE, (), [running(A), waiting_with_last_termination(B)]),
        False,
        False,
        "Running",
    ),
]


def init_table(restart_policy: str, failed_init_phase: str) -> list[tuple]:
    """TestPodPhaseWithRestart{Always,Never}InitContainers; OnFailure is ours (upstream
    leaves it commented out: "No special init-specific logic for this")."""
    s = spec(restart_policy, init=[X])
    return [
        ("empty, waiting", pod(s), False, False, "Pending"),
        ("init container running", pod(s, [running(X)]), False, False, "Pending"),
        (
            "init container terminated non-zero",
            pod(s, [failed(X)]),
            False,
            False,
            failed_init_phase,
        ),
        (
            "init container waiting, terminated zero",
            pod(s, [waiting_with_last_termination(X)]),
            False,
            False,
            "Pending",
        ),
        (
            "init container waiting, terminated non-zero",
            pod(s, [waiting_with_non_zero_termination(X)]),
            False,
            False,
            failed_init_phase,
        ),
        (
            "init container waiting, not terminated",
            pod(s, [waiting(X)]),
            False,
            False,
            "Pending",
        ),
        (
            "init container succeeded",
            pod(s, [succeeded(X)], [running(A), running(B)]),
            False,
            False,
            "Running",
        ),
    ]


ALWAYS_SIDECAR = spec("Always", init=[SIDECAR_X])
RESTART_ALWAYS_SIDECAR = [
    ("empty, waiting", pod(ALWAYS_SIDECAR), False, False, "Pending"),
    (
        "restartable init container running",
        pod(ALWAYS_SIDECAR, [running(X)]),
        False,
        False,
        "Pending",
    ),
    (
        "restartable init container stopped",
        pod(ALWAYS_SIDECAR, [stopped(X)]),
        False,
        False,
        "Pending",
    ),
    (
        "restartable init container waiting, terminated zero",
        pod(ALWAYS_SIDECAR, [waiting_with_last_termination(X)]),
        False,
        False,
        "Pending",
    ),
    (
        "restartable init container waiting, terminated non-zero",
        pod(ALWAYS_SIDECAR, [waiting_with_non_zero_termination(X)]),
        False,
        False,
        "Pending",
    ),
    (
        "restartable init container waiting, not terminated",
        pod(ALWAYS_SIDECAR, [waiting(X)]),
        False,
        False,
        "Pending",
    ),
    (
        "restartable init container started, 1/2 regular container running",
        pod(ALWAYS_SIDECAR, [started(X)], [running(A)]),
        False,
        True,
        "Pending",
    ),
    (
        "restartable init container started, all regular containers running",
        pod(ALWAYS_SIDECAR, [started(X)], [running(A), running(B)]),
        False,
        True,
        "Running",
    ),
    (
        "restartable init container running, all regular containers running",
        pod(ALWAYS_SIDECAR, [running(X)], [running(A), running(B)]),
        False,
        True,
        "Running",
    ),
    (
        "restartable init container stopped, all regular containers running",
        pod(ALWAYS_SIDECAR, [stopped(X)], [running(A), running(B)]),
        False,
        True,
        "Running",
    ),
    (
        "backoff crashloop restartable init container, all regular containers running",
        pod(ALWAYS_SIDECAR, [waiting_with_last_termination(X)], [running(A), running(B)]),
        False,
        True,
        "Running",
    ),
    (
        "all regular containers succeeded and restartable init container failed with "
        "restart always, but the pod is terminal",
        pod(ALWAYS_SIDECAR, [failed(X)], [succeeded(A), succeeded(B)]),
        True,
        True,
        "Succeeded",
    ),
    (
        "all regular containers succeeded and restartable init container succeeded with "
        "restart always, but the pod is terminal",
        pod(ALWAYS_SIDECAR, [succeeded(X)], [succeeded(A), succeeded(B)]),
        True,
        True,
        "Succeeded",
    ),
    (
        "re-initializing the pod after the sandbox is recreated",
        pod(ALWAYS_SIDECAR, [running(X)], [running(A), running(B)]),
        False,
        False,
        "Pending",
    ),
]

NEVER_SIDECAR = spec("Never", init=[SIDECAR_X])
RESTART_NEVER_SIDECAR = [
    ("empty, waiting", pod(NEVER_SIDECAR), False, False, "Pending"),
    (
        "restartable init container running",
        pod(NEVER_SIDECAR, [running(X)]),
        False,
        False,
        "Pending",
    ),
    (
        "restartable init container stopped",
        pod(NEVER_SIDECAR, [stopped(X)]),
        False,
        False,
        "Pending",
    ),
    (
        "restartable init container waiting, terminated zero",
        pod(NEVER_SIDECAR, [waiting_with_last_termination(X)]),
        False,
        False,
        "Pending",
    ),
    (
        "restartable init container waiting, terminated non-zero",
        pod(NEVER_SIDECAR, [waiting_with_non_zero_termination(X)]),
        False,
        False,
        "Pending",
    ),
    (
        "restartable init container waiting, not terminated",
        pod(NEVER_SIDECAR, [waiting(X)]),
        False,
        False,
        "Pending",
    ),
    (
        "restartable init container started, one main container running",
        pod(NEVER_SIDECAR, [started(X)], [running(A)]),
        False,
        True,
        "Pending",
    ),
    (
        "restartable init container started, main containers succeeded",
        pod(NEVER_SIDECAR, [started(X)], [succeeded(A), succeeded(B)]),
        False,
        True,
        "Running",
    ),
    (
        "restartable init container re-running, main containers succeeded",
        pod(NEVER_SIDECAR, [running(X)], [succeeded(A), succeeded(B)]),
        False,
        True,
        "Running",
    ),
    (
        "all containers succeeded",
        pod(NEVER_SIDECAR, [succeeded(X)], [succeeded(A), succeeded(B)]),
        False,
        True,
        "Succeeded",
    ),
    (
        "restartable init container terminated non-zero, main containers succeeded",
        pod(NEVER_SIDECAR, [failed(X)], [succeeded(A), succeeded(B)]),
        False,
        True,
        "Succeeded",
    ),
    (
        "backoff crashloop restartable init container, main containers succeeded",
        pod(NEVER_SIDECAR, [waiting_with_last_termination(X)], [succeeded(A), succeeded(B)]),
        False,
        True,
        "Succeeded",
    ),
    (
        "backoff crashloop with non-zero restartable init container, main containers succeeded",
        pod(
            NEVER_SIDECAR,
            [waiting_with_non_zero_termination(X)],
            [succeeded(A), succeeded(B)],
        ),
        False,
        True,
        "Succeeded",
    ),
]

HAS_RUN = spec("Always", init=[X, (Y, "Always")], containers=[A])
RESTART_ALWAYS_AND_POD_HAS_RUN = [
    (
        "regular init containers, restartable init container and regular container are all running",
        pod(HAS_RUN, [running(X), running(Y)], [running(A)]),
        False,
        False,
        "Pending",
    ),
    (
        "regular containers is stopped, restartable init container and regular int container "
        "are both running",
        pod(HAS_RUN, [running(X), running(Y)], [stopped(A)]),
        False,
        False,
        "Pending",
    ),
    (
        "re-created sandbox: regular init container is succeeded, restartable init container "
        "is running, old regular containers is stopped",
        pod(HAS_RUN, [succeeded(X), running(Y)], [stopped(A)]),
        False,
        False,
        "Pending",
    ),
    (
        "regular init container is succeeded, restartable init container is running, regular "
        "containers is stopped",
        pod(HAS_RUN, [succeeded(X), running(Y)], [stopped(A)]),
        False,
        True,
        "Running",
    ),
    (
        "regular init container is succeeded, restartable init container and regular "
        "containers are both running",
        pod(HAS_RUN, [succeeded(X), running(Y)], [running(A)]),
        False,
        True,
        "Running",
    ),
]


def one(name: str, policy: str | None) -> dict:
    return {"name": name} if policy is None else {"name": name, "restartPolicy": policy}


def crr(restart: str, init=(), containers=()) -> dict:
    return {
        "initContainers": list(init),
        "containers": list(containers),
        "restartPolicy": restart,
    }


# TestPodPhaseWithContainerRestartPolicy{,InitContainers}: gate on, podHasInitialized true.
CONTAINER_RESTART_POLICY = [
    (
        "container with restart policy Never failed",
        pod(
            crr("Always", containers=[one("failed-container", "Never")]),
            (),
            [failed("failed-container")],
        ),
        False,
        True,
        "Failed",
    ),
    (
        "container with restart policy OnFailure failed",
        pod(
            crr("Always", containers=[one("failed-container", "OnFailure")]),
            (),
            [failed("failed-container")],
        ),
        False,
        True,
        "Running",
    ),
    (
        "container with restart policy Always failed",
        pod(
            crr("Always", containers=[one("failed-container", "Always")]),
            (),
            [failed("failed-container")],
        ),
        False,
        True,
        "Running",
    ),
    (
        "At least one container with restartable container-level restart policy failed",
        pod(
            crr("Never", containers=[one(A, "Always"), one(B, None)]), (), [succeeded(A), failed(B)]
        ),
        False,
        True,
        "Running",
    ),
    (
        "All containers without restartable container-level restart policy failed",
        pod(
            crr("Always", containers=[one(A, "Never"), one(B, "OnFailure")]),
            (),
            [failed(A), succeeded(B)],
        ),
        False,
        True,
        "Failed",
    ),
    (
        "All containers succeeded",
        pod(
            crr("Always", containers=[one(A, "Never"), one(B, "OnFailure")]),
            (),
            [succeeded(A), succeeded(B)],
        ),
        False,
        True,
        "Succeeded",
    ),
    (
        "init container with restart policy Never failed",
        pod(
            crr("Always", [one("failed-container", "Never")], [one("container", None)]),
            (),
            [failed("failed-container")],
        ),
        False,
        True,
        "Failed",
    ),
    (
        "init container with restart policy OnFailure failed",
        pod(
            crr("Never", [one("failed-container", "OnFailure")], [one("container", None)]),
            (),
            [failed("failed-container")],
        ),
        False,
        True,
        "Pending",
    ),
    (
        "init container with restart policy Always (sidecar) failed",
        pod(
            crr("Never", [one("failed-container", "Always")], [one("container", None)]),
            (),
            [failed("failed-container")],
        ),
        False,
        True,
        "Pending",
    ),
]

# KUBERNETES-SEMANTICS §1.5, each stated once more in its own words.
SEMANTICS_1_5 = [
    (
        "restart Always, every container exited: stays Running",
        pod(ALWAYS, (), [failed(A, 1), succeeded(B)]),
        False,
        True,
        "Running",
    ),
    (
        "restart OnFailure, one container failed: stays Running",
        pod(ON_FAILURE, (), [failed(A, 1), succeeded(B)]),
        False,
        True,
        "Running",
    ),
    (
        "two containers, only one with a status (running): Pending",
        pod(ALWAYS, (), [running(A)]),
        False,
        True,
        "Pending",
    ),
    (
        "regular init container failed under Always: Pending",
        pod(spec("Always", init=[X]), [failed(X, 1)]),
        False,
        False,
        "Pending",
    ),
    (
        "regular init container crash-looping under OnFailure: Pending",
        pod(spec("OnFailure", init=[X]), [waiting_with_non_zero_termination(X)]),
        False,
        False,
        "Pending",
    ),
    (
        "regular init container failed under Never: Failed at once",
        pod(spec("Never", init=[X]), [failed(X, 1)]),
        False,
        False,
        "Failed",
    ),
    (
        "restart Never, running sidecar, main containers Succeeded: Running",
        pod(NEVER_SIDECAR, [started(X)], [succeeded(A), succeeded(B)]),
        False,
        True,
        "Running",
    ),
    (
        "restart Never, sidecar killed by the kubelet at the end (exit 137), pod terminal: "
        "Succeeded — a sidecar's exit code never fails the pod",
        pod(NEVER_SIDECAR, [failed(X, 137)], [succeeded(A), succeeded(B)]),
        True,
        True,
        "Succeeded",
    ),
    (
        "sidecar (restarted, not yet started) and main containers running, "
        "podHasInitialized false: Pending",
        pod(ALWAYS_SIDECAR, [running(X)], [running(A), running(B)]),
        False,
        False,
        "Pending",
    ),
    (
        "terminal pod with a failed container and restart Always: Failed",
        pod(ALWAYS, (), [succeeded(A), failed(B, 143)]),
        True,
        True,
        "Failed",
    ),
]

TABLES = {
    "TestPodPhaseWithRestartAlways": RESTART_ALWAYS,
    "TestPodPhaseWithRestartNever": RESTART_NEVER,
    "TestPodPhaseWithRestartOnFailure": RESTART_ON_FAILURE,
    "TestPodPhaseWithRestartAlwaysInitContainers": init_table("Always", "Pending"),
    "TestPodPhaseWithRestartNeverInitContainers": init_table("Never", "Failed"),
    "OnFailureInitContainers": init_table("OnFailure", "Pending"),
    "TestPodPhaseWithRestartAlwaysRestartableInitContainers": RESTART_ALWAYS_SIDECAR,
    "TestPodPhaseWithRestartNeverRestartableInitContainers": RESTART_NEVER_SIDECAR,
    "TestPodPhaseWithRestartAlwaysAndPodHasRun": RESTART_ALWAYS_AND_POD_HAS_RUN,
    "TestPodPhaseWithContainerRestartPolicy": CONTAINER_RESTART_POLICY,
    "Semantics1.5": SEMANTICS_1_5,
}
CASES = [
    pytest.param(*case, id=f"{table}: {case[0]}")
    for table, cases in TABLES.items()
    for case in cases
]


@pytest.mark.parametrize(("name", "api_pod", "terminal", "initialized", "expected"), CASES)
def test_pod_phase(name, api_pod, terminal, initialized, expected):
    phase = pod_phase(api_pod, pod_is_terminal=terminal, pod_has_initialized=initialized)
    assert phase == expected, name


def test_public_contract_takes_only_the_pod():
    assert pod_phase(pod(ALWAYS, (), [running(A), running(B)])) == "Running"
    assert pod_phase({"spec": {"containers": [{"name": "a"}]}}) == "Pending"
    assert pod_phase({"spec": {"containers": [{"name": "a"}]}, "status": {}}) == "Pending"


def test_pod_has_initialized_is_derived_from_regular_container_statuses():
    assert not has_any_active_regular_container_started(pod(ALWAYS_SIDECAR, [started(X)]))
    assert not has_any_active_regular_container_started(
        pod(ALWAYS_SIDECAR, [started(X)], [waiting(A)])
    )
    for status in (running(A), stopped(A), waiting_with_last_termination(A)):
        assert has_any_active_regular_container_started(pod(ALWAYS_SIDECAR, [], [status]))
    # A restarted sidecar (running, not yet started) after initialisation: still Running.
    restarted = pod(ALWAYS_SIDECAR, [running(X)], [running(A), running(B)])
    assert pod_phase(restarted) == "Running"
    assert pod_phase(restarted, pod_has_initialized=False) == "Pending"


def test_static_pod_is_not_given_a_terminal_phase_by_pod_is_terminal():
    static = pod(ALWAYS, (), [succeeded(A), succeeded(B)])
    static["metadata"] = {"annotations": {"kubernetes.io/config.source": "file"}}
    assert pod_phase(static, pod_is_terminal=True) == "Running"


RULE_42 = {"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}
NOT_IN_0 = {"action": "Restart", "exitCodes": {"operator": "NotIn", "values": [0]}}


@pytest.mark.parametrize(
    ("container", "pod_policy", "exit_code", "expected"),
    [
        ({}, None, 0, True),  # pod default Always
        ({}, "Always", 0, True),
        ({}, "OnFailure", 0, False),
        ({}, "OnFailure", 1, True),
        ({}, "Never", 1, False),
        ({"restartPolicy": "Never"}, "Always", 1, False),
        ({"restartPolicy": "OnFailure"}, "Never", 1, True),
        ({"restartPolicy": "OnFailure"}, "Always", 0, False),
        ({"restartPolicy": "Always"}, "Never", 0, True),
        ({"restartPolicy": "Never", "restartPolicyRules": [RULE_42]}, "Never", 42, True),
        ({"restartPolicy": "Never", "restartPolicyRules": [RULE_42]}, "Never", 1, False),
        ({"restartPolicy": "Never", "restartPolicyRules": [NOT_IN_0]}, "Never", 3, True),
        ({"restartPolicy": "Never", "restartPolicyRules": [NOT_IN_0]}, "Never", 0, False),
        # Rules are read only when the container sets a restartPolicy (as in the source).
        ({"restartPolicyRules": [RULE_42]}, "Never", 42, False),
    ],
)
def test_container_should_restart(container, pod_policy, exit_code, expected):
    pod_spec = {} if pod_policy is None else {"restartPolicy": pod_policy}
    assert container_should_restart(container, pod_spec, exit_code) is expected


def test_is_sidecar():
    assert is_sidecar({"name": "proxy", "restartPolicy": "Always"})
    assert not is_sidecar({"name": "init"})
    assert not is_sidecar({"name": "init", "restartPolicy": "OnFailure"})
