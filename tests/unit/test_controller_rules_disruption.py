"""PodDisruptionBudget status, the Eviction API decision and kubectl drain's texts."""

from __future__ import annotations

import pytest

from webapp.engine.controllers.rules import disruption as d
from webapp.engine.controllers.rules.timestamps import timestamp

OWNER = {"kind": "StatefulSet", "name": "zk", "uid": "zk-uid", "controller": True}


def pod(name, ready=True, phase="Running", deleting=False, labels=None, owner=OWNER, node="node-1"):
    metadata = {"name": name, "namespace": "default", "labels": labels or {"app": "zookeeper"}}
    if owner is not None:
        metadata["ownerReferences"] = [owner]
    if deleting:
        metadata["deletionTimestamp"] = timestamp(1)
    conditions = [{"type": "Ready", "status": "True" if ready else "False"}]
    return {
        "metadata": metadata,
        "spec": {"nodeName": node},
        "status": {"phase": phase, "conditions": conditions},
    }


def pdb(name="zk-pdb", **spec):
    body = {"selector": {"matchLabels": {"app": "zookeeper"}}}
    body.update(spec)
    return {
        "metadata": {"name": name, "namespace": "default", "generation": 1},
        "spec": body,
        "status": {},
    }


def scale_of(replicas):
    return lambda ref: (ref["uid"], replicas)


# The docs' zk-pdb (tasks/run-application/configure-pdb.md): minAvailable 2 over 3 Pods.
def test_min_available_int_counts_matching_pods():
    pods = [pod(f"zk-{i}") for i in range(3)]
    status = d.pdb_status(pdb(minAvailable=2), pods, scale_of(3), now=10)
    assert (
        status["expectedPods"],
        status["desiredHealthy"],
        status["currentHealthy"],
        status["disruptionsAllowed"],
    ) == (3, 2, 3, 1)
    condition = status["conditions"][0]
    assert (condition["type"], condition["status"], condition["reason"]) == (
        "DisruptionAllowed",
        "True",
        "SufficientPods",
    )


@pytest.mark.parametrize(
    ("spec", "scale", "expected", "desired"),
    [
        ({"maxUnavailable": 1}, 3, 3, 2),
        ({"maxUnavailable": "30%"}, 5, 5, 3),  # 30 % of 5 = 1.5 rounds up to 2
        ({"minAvailable": "50%"}, 5, 5, 3),  # 2.5 rounds up to 3
        ({"maxUnavailable": 10}, 3, 3, 0),  # never below 0
    ],
)
def test_get_expected_pod_count(spec, scale, expected, desired):
    # disruption.go getExpectedPodCount: percentages round up for both fields.
    pods = [pod(f"zk-{i}") for i in range(scale)]
    assert d.get_expected_pod_count(pdb(**spec), pods, scale_of(scale)) == (expected, desired)


def test_unhealthy_and_terminating_pods_are_not_healthy_and_allowed_is_never_negative():
    pods = [pod("zk-0"), pod("zk-1", ready=False), pod("zk-2", deleting=True)]
    status = d.pdb_status(pdb(minAvailable=2), pods, scale_of(3), now=10)
    assert (status["currentHealthy"], status["disruptionsAllowed"]) == (1, 0)
    assert status["conditions"][0]["reason"] == "InsufficientPods"


def test_recently_evicted_pod_does_not_count_for_two_minutes():
    pods = [pod(f"zk-{i}") for i in range(3)]
    budget = pdb(minAvailable=2)
    budget["status"] = {"disruptedPods": {"zk-0": timestamp(100)}}
    assert d.pdb_status(budget, pods, scale_of(3), now=150)["currentHealthy"] == 2
    kept, expired = d.build_disrupted_pod_map(budget, pods, now=300)
    assert (kept, expired) == ({}, ["zk-0"])


def test_unmanaged_pods_are_not_in_the_expected_scale():
    pods = [pod("zk-0"), pod("loose", owner=None)]
    assert d.expected_scale(pods, scale_of(3)) == (3, ["default/loose"])


def observed(budget, **status):
    budget["status"] = {"observedGeneration": 1, **status}
    return budget


