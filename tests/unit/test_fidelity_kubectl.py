"""KUBERNETES-SEMANTICS §9: `kubectl get pods` READY / STATUS / RESTARTS and HumanDuration.

Hand-built Pod objects, one rule of printPod per row.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from webapp.kubectl import human_duration, pod_columns

NOW = datetime(2026, 1, 1, 1, 0, 0, tzinfo=UTC)


def ts(seconds_ago: float) -> str:
    return (NOW - timedelta(seconds=seconds_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")


def running(ready=True, restarts=0, finished_ago=None, name="app"):
    status = {"name": name, "state": {"running": {"startedAt": ts(5)}}, "ready": ready,
              "restartCount": restarts, "started": True}  # fmt: skip
    if finished_ago is not None:
        status["lastState"] = {"terminated": {"exitCode": 1, "finishedAt": ts(finished_ago)}}
    return status


def terminated(code=0, reason=None, name="app", restarts=0):
    term = {"exitCode": code, "finishedAt": ts(1)}
    if reason:
        term["reason"] = reason
    return {"name": name, "state": {"terminated": term}, "ready": False,
            "restartCount": restarts, "started": False}  # fmt: skip


def waiting(reason, name="app", restarts=0, finished_ago=None):
    status = {"name": name, "state": {"waiting": {"reason": reason}}, "ready": False,
              "restartCount": restarts, "started": False}  # fmt: skip
    if finished_ago is not None:
        status["lastState"] = {"terminated": {"exitCode": 1, "finishedAt": ts(finished_ago)}}
    return status


def pod(containers, statuses, *, init=(), init_statuses=(), phase="Running", ready=False,
        initialized=True, deleting=False, reason=""):  # fmt: skip
    conditions = [
        {"type": "Initialized", "status": "True" if initialized else "False"},
        {"type": "Ready", "status": "True" if ready else "False"},
    ]
    obj = {
        "metadata": {"name": "web", "creationTimestamp": ts(100)},
        "spec": {
            "containers": [{"name": n} for n in containers],
            "initContainers": [
                {"name": n, "restartPolicy": "Always"} if sidecar else {"name": n}
                for n, sidecar in init
            ],
        },
        "status": {
            "phase": phase,
            "conditions": conditions,
            "containerStatuses": list(statuses),
            "initContainerStatuses": list(init_statuses),
        },
    }
    if reason:
        obj["status"]["reason"] = reason
    if deleting:
        obj["metadata"]["deletionTimestamp"] = ts(-30)
    return obj


CASES = {
    # §9.2 step 4: the container loop runs last to first, so the first container decides
    "first container decides": (
        pod(["a", "b"], [waiting("CrashLoopBackOff", "a"), terminated(1, "Error", "b")]),
        ("0/2", "CrashLoopBackOff"),
    ),
    "empty terminated reason with exit code": (
        pod(["app"], [terminated(2)], phase="Failed"),
        ("0/1", "ExitCode:2"),
    ),
    "Completed next to a ready running container on a Ready pod": (
        pod(["a", "b"], [terminated(0, "Completed", "a"), running(name="b")], ready=True),
        ("1/2", "Running"),
    ),
    "Completed next to a running container on a not-Ready pod": (
        pod(["a", "b"], [terminated(0, "Completed", "a"), running(name="b")]),
        ("1/2", "NotReady"),
    ),
    "a non-zero exit beats Completed (v1.35)": (
        pod(["a", "b"], [terminated(0, "Completed", "a"), terminated(1, "Error", "b")]),
        ("0/2", "Error"),
    ),
    # §9.1: a terminated container with ready=true does not count
    "terminated and ready does not count": (
        pod(["app"], [{**terminated(0, "Completed"), "ready": True}], phase="Succeeded"),
        ("0/1", "Completed"),
    ),
    # §9.2 step 3: init loop
    "init waiting PodInitializing shows Init:i/n": (
        pod(
            ["app"],
            [waiting("PodInitializing")],
            init=[("i1", False), ("i2", False)],
            init_statuses=[terminated(0, "Completed", "i1"), waiting("PodInitializing", "i2")],
            phase="Pending",
            initialized=False,
        ),
        ("0/1", "Init:1/2"),
    ),
    "init crash loop": (
        pod(
            ["app"],
            [waiting("PodInitializing")],
            init=[("i1", False)],
            init_statuses=[waiting("CrashLoopBackOff", "i1", restarts=2)],
            phase="Pending",
            initialized=False,
        ),
        ("0/1", "Init:CrashLoopBackOff"),
    ),
    "init terminated with no reason": (
        pod(
            ["app"],
            [waiting("PodInitializing")],
            init=[("i1", False)],
            init_statuses=[terminated(3, None, "i1")],
            phase="Pending",
            initialized=False,
        ),
        ("0/1", "Init:ExitCode:3"),
    ),
    "regular containers not counted while Init:x/y": (
        pod(
            ["app"],
            [running()],
            init=[("i1", False)],
            init_statuses=[running(name="i1")],
            phase="Pending",
            initialized=False,
        ),
        ("0/1", "Init:0/1"),
    ),
    "started sidecar counts as ready; denominator includes sidecars": (
        pod(
            ["app"],
            [running()],
            init=[("side", True)],
            init_statuses=[running(name="side")],
            ready=True,
        ),
        ("2/2", "Running"),
    ),
    # §9.2 step 5
    "Terminating while deleting a running pod": (
        pod(["app"], [running()], ready=True, deleting=True),
        ("1/1", "Terminating"),
    ),
    "no Terminating for a Succeeded pod": (
        pod(["app"], [terminated(0, "Completed")], phase="Succeeded", deleting=True),
        ("0/1", "Completed"),
    ),
    "no Terminating for a Failed pod": (
        pod(["app"], [terminated(137, "Error")], phase="Failed", deleting=True),
        ("0/1", "Error"),
    ),
    "NodeLost and deleting shows Unknown": (
        pod(["app"], [running()], deleting=True, reason="NodeLost"),
        ("1/1", "Unknown"),
    ),
    "NodeLost without deletion keeps the container's status": (
        pod(["app"], [running()], ready=True, reason="NodeLost"),
        ("1/1", "NodeLost"),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_ready_and_status(name):
    obj, (ready, status) = CASES[name]
    cells = pod_columns(obj, NOW)
    assert (cells["READY"], cells["STATUS"]) == (ready, status)


@pytest.mark.parametrize(
    ("obj", "want"),
    [
        (pod(["app"], [running(restarts=3, finished_ago=10)], ready=True), "3 (10s ago)"),
        (pod(["app"], [running(restarts=2)], ready=True), "2"),  # no finishedAt: no suffix
        # regular init restarts vanish once the pod is initialized …
        (
            pod(
                ["app"],
                [running()],
                init=[("i1", False)],
                init_statuses=[{**terminated(0, "Completed", "i1"), "restartCount": 4}],
                ready=True,
            ),
            "0",
        ),
        # … but count while it initializes
        (
            pod(
                ["app"],
                [waiting("PodInitializing")],
                init=[("i1", False)],
                init_statuses=[waiting("CrashLoopBackOff", "i1", 4, finished_ago=70)],
                phase="Pending",
                initialized=False,
            ),
            "4 (70s ago)",
        ),
        # sidecar restarts stay, with the newest finishedAt of all
        (
            pod(
                ["app"],
                [running(restarts=1, finished_ago=200)],
                init=[("side", True)],
                init_statuses=[running(restarts=2, finished_ago=30, name="side")],
                ready=True,
            ),
            "3 (30s ago)",
        ),
    ],
)
def test_restarts(obj, want):
    assert pod_columns(obj, NOW)["RESTARTS"] == want


@pytest.mark.parametrize(
    ("seconds", "want"),
    [
        (-2, "<invalid>"),
        (-1, "0s"),
        (-0.5, "0s"),
        (0, "0s"),
        (119, "119s"),
        (120, "2m"),
        (130, "2m10s"),
        (599, "9m59s"),
        (600, "10m"),
        (179 * 60 + 59, "179m"),
        (3 * 3600, "3h"),
        (3 * 3600 + 60, "3h1m"),
        (8 * 3600 - 1, "7h59m"),
        (8 * 3600, "8h"),
        (47 * 3600 + 3599, "47h"),
        (48 * 3600, "2d"),
        (5 * 86400 + 3 * 3600, "5d3h"),
        (8 * 86400, "8d"),
        (2 * 365 * 86400 - 1, "729d"),
        (2 * 365 * 86400, "2y"),
        (2 * 365 * 86400 + 86400, "2y1d"),
        (8 * 365 * 86400, "8y"),
    ],
)
def test_human_duration(seconds, want):
    assert human_duration(seconds) == want


def test_age_is_unknown_without_a_creation_timestamp():
    obj = pod(["app"], [running()])
    del obj["metadata"]["creationTimestamp"]
    assert pod_columns(obj, NOW)["AGE"] == "<unknown>"
