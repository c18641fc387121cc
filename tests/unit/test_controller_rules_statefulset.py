"""The StatefulSet controller's rules (pkg/controller/statefulset)."""

from __future__ import annotations

from webapp.engine.controllers.rules import statefulset as s
from webapp.engine.controllers.rules.timestamps import timestamp

REV1, REV2 = "web-rev1", "web-rev2"


def sts(replicas=3, **spec):
    body = {
        "replicas": replicas,
        "serviceName": "nginx",
        "selector": {"matchLabels": {"app": "nginx"}},
        "template": {
            "metadata": {"labels": {"app": "nginx"}},
            "spec": {"containers": [{"name": "nginx", "image": "nginx"}]},
        },
    }
    body.update(spec)
    return {
        "metadata": {"name": "web", "namespace": "default", "uid": "sts-uid", "generation": 1},
        "spec": body,
        "status": {},
    }


def pod(ordinal, phase="Running", ready=True, revision=REV1, deleting=False, ready_since=0.0):
    metadata = {"name": f"web-{ordinal}", "labels": {s.REVISION_LABEL: revision}}
    if deleting:
        metadata["deletionTimestamp"] = timestamp(50)
    condition = {
        "type": "Ready",
        "status": "True" if ready else "False",
        "lastTransitionTime": timestamp(ready_since),
    }
    return {"metadata": metadata, "status": {"phase": phase, "conditions": [condition]}}


# stateful_set_utils_test.go TestGetParentNameAndOrdinal.
def test_get_parent_name_and_ordinal():
    created = s.new_stateful_set_pod(sts(), 1, REV1)
    assert s.get_parent_name_and_ordinal(created) == ("web", 1)
    created["metadata"]["name"] = "1-bar"
    assert s.get_parent_name_and_ordinal(created) == ("", -1)


# stateful_set_utils_test.go TestIdentityMatches / TestUpdateIdentity: name, hostname,
# subdomain and the pod-name label.
def test_new_pod_identity():
    created = s.new_stateful_set_pod(sts(), 2, REV2, now=7)
    assert created["metadata"]["name"] == "web-2"
    assert created["spec"]["hostname"] == "web-2"
    assert created["spec"]["subdomain"] == "nginx"
    assert created["metadata"]["labels"] == {
        "app": "nginx",
        "statefulset.kubernetes.io/pod-name": "web-2",
        "apps.kubernetes.io/pod-index": "2",
        "controller-revision-hash": REV2,
    }
    assert created["metadata"]["ownerReferences"][0]["kind"] == "StatefulSet"


def test_ordered_ready_creates_one_pod_at_a_time():
    assert s.sync_stateful_set(sts(), [], REV1, REV1, now=0).create == [(0, REV1)]
    starting = pod(0, phase="Pending", ready=False)
    sync = s.sync_stateful_set(sts(), [starting], REV1, REV1, now=1)
    assert (sync.create, sync.waiting_for) == ([], "web-0")
    not_ready = pod(0, ready=False)
    assert s.sync_stateful_set(sts(), [not_ready], REV1, REV1, now=2).create == []
    assert s.sync_stateful_set(sts(), [pod(0)], REV1, REV1, now=3).create == [(1, REV1)]


def test_min_ready_seconds_delays_the_next_ordinal():
    spec = sts(minReadySeconds=10)
    assert s.sync_stateful_set(spec, [pod(0, ready_since=5)], REV1, REV1, now=10).create == []
    assert s.sync_stateful_set(spec, [pod(0, ready_since=5)], REV1, REV1, now=16).create == [
        (1, REV1)
    ]


def test_parallel_creates_every_missing_pod_at_once():
    assert s.sync_stateful_set(
        sts(podManagementPolicy="Parallel"), [], REV1, REV1, now=0
    ).create == [(0, REV1), (1, REV1), (2, REV1)]


def test_scale_down_deletes_the_highest_ordinal_first_one_at_a_time():
    pods = [pod(i) for i in range(5)]
    sync = s.sync_stateful_set(sts(3), pods, REV1, REV1, now=10)
    assert sync.delete == ["web-4"]
    pods[4] = pod(4, deleting=True)
    sync = s.sync_stateful_set(sts(3), pods, REV1, REV1, now=11)
    assert (sync.delete, sync.waiting_for) == ([], "web-4")
    sync = s.sync_stateful_set(sts(3), pods[:4], REV1, REV1, now=12)
    assert sync.delete == ["web-3"]


def test_scale_down_waits_when_the_condemned_pod_is_unhealthy_but_not_the_first_unhealthy():
    # processCondemned: only the target's own health is checked, and an unhealthy target
    # goes only if it is the first unhealthy Pod (the lowest ordinal).
    pods = [pod(0), pod(1), pod(2), pod(3, ready=False), pod(4, ready=False)]
    sync = s.sync_stateful_set(sts(3), pods, REV1, REV1, now=10)
    assert (sync.delete, sync.waiting_for) == ([], "web-3")
    healthy_top = [pod(0), pod(1), pod(2), pod(3, ready=False), pod(4)]
    assert s.sync_stateful_set(sts(3), healthy_top, REV1, REV1, now=10).delete == ["web-4"]
    assert s.sync_stateful_set(sts(3), healthy_top[:4], REV1, REV1, now=11).delete == ["web-3"]


