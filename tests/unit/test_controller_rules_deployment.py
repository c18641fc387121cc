"""The Deployment controller's rules, with the table tests ported from Kubernetes.

Each table names the Go test it comes from (kubernetes/kubernetes, pkg/controller/deployment).
"""

from __future__ import annotations

import pytest

from webapp.engine.controllers.rules import deployment as d
from webapp.engine.controllers.rules.timestamps import timestamp, to_seconds


def deploy(replicas=10, surge=None, unavailable=None, strategy="RollingUpdate", **spec):
    body = {"replicas": replicas, "strategy": {"type": strategy}}
    if strategy == "RollingUpdate":
        body["strategy"]["rollingUpdate"] = {"maxSurge": surge, "maxUnavailable": unavailable}
    body.update(spec)
    return {"metadata": {"name": "foo", "generation": 1}, "spec": body, "status": {}}


def rs(name, replicas, available=0, created=0.0, annotations=None, status_replicas=None):
    return {
        "metadata": {
            "name": name,
            "creationTimestamp": timestamp(created),
            "annotations": annotations or {},
        },
        "spec": {"replicas": replicas},
        "status": {
            "replicas": replicas if status_replicas is None else status_replicas,
            "availableReplicas": available,
        },
    }


# deployment_util_test.go TestResolveFenceposts (maxSurge/maxUnavailable given as strings).
@pytest.mark.parametrize(
    ("surge", "unavailable", "desired", "expected", "error"),
    [
        ("0%", "0%", 0, (0, 1), False),
        ("39%", "39%", 10, (4, 3), False),
        ("oops", "39%", 10, None, True),
        ("55%", "urg", 10, None, True),
        (None, "39%", 10, (0, 3), False),
        ("39%", None, 10, (4, 0), False),
        (None, None, 10, (0, 1), False),
    ],
)
def test_resolve_fenceposts(surge, unavailable, desired, expected, error):
    if error:
        with pytest.raises(d.IntOrStringError):
            d.resolve_fenceposts(surge, unavailable, desired)
    else:
        assert d.resolve_fenceposts(surge, unavailable, desired) == expected


def test_a_string_without_percent_is_an_error_as_in_intstr():
    with pytest.raises(d.IntOrStringError, match="string is not a percentage"):
        d.resolve_fenceposts("5", "1", 7)


def test_default_25_percent_rounds_surge_up_and_unavailable_down():
    # 3 replicas: 25 % is 0.75 → surge 1, unavailable 0 (the docs' nginx-deployment example).
    assert d.max_surge(deploy(3, "25%", "25%")) == 1
    assert d.max_unavailable(deploy(3, "25%", "25%")) == 0
    body = {"metadata": {"name": "web"}, "spec": {"replicas": 3}}  # strategy left to defaults
    assert (d.max_surge(body), d.max_unavailable(body)) == (1, 0)


# deployment_util_test.go TestMaxUnavailable.
@pytest.mark.parametrize(
    ("replicas", "unavailable", "expected"),
    [
        (10, 5, 5),
        (10, 10, 10),
        (5, 10, 5),
        (0, 10, 0),
        (10, "50%", 5),
        (10, "100%", 10),
        (5, "100%", 5),
    ],
)
def test_max_unavailable(replicas, unavailable, expected):
    assert d.max_unavailable(deploy(replicas, 1, unavailable)) == expected


def test_max_unavailable_is_zero_for_recreate():
    # TestMaxUnavailable "maxUnavailable with Recreate deployment strategy".
    assert d.max_unavailable(deploy(strategy="Recreate")) == 0
    assert d.max_surge(deploy(strategy="Recreate")) == 0


# deployment_util_test.go TestNewRSNewReplicas: all RSs = [rs5 (5 replicas)], maxUnavailable 1.
@pytest.mark.parametrize(
    ("strategy", "dep_replicas", "new_rs_replicas", "surge", "expected"),
    [
        ("RollingUpdate", 1, 5, 1, 5),  # can not scale up - to newRSReplicas
        ("RollingUpdate", 6, 2, 10, 6),  # scale up - to depReplicas
        ("Recreate", 3, 1, 1, 3),  # recreate - to depReplicas
    ],
)
def test_new_rs_new_replicas(strategy, dep_replicas, new_rs_replicas, surge, expected):
    dep = deploy(dep_replicas, surge, 1)
    dep["spec"]["strategy"]["type"] = strategy
    new = rs("new", new_rs_replicas)
    assert d.new_rs_new_replicas(dep, [rs("rs5", 5)], new) == expected


