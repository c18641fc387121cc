"""The ReplicaSet controller's rules, with the table tests ported from Kubernetes."""

from __future__ import annotations

import random

import pytest

from webapp.engine.controllers.rules import replicaset as r
from webapp.engine.controllers.rules.timestamps import timestamp

NOW = 100 * 24 * 3600.0
MONTH = 30 * 24 * 3600.0
HOUR = 3600.0


def pod(name, node, phase, ready, restarts=0, ready_since=None, created=None, annotations=None):
    """The `pod` helper of controller_utils_test.go TestSortingActivePodsWithRanks."""
    status = {"phase": phase}
    if ready:
        condition = {"type": "Ready", "status": "True"}
        if ready_since is not None:
            condition["lastTransitionTime"] = timestamp(ready_since)
        status["conditions"] = [condition]
        status["containerStatuses"] = [{"restartCount": restarts}]
    metadata = {"name": name}
    if created is not None:
        metadata["creationTimestamp"] = timestamp(created)
    if annotations:
        metadata["annotations"] = annotations
    return {"metadata": metadata, "spec": {"nodeName": node}, "status": status}


COST = r.POD_DELETION_COST_ANNOTATION
unscheduled = pod("unscheduled", "", "Pending", False)
scheduled_pending = pod("pending", "node", "Pending", False)
unknown_phase = pod("unknown-phase", "node", "Unknown", False)
running_not_ready = pod("not-ready", "node", "Running", False)
ready_no_ltt = pod("ready-no-last-transition-time", "node", "Running", True)
ready_now = pod("ready-now", "node", "Running", True, 0, NOW, NOW)
ready_then = pod("ready-then", "node", "Running", True, 0, NOW - MONTH, NOW - MONTH)
ready_high_restarts = pod("ready-high-restarts", "node", "Running", True, 9001, NOW, NOW)
ready_now_created_then = pod("ready-now-created-then", "node", "Running", True, 0, NOW, NOW - MONTH)
low_cost = pod("low-deletion-cost", "node", "Running", True, 0, NOW, NOW - MONTH, {COST: "10"})
high_cost = pod("high-deletion-cost", "node", "Running", True, 0, NOW, NOW - MONTH, {COST: "100"})
unscheduled_5h = pod("unscheduled-5-hours", "", "Pending", False, 0, NOW - 5 * HOUR, NOW - 5 * HOUR)
unscheduled_8h = pod(
    "unscheduled-10-hours", "", "Pending", False, 0, NOW - 8 * HOUR, NOW - 8 * HOUR
)
ready_2h = pod("ready-2-hours", "", "Running", True, 0, NOW - 2 * HOUR, NOW - MONTH)
ready_5h = pod("ready-5-hours", "", "Running", True, 0, NOW - 5 * HOUR, NOW - MONTH)
ready_8h = pod("ready-10-hours", "", "Running", True, 0, NOW - 8 * HOUR, NOW - MONTH)


# controller_utils_test.go TestSortingActivePodsWithRanks, equalityTests (ranks 1, 1).
@pytest.mark.parametrize(
    ("p1", "p2"),
    [
        (unscheduled, None),
        (scheduled_pending, None),
        (unknown_phase, None),
        (running_not_ready, None),
        (ready_now_created_then, None),
        (ready_now, None),
        (ready_then, None),
        (ready_high_restarts, None),
        (unscheduled_5h, unscheduled_8h),
        (ready_5h, ready_8h),
    ],
)
def test_equal_pods_rank_equal(p1, p2):
    p2 = p2 or p1
    assert not r.active_pods_with_ranks_less(p1, p2, 1, 1, NOW)
    assert not r.active_pods_with_ranks_less(p2, p1, 1, 1, NOW)


# controller_utils_test.go TestSortingActivePodsWithRanks, inequalityTests.
@pytest.mark.parametrize(
    ("lesser", "lesser_rank", "greater", "greater_rank", "deletion_cost"),
    [
        (unscheduled, 1, scheduled_pending, 2, True),
        (unscheduled, 2, scheduled_pending, 1, True),
        (scheduled_pending, 1, unknown_phase, 2, True),
        (unknown_phase, 1, running_not_ready, 2, True),
        (running_not_ready, 1, ready_no_ltt, 1, True),
        (ready_no_ltt, 1, ready_now, 1, True),
        (ready_now, 2, ready_no_ltt, 1, True),
        (ready_now, 1, ready_then, 1, True),
        (ready_now, 2, ready_then, 1, True),
        (ready_high_restarts, 1, ready_now, 1, True),
        (ready_now, 2, ready_high_restarts, 1, True),
        (ready_now, 1, ready_now_created_then, 1, True),
        (ready_now_created_then, 2, ready_now, 1, True),
        (low_cost, 2, high_cost, 1, True),
        (high_cost, 2, low_cost, 1, False),
        (ready_2h, 1, ready_5h, 1, True),
    ],
)
def test_pods_are_deleted_in_rank_order(lesser, lesser_rank, greater, greater_rank, deletion_cost):
    assert r.active_pods_with_ranks_less(
        lesser, greater, lesser_rank, greater_rank, NOW, pod_deletion_cost=deletion_cost
    )
    assert not r.active_pods_with_ranks_less(
        greater, lesser, greater_rank, lesser_rank, NOW, pod_deletion_cost=deletion_cost
    )


def test_without_logarithmic_scale_down_ready_time_compares_exactly():
    assert r.active_pods_with_ranks_less(
        ready_5h, ready_8h, 1, 1, NOW, logarithmic_scale_down=False
    )