def test_eviction_refused_with_429_when_no_disruption_is_allowed():
    budget = observed(pdb(minAvailable=2), disruptionsAllowed=0, desiredHealthy=2, currentHealthy=2)
    result = d.evict(pod("zk-1"), [budget], now=5)
    assert (result.code, result.message) == (
        429,
        "Cannot evict pod as it would violate the pod's disruption budget.",
    )
    assert result.cause == "The disruption budget zk-pdb needs 2 healthy pods and has 2 currently"
    line = d.eviction_retry_line(pod("zk-1"), result)
    assert (
        line
        == 'error when evicting pods/"zk-1" -n "default" (will retry after 5s): Cannot evict pod as it would violate the pod\'s disruption budget.'
    )


def test_eviction_allowed_decrements_and_records_the_disrupted_pod():
    budget = observed(pdb(minAvailable=2), disruptionsAllowed=1, desiredHealthy=2, currentHealthy=3)
    result = d.evict(pod("zk-1"), [budget], now=5)
    assert result.allowed
    assert result.pdb_status["disruptionsAllowed"] == 0
    assert result.pdb_status["disruptedPods"] == {"zk-1": timestamp(5)}
    assert result.condition["reason"] == "EvictionByEvictionAPI"
    assert result.condition["message"] == "Eviction API: evicting"


def test_eviction_waits_for_the_controller_to_observe_a_new_pdb():
    budget = pdb(minAvailable=2)
    budget["metadata"]["generation"] = 2
    budget["status"] = {"observedGeneration": 1, "disruptionsAllowed": 1}
    result = d.evict(pod("zk-0"), [budget], now=5)
    assert (result.code, result.cause, result.retry_after) == (
        429,
        "The disruption budget zk-pdb is still being processed by the server.",
        10,
    )


def test_pdb_check_is_skipped_for_pending_finished_or_deleting_pods():
    # eviction.go canIgnorePDB.
    budget = observed(pdb(minAvailable=3), disruptionsAllowed=0)
    for victim in (
        pod("a", phase="Pending"),
        pod("b", phase="Succeeded"),
        pod("c", phase="Failed"),
        pod("d", deleting=True),
    ):
        result = d.evict(victim, [budget], now=5)
        assert result.allowed
        assert result.pdb_status is None


def test_unready_pod_is_evicted_without_budget_when_the_pdb_is_healthy():
    budget = observed(pdb(minAvailable=2), disruptionsAllowed=0, desiredHealthy=2, currentHealthy=2)
    assert d.evict(pod("zk-3", ready=False), [budget], now=5).allowed
    budget["status"]["currentHealthy"] = 1
    assert not d.evict(pod("zk-3", ready=False), [budget], now=5).allowed
    budget["spec"]["unhealthyPodEvictionPolicy"] = "AlwaysAllow"
    assert d.evict(pod("zk-3", ready=False), [budget], now=5).allowed


def test_more_than_one_pdb_is_refused():
    result = d.evict(
        pod("zk-0"),
        [observed(pdb("a"), disruptionsAllowed=1), observed(pdb("b"), disruptionsAllowed=1)],
        now=5,
    )
    assert (result.code, result.message) == (
        500,
        "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
    )


def test_drain_texts():
    assert d.cordon_message("node-1", was_unschedulable=False) == "node/node-1 cordoned"
    assert d.cordon_message("node-1", was_unschedulable=True) == "node/node-1 already cordoned"
    assert (
        d.cordon_message("node-1", was_unschedulable=True, desired=False)
        == "node/node-1 uncordoned"
    )
    assert d.evicting_line(pod("zk-0")) == "evicting pod default/zk-0"
    assert d.evicted_line(pod("zk-0")) == "pod/zk-0 evicted"
    assert d.drained_line("node-1") == "node/node-1 drained"


def test_pods_for_deletion_filters():
    daemon = pod(
        "kube-proxy-x",
        owner={"kind": "DaemonSet", "name": "kube-proxy", "uid": "ds", "controller": True},
    )
    daemon["metadata"]["namespace"] = "kube-system"
    loose = pod("loose", owner=None)
    elsewhere = pod("zk-9", node="node-2")
    evictable, warnings, errors = d.pods_for_deletion(
        [pod("zk-0"), daemon, loose, elsewhere], "node-1"
    )
    assert [p["metadata"]["name"] for p in evictable] == ["zk-0"]
    assert (
        d.drain_warning_line(warnings)
        == "Warning: ignoring DaemonSet-managed Pods: kube-system/kube-proxy-x"
    )
    assert errors == [
        "cannot delete Pods that declare no controller (use --force to override): default/loose"
    ]
    _, warnings, errors = d.pods_for_deletion([loose], "node-1", force=True)
    assert (warnings, errors) == (["deleting Pods that declare no controller: default/loose"], [])