# rolling_test.go TestDeploymentController_reconcileNewReplicaSet (maxUnavailable 0).
@pytest.mark.parametrize(
    ("dep_replicas", "surge", "old", "new", "expected"),
    [
        (10, 0, 10, 0, None),
        (10, 2, 10, 0, 2),
        (10, 2, 5, 0, 7),
        (10, 2, 10, 2, None),
        (10, 2, 2, 11, 10),
    ],
)
def test_reconcile_new_replica_set(dep_replicas, surge, old, new, expected):
    new_rs, old_rs = rs("foo-v2", new), rs("foo-v1", old)
    assert (
        d.reconcile_new_replica_set([new_rs, old_rs], new_rs, deploy(dep_replicas, surge, 0))
        == expected
    )


# rolling_test.go TestDeploymentController_reconcileOldReplicaSets (maxSurge 0).
@pytest.mark.parametrize(
    ("dep_replicas", "unavailable", "old", "new", "ready_old", "ready_new", "expected_old"),
    [
        (10, 0, 10, 0, 10, 0, 9),
        (10, 2, 10, 0, 10, 0, 8),
        (10, 2, 10, 0, 8, 0, 8),  # unhealthy old replicas cleaned up
        (10, 2, 10, 0, 9, 0, 8),  # 1 unhealthy cleaned up and 1 ready scaled down
        (10, 2, 8, 2, 8, 0, None),  # new RS's unavailable Pods block further scale-down
    ],
)
def test_reconcile_old_replica_sets(
    dep_replicas, unavailable, old, new, ready_old, ready_new, expected_old
):
    new_rs = rs("foo-new", new, ready_new)
    old_rs = rs("foo-old", old, ready_old)
    changes = d.reconcile_old_replica_sets(
        [old_rs, new_rs], [old_rs], new_rs, deploy(dep_replicas, 0, unavailable)
    )
    assert changes.get("foo-old") == expected_old


# rolling_test.go TestDeploymentController_cleanupUnhealthyReplicas (10 old, maxSurge/maxUnavailable 2).
@pytest.mark.parametrize(
    ("ready", "max_cleanup", "expected"),
    [(8, 1, 1), (8, 3, 2), (8, 0, 0), (10, 3, 0)],
)
def test_cleanup_unhealthy_replicas(ready, max_cleanup, expected):
    _, count = d.cleanup_unhealthy_replicas(
        [rs("foo-v2", 10, ready)], deploy(10, 2, 2), max_cleanup
    )
    assert count == expected


# rolling_test.go TestDeploymentController_scaleDownOldReplicaSetsForRollingUpdate (maxSurge 0).
@pytest.mark.parametrize(
    ("unavailable", "ready", "old", "expected_old"),
    [(0, 10, 10, 9), (2, 10, 10, 8), (2, 8, 10, None), (2, 10, 0, None), (2, 1, 10, None)],
)
def test_scale_down_old_replica_sets_for_rolling_update(unavailable, ready, old, expected_old):
    old_rs = rs("foo-v2", old, ready)
    changes, _ = d.scale_down_old_replica_sets_for_rolling_update(
        [old_rs], [old_rs], deploy(10, 0, unavailable)
    )
    assert changes.get("foo-v2") == expected_old


def test_rolling_update_of_three_replicas_goes_one_pod_at_a_time():
    # The docs' nginx-deployment (3 replicas, 25 %/25 %): new RS 0 → 1 while the old keeps 3.
    dep = deploy(3, "25%", "25%")
    old_rs, new_rs = rs("old", 3, 3, created=0), rs("new", 0, 0, created=10)
    assert d.rollout_rolling(dep, new_rs, [old_rs]) == {"new": 1}
    # New Pod not yet available: nothing may go (4 − 3 − 1 = 0).
    new_rs = rs("new", 1, 0, created=10)
    assert d.rollout_rolling(dep, new_rs, [old_rs]) == {}
    # Once it is available, one old Pod goes.
    new_rs = rs("new", 1, 1, created=10)
    assert d.rollout_rolling(dep, new_rs, [old_rs]) == {"old": 2}