def test_failed_pod_is_deleted_and_recreated_later():
    pods = [pod(0), pod(1, phase="Failed", ready=False)]
    sync = s.sync_stateful_set(sts(2), pods, REV1, REV1, now=10)
    assert sync.delete == ["web-1"]
    assert s.sync_stateful_set(sts(2), pods[:1], REV1, REV1, now=11).create == [(1, REV1)]


def test_rolling_update_goes_in_reverse_ordinal_order():
    pods = [pod(i) for i in range(3)]
    assert s.sync_stateful_set(sts(), pods, REV1, REV2, now=10).delete == ["web-2"]
    # web-2 is recreated at the update revision; once it is ready, web-1 goes.
    pods[2] = pod(2, revision=REV2, ready=False)
    sync = s.sync_stateful_set(sts(), pods, REV1, REV2, now=11)
    assert (sync.delete, sync.waiting_for) == ([], "web-2")
    pods[2] = pod(2, revision=REV2)
    assert s.sync_stateful_set(sts(), pods, REV1, REV2, now=12).delete == ["web-1"]
    # No rollingUpdate block: ordinals below status.currentReplicas keep the current revision.
    assert s.revision_for_new_pod(sts(), 1, REV1, REV2) == REV2
    assert (
        s.revision_for_new_pod({**sts(), "status": {"currentReplicas": 2}}, 1, REV1, REV2) == REV1
    )


def test_partition_keeps_lower_ordinals_at_the_current_revision():
    spec = sts(updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 2}})
    pods = [pod(0), pod(1), pod(2, revision=REV2)]
    sync = s.sync_stateful_set(spec, pods, REV1, REV2, now=10)
    assert sync.delete == []
    assert s.revision_for_new_pod(spec, 1, REV1, REV2) == REV1
    assert s.revision_for_new_pod(spec, 2, REV1, REV2) == REV2
    assert (sync.status["currentReplicas"], sync.status["updatedReplicas"]) == (2, 1)


def test_on_delete_never_deletes_for_an_update():
    spec = sts(updateStrategy={"type": "OnDelete"})
    assert s.sync_stateful_set(spec, [pod(i) for i in range(3)], REV1, REV2, now=10).delete == []
    assert s.revision_for_new_pod(spec, 0, REV1, REV2) == REV2


def test_status_and_complete_rolling_update():
    pods = [pod(0, revision=REV2), pod(1, revision=REV2), pod(2, revision=REV2, ready=False)]
    status = s.compute_status(sts(), pods, REV1, REV2, now=10)
    assert (
        status["replicas"],
        status["readyReplicas"],
        status["updatedReplicas"],
        status["currentRevision"],
    ) == (3, 2, 3, REV1)
    pods[2] = pod(2, revision=REV2)
    status = s.compute_status(sts(), pods, REV1, REV2, now=11)
    assert (status["currentRevision"], status["currentReplicas"]) == (REV2, 3)


def test_max_unavailable_gate_deletes_several_outdated_pods():
    spec = sts(5, updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 2}})
    sync = s.sync_stateful_set(
        spec, [pod(i) for i in range(5)], REV1, REV2, now=10, max_unavailable_gate=True
    )
    assert sync.delete == ["web-4", "web-3"]


def test_events():
    assert s.create_event(sts(), "web-0") == (
        "Normal",
        "SuccessfulCreate",
        "create Pod web-0 in StatefulSet web successful",
    )
    assert s.delete_event(sts(), "web-2") == (
        "Normal",
        "SuccessfulDelete",
        "delete Pod web-2 in StatefulSet web successful",
    )


def _run_until_stable(spec, pods, current, update, now=100.0):
    """Apply sync decisions as the cluster would (created Pods become Running and Ready at
    once, deleted Pods disappear) and record the order of creations and deletions."""
    pods = {p["metadata"]["name"]: p for p in pods}
    order = []
    for _ in range(50):
        sync = s.sync_stateful_set(spec, list(pods.values()), current, update, now)
        if not sync.create and not sync.delete:
            return order
        for name in sync.delete:
            order.append(f"-{name}")
            del pods[name]
        for ordinal, revision in sync.create:
            order.append(f"+web-{ordinal}")
            pods[f"web-{ordinal}"] = pod(ordinal, revision=revision)
    raise AssertionError("no steady state")


# tutorials/stateful-application/basic-stateful-set.md: "Scaling Up" (web-2, web-3, web-4 in
# order), "Scaling Down" (web-4 then web-3) and "Rolling Update" (web-2, web-1, web-0).
def test_the_tutorial_sequences():
    two = [pod(0), pod(1)]
    assert _run_until_stable(sts(5), two, REV1, REV1) == ["+web-2", "+web-3", "+web-4"]
    five = [pod(i) for i in range(5)]
    assert _run_until_stable(sts(3), five, REV1, REV1) == ["-web-4", "-web-3"]
    three = [pod(i) for i in range(3)]
    assert _run_until_stable(sts(3), three, REV1, REV2) == [
        "-web-2",
        "+web-2",
        "-web-1",
        "+web-1",
        "-web-0",
        "+web-0",
    ]