def test_get_pods_to_delete_prefers_the_node_with_more_related_pods():
    a1 = pod("a1", "node-a", "Running", True, 0, NOW - HOUR, NOW - HOUR)
    a2 = pod("a2", "node-a", "Running", True, 0, NOW - HOUR, NOW - HOUR)
    b1 = pod("b1", "node-b", "Running", True, 0, NOW - HOUR, NOW - HOUR)
    # An old ReplicaSet's Pod on node-b makes node-b the doubled-up one.
    old_b = pod("old-b", "node-b", "Running", True, 0, NOW - HOUR, NOW - HOUR)
    old_b2 = pod("old-b2", "node-b", "Running", True, 0, NOW - HOUR, NOW - HOUR)
    assert r.get_pods_to_delete([a1, a2, b1], [a1, a2, b1, old_b, old_b2], 1, NOW) == [b1]
    # A not-ready Pod goes before any ready one, whatever the rank.
    starting = pod("starting", "node-a", "Running", False)
    assert r.get_pods_to_delete([a1, b1, starting], [a1, b1, starting], 1, NOW) == [starting]
    # Deleting all of them: no sorting, the given order.
    assert r.get_pods_to_delete([a1, b1], [a1, b1], 2, NOW) == [a1, b1]


def test_generated_names_use_the_safe_alphabet_from_the_seeded_rng():
    first = r.generate_name("web-7d4b9c-", random.Random(1))
    assert first == r.generate_name("web-7d4b9c-", random.Random(1))
    assert first.startswith("web-7d4b9c-")
    suffix = first.removeprefix("web-7d4b9c-")
    assert len(suffix) == 5
    assert set(suffix) <= set("bcdfghjklmnpqrstvwxz2456789")
    assert len(r.generate_name("x" * 80, random.Random(0))) == 63


def test_pods_prefix():
    assert r.pods_prefix("frontend") == "frontend-"
    assert r.pods_prefix("Frontend") == "Frontend"


@pytest.mark.parametrize(
    ("count", "sizes"),
    [(0, []), (1, [1]), (3, [1, 2]), (10, [1, 2, 4, 3]), (15, [1, 2, 4, 8])],
)
def test_slow_start_batch_sizes(count, sizes):
    # replica_set.go slowStartBatch: batches double from SlowStartInitialBatchSize = 1.
    assert r.slow_start_batch_sizes(count) == sizes


def test_skipped_after_failure():
    # 10 Pods, the second batch (2 Pods) fails: the 4 + 3 never tried are skipped.
    assert r.skipped_after_failure(10, 1) == 7


def test_manage_replicas_diff_is_capped_by_burst_replicas():
    rs = {"spec": {"replicas": 700}}
    assert r.manage_replicas_diff(rs, []) == 500
    assert r.manage_replicas_diff({"spec": {"replicas": 1}}, [{}, {}, {}]) == -2


def test_terminating_and_failed_pods_are_not_active():
    assert not r.is_pod_active(
        {"metadata": {"deletionTimestamp": timestamp(1)}, "status": {"phase": "Running"}}
    )
    assert not r.is_pod_active({"metadata": {}, "status": {"phase": "Failed"}})
    assert r.is_pod_active({"metadata": {}, "status": {"phase": "Pending"}})


def test_calculate_status_counts_ready_and_available_with_min_ready_seconds():
    rs = {
        "metadata": {"generation": 2},
        "spec": {
            "replicas": 3,
            "minReadySeconds": 10,
            "template": {"metadata": {"labels": {"app": "web"}}},
        },
        "status": {},
    }
    labels = {"labels": {"app": "web"}}
    ready_long = {
        "metadata": labels,
        "status": {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": timestamp(0)}],
        },
    }
    ready_new = {
        "metadata": labels,
        "status": {
            "phase": "Running",
            "conditions": [
                {"type": "Ready", "status": "True", "lastTransitionTime": timestamp(25)}
            ],
        },
    }
    gone = {
        "metadata": {**labels, "deletionTimestamp": timestamp(20)},
        "status": {"phase": "Running"},
    }
    status = r.calculate_status(
        rs, [ready_long, ready_new, gone], now=30, terminating_replicas=True
    )
    assert status == {
        "replicas": 2,
        "fullyLabeledReplicas": 2,
        "readyReplicas": 2,
        "availableReplicas": 1,
        "observedGeneration": 2,
        "terminatingReplicas": 1,
    }
    assert r.requeue_for_availability(rs, [ready_long, ready_new], now=30) == 40
    failed = r.calculate_status(
        rs, [ready_long], now=30, manage_replicas_error='pods "web-x" is forbidden'
    )
    assert failed["conditions"][0]["reason"] == "FailedCreate"
    assert (
        r.calculate_status({**rs, "status": failed}, [ready_long], now=31).get("conditions") is None
    )


def test_new_pod_from_template():
    owner = {
        "metadata": {"name": "web-7d4b9c", "namespace": "default", "uid": "rs-uid"},
        "spec": {
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            }
        },
    }
    created = r.new_pod_from_template(owner, "ReplicaSet", random.Random(3), now=5)
    assert created["metadata"]["generateName"] == "web-7d4b9c-"
    assert created["metadata"]["name"].startswith("web-7d4b9c-")
    assert created["metadata"]["ownerReferences"][0] == {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "name": "web-7d4b9c",
        "uid": "rs-uid",
        "controller": True,
        "blockOwnerDeletion": True,
    }
    assert (
        r.successful_create_event(created["metadata"]["name"])[2]
        == f"Created pod: {created['metadata']['name']}"
    )
    assert r.successful_delete_event("p") == ("Normal", "SuccessfulDelete", "Deleted pod: p")