# deployment_util_test.go TestDeploymentComplete: (desired, current, updated, available, maxUnavailable, maxSurge).
@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((5, 5, 5, 4, 1, 0), False),
        ((5, 5, 5, 3, 1, 0), False),
        ((5, 5, 5, 5, 0, 0), True),
        ((5, 5, 4, 5, 0, 0), False),
        ((1, 2, 1, 1, 0, 1), False),
        ((1, 1, 1, 0, 1, 1), False),
    ],
)
def test_deployment_complete(args, expected):
    desired, current, updated, available, unavailable, surge = args
    dep = deploy(desired, surge, unavailable)
    dep["metadata"]["generation"] = 0
    status = {"replicas": current, "updatedReplicas": updated, "availableReplicas": available}
    assert d.deployment_complete(dep, status) is expected


# deployment_util_test.go TestDeploymentProgressing: old (current, updated, ready, available) → new.
@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ((10, 4, 4, 4), (10, 6, 4, 4), True),
        ((10, 4, 4, 4), (10, 4, 4, 4), False),
        ((10, 4, 6, 6), (8, 4, 6, 6), True),
        ((10, 7, 3, 3), (10, 6, 3, 3), False),
        ((10, 4, 7, 7), (8, 8, 5, 5), True),
        ((10, 10, 9, 8), (10, 10, 10, 8), True),
        ((10, 10, 10, 9), (10, 10, 10, 10), True),
    ],
)
def test_deployment_progressing(old, new, expected):
    keys = ("replicas", "updatedReplicas", "readyReplicas", "availableReplicas")
    dep = {"metadata": {"name": "foo"}, "spec": {}, "status": dict(zip(keys, old, strict=True))}
    assert d.deployment_progressing(dep, dict(zip(keys, new, strict=True))) is expected


# deployment_util_test.go TestDeploymentTimedOut: times are 00:01:09 / 00:01:11, now 00:01:20.
@pytest.mark.parametrize(
    ("deadline", "reason", "last_update", "expected"),
    [
        (None, "", 69, False),
        (d.MAX_INT32, "", 69, False),
        (10, "", 69, True),
        (10, "", 71, False),
        (600, d.NEW_RS_AVAILABLE_REASON, 0, False),
    ],
)
def test_deployment_timed_out(deadline, reason, last_update, expected):
    dep = {"metadata": {"name": "foo"}, "spec": {"progressDeadlineSeconds": deadline}}
    condition = {
        "type": "Progressing",
        "status": "True",
        "reason": reason,
        "lastUpdateTime": timestamp(last_update),
    }
    assert d.deployment_timed_out(dep, {"conditions": [condition]}, now=80) is expected


# deployment_util_test.go TestSetCondition.
def test_set_condition():
    progressing = {"type": "Progressing", "status": "False", "reason": "ForSomeReason"}
    progressing2 = {"type": "Progressing", "status": "True", "reason": "BecauseItIs"}
    available = {"type": "Available", "status": "True", "reason": "AwesomeController"}
    assert d.set_condition({}, available) == {"conditions": [available]}
    assert d.set_condition({"conditions": [progressing]}, available) == {
        "conditions": [progressing, available]
    }
    assert d.set_condition({"conditions": [progressing]}, progressing2) == {
        "conditions": [progressing2]
    }


def test_set_condition_keeps_transition_time_when_only_the_reason_changes():
    old = d.new_condition("Progressing", "True", "NewReplicaSetCreated", "x", now=10)
    new = d.new_condition("Progressing", "True", "ReplicaSetUpdated", "y", now=50)
    result = d.set_condition({"conditions": [old]}, new)["conditions"][0]
    assert result["lastTransitionTime"] == timestamp(10)
    assert result["lastUpdateTime"] == timestamp(50)


# pkg/api/v1/pod/util_test.go TestIsPodAvailable: Ready since `since`, checked at now=10.
@pytest.mark.parametrize(
    ("ready", "min_ready", "since", "expected"),
    [(False, 0, 10, False), (True, 0, 10, True), (True, 1, 10, False), (True, 1, 8, True)],
)
def test_is_pod_available(ready, min_ready, since, expected):
    condition = {
        "type": "Ready",
        "status": "True" if ready else "False",
        "lastTransitionTime": timestamp(since),
    }
    pod = {"status": {"conditions": [condition]}}
    assert d.is_pod_available(pod, min_ready, now=10) is expected


def test_calculate_status_and_available_condition():
    # sync.go calculateStatus: unavailableReplicas uses Σ spec.replicas.
    dep = deploy(3, 1, 0)
    old_rs = rs("old", 1, 1, status_replicas=2)
    new_rs = rs("new", 3, 1)
    new_rs["status"]["readyReplicas"] = 2
    status = d.calculate_status([old_rs, new_rs], new_rs, dep, now=5)
    assert (status["replicas"], status["updatedReplicas"], status["readyReplicas"]) == (5, 3, 2)
    assert (status["availableReplicas"], status["unavailableReplicas"]) == (2, 2)
    available = d.get_condition(status, "Available")
    assert available["status"] == "False"
    assert available["reason"] == "MinimumReplicasUnavailable"
    assert available["message"] == "Deployment does not have minimum availability."


def test_sync_rollout_status_messages():
    dep = deploy(1, 1, 0)
    dep["metadata"]["name"] = "web"
    dep["status"] = {"conditions": [d.new_replica_set_created_condition("web-5d", now=0)]}
    new_rs = rs("web-5d", 1, 1)
    status = d.sync_rollout_status([new_rs], new_rs, dep, now=3)
    progressing = d.get_condition(status, "Progressing")
    assert progressing["reason"] == "NewReplicaSetAvailable"
    assert progressing["message"] == 'ReplicaSet "web-5d" has successfully progressed.'
    available = d.get_condition(status, "Available")
    assert (available["reason"], available["message"]) == (
        "MinimumReplicasAvailable",
        "Deployment has minimum availability.",
    )


def test_progress_deadline_exceeded_after_the_deadline_without_progress():
    dep = deploy(1, 1, 0, progressDeadlineSeconds=600)
    dep["metadata"]["name"] = "web"
    new_rs = rs("web-bad", 1, 0)
    dep["status"] = {
        "replicas": 1,
        "updatedReplicas": 1,
        "conditions": [d.new_condition("Progressing", "True", "ReplicaSetUpdated", "x", now=10)],
    }
    assert (
        d.get_condition(d.sync_rollout_status([new_rs], new_rs, dep, now=610), "Progressing")[
            "reason"
        ]
        == "ReplicaSetUpdated"
    )
    assert (
        d.requeue_stuck_deployment(dep, d.calculate_status([new_rs], new_rs, dep, 100), now=100)
        == 511
    )
    status = d.sync_rollout_status([new_rs], new_rs, dep, now=611)
    progressing = d.get_condition(status, "Progressing")
    assert (progressing["status"], progressing["reason"]) == ("False", "ProgressDeadlineExceeded")
    assert progressing["message"] == 'ReplicaSet "web-bad" has timed out progressing.'


def test_paused_and_resumed_conditions():
    dep = deploy(1, 1, 0, paused=True)
    status = d.check_paused_conditions(dep, now=1)
    condition = d.get_condition(status, "Progressing")
    assert (condition["status"], condition["reason"], condition["message"]) == (
        "Unknown",
        "DeploymentPaused",
        "Deployment is paused",
    )
    dep = {**dep, "spec": {**dep["spec"], "paused": False}, "status": status}
    condition = d.get_condition(d.check_paused_conditions(dep, now=2), "Progressing")
    assert (condition["reason"], condition["message"]) == (
        "DeploymentResumed",
        "Deployment is resumed",
    )
    timed_out = {
        **dep,
        "spec": {**dep["spec"], "paused": True},
        "status": {
            "conditions": [
                {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded"}
            ]
        },
    }
    assert d.check_paused_conditions(timed_out, now=3) is None


def test_pod_template_hash_uses_the_safe_alphabet_and_changes_with_collision_count():
    template = {
        "metadata": {"labels": {"app": "nginx"}},
        "spec": {"containers": [{"name": "nginx", "image": "nginx:1.14.2"}]},
    }
    value = d.compute_hash(template)
    assert set(value) <= set("456789bcdf")
    assert 1 <= len(value) <= 10
    assert d.compute_hash(template) == value
    # controller_utils_test.go TestComputeHash: different collision counts, different hashes.
    assert d.compute_hash(template, 1) != d.compute_hash(template, 2)
    assert d.compute_hash({}, None) != d.compute_hash({}, 2**31 - 1)


def test_safe_encode_string_maps_digits():
    assert d.safe_encode_string("0123456789") == "456789bcdf"


def test_new_replica_set_name_labels_and_annotations():
    dep = deploy(3, "25%", "25%")
    dep["metadata"].update(
        name="nginx-deployment", uid="u1", annotations={"team": "a", d.REVISION_ANNOTATION: "1"}
    )
    dep["spec"]["selector"] = {"matchLabels": {"app": "nginx"}}
    dep["spec"]["template"] = {"metadata": {"labels": {"app": "nginx"}}, "spec": {"containers": []}}
    created = d.new_replica_set(dep, "66b6c48dd5", 1, 1, now=0)
    assert created["metadata"]["name"] == "nginx-deployment-66b6c48dd5"
    assert created["spec"]["selector"]["matchLabels"] == {
        "app": "nginx",
        "pod-template-hash": "66b6c48dd5",
    }
    assert created["metadata"]["labels"]["pod-template-hash"] == "66b6c48dd5"
    assert created["metadata"]["annotations"] == {
        "team": "a",
        d.REVISION_ANNOTATION: "1",
        d.DESIRED_REPLICAS_ANNOTATION: "3",
        d.MAX_REPLICAS_ANNOTATION: "4",
    }
    assert created["metadata"]["ownerReferences"][0]["controller"] is True
    assert d.equal_ignore_hash(created["spec"]["template"], dep["spec"]["template"])


def test_reused_replica_set_keeps_its_old_revision_in_the_history():
    dep = deploy(3)
    old = rs("web-a", 0, annotations={d.REVISION_ANNOTATION: "1"})
    annotations = d.new_replica_set_annotations(dep, old, 3, exists=True)
    assert annotations[d.REVISION_ANNOTATION] == "3"
    assert annotations[d.REVISION_HISTORY_ANNOTATION] == "1"
    annotations = d.new_replica_set_annotations(
        dep, {"metadata": {"annotations": annotations}}, 5, exists=True
    )
    assert annotations[d.REVISION_HISTORY_ANNOTATION] == "1,3"
    # Revisions compare as numbers: 9 → 10 is an update.
    nine = rs("web-b", 0, annotations={d.REVISION_ANNOTATION: "9"})
    assert d.new_replica_set_annotations(dep, nine, 10, exists=True)[d.REVISION_ANNOTATION] == "10"


def test_rollback_to_previous_revision_and_its_refusals():
    template1 = {
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "nginx:1.14.2"}]},
    }
    template2 = {
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "nginx:1.161"}]},
    }
    rs1 = {
        "metadata": {"name": "web-1", "annotations": {d.REVISION_ANNOTATION: "1"}},
        "spec": {
            "template": {
                **template1,
                "metadata": {"labels": {"app": "web", "pod-template-hash": "1"}},
            }
        },
    }
    rs2 = {
        "metadata": {"name": "web-2", "annotations": {d.REVISION_ANNOTATION: "2"}},
        "spec": {"template": template2},
    }
    dep = {
        "metadata": {"name": "web", "annotations": {d.REVISION_ANNOTATION: "2"}},
        "spec": {"template": template2},
    }
    text, patched = d.rollback(dep, [rs1, rs2])
    assert text == "rolled back"
    assert patched["spec"]["template"] == template1
    assert patched["metadata"]["annotations"] == {d.REVISION_ANNOTATION: "2"}
    text, patched = d.rollback({**dep, "spec": {"template": template1}}, [rs1, rs2])
    assert (text, patched) == (
        "skipped rollback (current template already matches revision 0)",
        None,
    )
    with pytest.raises(d.RollbackError, match=r'^no rollout history found for deployment "web"$'):
        d.rollback(dep, [rs2])
    with pytest.raises(d.RollbackError, match=r"^unable to find specified revision 7 in history$"):
        d.rollback(dep, [rs1, rs2], 7)
    with pytest.raises(
        d.RollbackError,
        match=r"^you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again$",
    ):
        d.rollback({**dep, "spec": {"template": template2, "paused": True}}, [rs1, rs2])


def test_recreate_scales_old_down_then_waits_then_creates():
    dep = deploy(3, strategy="Recreate")
    old_rs = rs("old", 3, 3)
    old_rs["metadata"]["uid"] = "old-uid"
    assert d.rollout_recreate(dep, None, [old_rs], {}) == {"old": 0}
    stopped = rs("old", 0, 0, status_replicas=0)
    stopped["metadata"]["uid"] = "old-uid"
    running = {"status": {"phase": "Running"}}
    assert d.rollout_recreate(dep, None, [stopped], {"old-uid": [running]}) == "wait"
    assert (
        d.rollout_recreate(dep, None, [stopped], {"old-uid": [{"status": {"phase": "Succeeded"}}]})
        == "create"
    )
    new_rs = rs("new", 0)
    assert d.rollout_recreate(dep, new_rs, [stopped], {}) == {"new": 3}


def test_proportional_scaling_during_a_rollout():
    # sync_test.go TestScale "proportional scaling: 5 -> 10" (maxSurge 0, maxUnavailable 0 → 1).
    dep = deploy(10, 0, 0)
    annotations = {d.MAX_REPLICAS_ANNOTATION: "5", d.DESIRED_REPLICAS_ANNOTATION: "5"}
    new_rs = rs("foo-v2", 2, created=20, annotations=annotations)
    old_rs = rs("foo-v1", 3, created=10, annotations=annotations)
    assert d.scale(dep, new_rs, [old_rs]) == {"foo-v2": 4, "foo-v1": 6}
    # "proportional scaling: 5 -> 3".
    assert d.scale(deploy(3, 0, 0), new_rs, [old_rs]) == {"foo-v2": 1, "foo-v1": 2}


def test_scaling_event_messages():
    assert (
        d.scaling_event_message("web-7d4b9c", 1, 3)
        == "Scaled up replica set web-7d4b9c to 3 from 1"
    )
    assert (
        d.scaling_event_message("web-7d4b9c", 3, 0)
        == "Scaled down replica set web-7d4b9c to 0 from 3"
    )
    assert (
        d.new_replica_set_event_message("web-7d4b9c", 3) == "Scaled up replica set web-7d4b9c to 3"
    )


def test_revisions():
    sets = [rs(f"r{i}", 0, annotations={d.REVISION_ANNOTATION: str(i)}) for i in (1, 4, 2)]
    assert (d.max_revision(sets), d.last_revision(sets)) == (4, 2)


# deployment.md "Updating a Deployment": the describe events of a 3-replica rollout, here with
# the `from N` that current controllers add, when every new Pod becomes available at once.
def test_the_docs_rolling_update_event_sequence():
    dep = deploy(3, "25%", "25%")
    sets = {
        "old": rs("nginx-deployment-2035384211", 3, 3, created=0),
        "new": rs("nginx-deployment-1564180365", 0, 0, created=10),
    }
    messages = []
    for _ in range(20):
        changes = d.rollout_rolling(dep, sets["new"], [sets["old"]])
        if not changes:
            break
        for key, current in list(sets.items()):
            name = current["metadata"]["name"]
            if name in changes:
                messages.append(d.scaling_event_message(name, d.replicas(current), changes[name]))
                sets[key] = rs(
                    name,
                    changes[name],
                    changes[name],
                    created=to_seconds(current["metadata"]["creationTimestamp"]),
                )
    assert messages == [
        "Scaled up replica set nginx-deployment-1564180365 to 1 from 0",
        "Scaled down replica set nginx-deployment-2035384211 to 2 from 3",
        "Scaled up replica set nginx-deployment-1564180365 to 2 from 1",
        "Scaled down replica set nginx-deployment-2035384211 to 1 from 2",
        "Scaled up replica set nginx-deployment-1564180365 to 3 from 2",
        "Scaled down replica set nginx-deployment-2035384211 to 0 from 1",
    ]


def test_sync_kind_dispatch():
    # deployment_controller.go syncDeployment: paused or scaling event → sync (scale only).
    annotated = rs("web-a", 3, annotations={d.DESIRED_REPLICAS_ANNOTATION: "3"})
    assert d.sync_kind(deploy(3), [annotated]) == "rolling"
    assert d.sync_kind(deploy(5), [annotated]) == "scale"
    assert d.sync_kind(deploy(3, paused=True), [annotated]) == "scale"
    assert d.sync_kind(deploy(3, strategy="Recreate"), [annotated]) == "recreate"
