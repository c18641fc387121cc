"""The ReplicaSet controller's rules (``pkg/controller/replicaset``), as pure functions.

Sources: ``replica_set.go`` (manageReplicas, getPodsToDelete,
getPodsRankedByRelatedPodsOnSameNode, slowStartBatch), ``replica_set_utils.go``
(calculateStatus), ``pkg/controller/controller_utils.go`` (ActivePodsWithRanks,
FilterActivePods, getPodsPrefix, RealPodControl events) and apiserver's
``pkg/storage/names/generate.go`` with apimachinery's ``util/rand`` (generateName).
"""

from __future__ import annotations

import copy
import functools
import math
import random
import re
from collections.abc import Iterable, Sequence
from typing import Any

from webapp.engine.controllers.rules.deployment import (
    is_pod_available,
    is_pod_ready,
    replicas,
)
from webapp.engine.controllers.rules.objects import metadata as _metadata
from webapp.engine.controllers.rules.objects import status as _status
from webapp.engine.controllers.rules.timestamps import timestamp, to_seconds

Obj = dict[str, Any]

ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
RANDOM_LENGTH = 5
MAX_NAME_LENGTH = 63
MAX_GENERATED_NAME_LENGTH = MAX_NAME_LENGTH - RANDOM_LENGTH
BURST_REPLICAS = 500
SLOW_START_INITIAL_BATCH_SIZE = 1
POD_DELETION_COST_ANNOTATION = "controller.kubernetes.io/pod-deletion-cost"
_PHASE_ORDINAL = {"Pending": 0, "Unknown": 1, "Running": 2}
_DNS1123_SUBDOMAIN = re.compile(
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
)


# --- names ------------------------------------------------------------------------------


def random_string(rng: random.Random, length: int = RANDOM_LENGTH) -> str:
    """``utilrand.String``: ``length`` characters of ``bcdfghjklmnpqrstvwxz2456789``.

    No vowels (no accidental words) and no 0, 1, 3 (no look-alikes). The characters come
    from ``rng``, so a seeded simulation names its Pods the same way every run.
    """
    return "".join(rng.choice(ALPHANUMS) for _ in range(length))


def generate_name(base: str, rng: random.Random) -> str:
    """``SimpleNameGenerator.GenerateName``: base (cut to 58 characters) + 5 random characters."""
    return base[:MAX_GENERATED_NAME_LENGTH] + random_string(rng)


def pods_prefix(controller_name: str) -> str:
    """``getPodsPrefix``: ``<owner>-``, or without the dash if that is not a valid Pod name prefix."""
    prefix = f"{controller_name}-"
    body = prefix.rstrip("-")
    if body and len(prefix) <= 253 and _DNS1123_SUBDOMAIN.match(body):
        return prefix
    return controller_name


# --- which Pods count -------------------------------------------------------------------


def is_pod_active(pod: Obj) -> bool:
    """``IsPodActive``: not Succeeded, not Failed, no deletionTimestamp."""
    return (
        _status(pod).get("phase") not in ("Succeeded", "Failed")
        and _metadata(pod).get("deletionTimestamp") is None
    )


def is_pod_terminating(pod: Obj) -> bool:
    """``isPodTerminating`` (CountTerminatingPods): not terminal and has a deletionTimestamp."""
    return (
        _status(pod).get("phase") not in ("Succeeded", "Failed")
        and _metadata(pod).get("deletionTimestamp") is not None
    )


def filter_active_pods(pods: Iterable[Obj]) -> list[Obj]:
    """``FilterActivePods``."""
    return [pod for pod in pods if is_pod_active(pod)]


# --- deletion ranking -------------------------------------------------------------------


def _deletion_cost(pod: Obj) -> int:
    """``GetDeletionCostFromPodAnnotations``: an int32, 0 when unset or invalid."""
    value = (_metadata(pod).get("annotations") or {}).get(POD_DELETION_COST_ANNOTATION)
    try:
        cost = int(str(value), 10) if value is not None else 0
    except ValueError:
        return 0
    return cost if -(2**31) <= cost < 2**31 else 0


def _pod_ready_time(pod: Obj) -> float | None:
    """``podReadyTime``: the Ready=True condition's lastTransitionTime (None = zero time)."""
    if not is_pod_ready(pod):
        return None
    for condition in _status(pod).get("conditions") or []:
        if condition.get("type") == "Ready" and condition.get("status") == "True":
            return to_seconds(condition.get("lastTransitionTime"))
    return None


def _after_or_zero(t1: float | None, t2: float | None) -> bool:
    """``afterOrZero``: a zero time counts as the newest."""
    if t1 is None or t2 is None:
        return t1 is None
    return t1 > t2


def _log2_rank(moment: float, now: float) -> int:
    """floor(log2(now − t)) with the duration in nanoseconds, −1 when not positive."""
    nanoseconds = round((now - moment) * 1e9)
    return int(math.log2(nanoseconds)) if nanoseconds > 0 else -1


def _compare_times(
    t1: float | None, t2: float | None, uid1: str, uid2: str, now: float | None, logarithmic: bool
) -> bool:
    if not logarithmic or now is None or t1 is None or t2 is None:
        return _after_or_zero(t1, t2)
    diff = _log2_rank(t1, now) - _log2_rank(t2, now)
    if diff == 0:
        return uid1 < uid2
    return diff < 0


def _max_container_restarts(pod: Obj) -> tuple[int, int]:
    """``maxContainerRestarts``: (max regular restarts, max sidecar restarts)."""
    regular = max(
        (int(s.get("restartCount") or 0) for s in _status(pod).get("containerStatuses") or []),
        default=0,
    )
    sidecars = {
        c.get("name")
        for c in (pod.get("spec") or {}).get("initContainers") or []
        if c.get("restartPolicy") == "Always"
    }
    sidecar = max(
        (
            int(s.get("restartCount") or 0)
            for s in _status(pod).get("initContainerStatuses") or []
            if s.get("name") in sidecars
        ),
        default=0,
    )
    return regular, sidecar


def active_pods_with_ranks_less(
    pod_i: Obj,
    pod_j: Obj,
    rank_i: int,
    rank_j: int,
    now: float | None,
    *,
    pod_deletion_cost: bool = True,
    logarithmic_scale_down: bool = True,
) -> bool:
    """``ActivePodsWithRanks.Less``: True when ``pod_i`` should be deleted before ``pod_j``.

    The first rule that tells them apart decides: unassigned before assigned; Pending
    before Unknown before Running; not Ready before Ready; lower pod-deletion-cost first
    (gate PodDeletionCost, on by default); higher rank (more related Pods on the same node)
    first; Ready for less time first; more restarts first; newer creationTimestamp first.
    With LogarithmicScaleDown (on by default) the two time rules compare floor(log2) of the
    age in nanoseconds, and equal buckets fall back to the UID.
    """
    node_i = (pod_i.get("spec") or {}).get("nodeName") or ""
    node_j = (pod_j.get("spec") or {}).get("nodeName") or ""
    if node_i != node_j and (not node_i or not node_j):
        return not node_i
    phase_i = _PHASE_ORDINAL.get(_status(pod_i).get("phase", ""), 0)
    phase_j = _PHASE_ORDINAL.get(_status(pod_j).get("phase", ""), 0)
    if phase_i != phase_j:
        return phase_i < phase_j
    ready_i, ready_j = is_pod_ready(pod_i), is_pod_ready(pod_j)
    if ready_i != ready_j:
        return not ready_i
    if pod_deletion_cost:
        cost_i, cost_j = _deletion_cost(pod_i), _deletion_cost(pod_j)
        if cost_i != cost_j:
            return cost_i < cost_j
    if rank_i != rank_j:
        return rank_i > rank_j
    uid_i, uid_j = _metadata(pod_i).get("uid", ""), _metadata(pod_j).get("uid", "")
    if ready_i and ready_j:
        time_i, time_j = _pod_ready_time(pod_i), _pod_ready_time(pod_j)
        if time_i != time_j:
            return _compare_times(time_i, time_j, uid_i, uid_j, now, logarithmic_scale_down)
    restarts_i, restarts_j = _max_container_restarts(pod_i), _max_container_restarts(pod_j)
    if restarts_i[0] != restarts_j[0]:
        return restarts_i[0] > restarts_j[0]
    if restarts_i[1] != restarts_j[1]:
        return restarts_i[1] > restarts_j[1]
    created_i = to_seconds(_metadata(pod_i).get("creationTimestamp"))
    created_j = to_seconds(_metadata(pod_j).get("creationTimestamp"))
    if created_i != created_j:
        return _compare_times(created_i, created_j, uid_i, uid_j, now, logarithmic_scale_down)
    return False


def get_pods_ranked_by_related_pods_on_same_node(
    pods_to_rank: Sequence[Obj], related_pods: Iterable[Obj]
) -> list[int]:
    """``getPodsRankedByRelatedPodsOnSameNode``: per Pod, the active related Pods on its node."""
    on_node: dict[str, int] = {}
    for pod in related_pods:
        if is_pod_active(pod):
            node = (pod.get("spec") or {}).get("nodeName") or ""
            on_node[node] = on_node.get(node, 0) + 1
    return [on_node.get((pod.get("spec") or {}).get("nodeName") or "", 0) for pod in pods_to_rank]


def get_pods_to_delete(
    filtered_pods: Sequence[Obj], related_pods: Iterable[Obj], diff: int, now: float
) -> list[Obj]:
    """``getPodsToDelete``: the first ``diff`` Pods in deletion order.

    ``related_pods`` are the active Pods of every ReplicaSet with the same owner (for a
    Deployment, all its ReplicaSets), used for the co-location rank. Sorting is skipped
    when all Pods go. Go's sort.Sort is not stable; this sort is, which gives the same
    order for up to 12 Pods (Go sorts those by insertion) and a fixed one beyond.
    """
    pods = list(filtered_pods)
    if diff < len(pods):
        ranks = get_pods_ranked_by_related_pods_on_same_node(pods, related_pods)
        indexed = list(zip(pods, ranks, strict=True))

        def compare(a: tuple[Obj, int], b: tuple[Obj, int]) -> int:
            if active_pods_with_ranks_less(a[0], b[0], a[1], b[1], now):
                return -1
            if active_pods_with_ranks_less(b[0], a[0], b[1], a[1], now):
                return 1
            return 0

        pods = [pod for pod, _ in sorted(indexed, key=functools.cmp_to_key(compare))]
    return pods[:diff]


def sort_active_pods(pods: Sequence[Obj]) -> list[Obj]:
    """``sort.Sort(controller.ActivePods(pods))``: the older order without ranks, deletion cost
    or logarithmic buckets (the Job controller's ``activePodsForRemoval`` uses it)."""

    def compare(a: Obj, b: Obj) -> int:
        if active_pods_with_ranks_less(
            a, b, 0, 0, None, pod_deletion_cost=False, logarithmic_scale_down=False
        ):
            return -1
        if active_pods_with_ranks_less(
            b, a, 0, 0, None, pod_deletion_cost=False, logarithmic_scale_down=False
        ):
            return 1
        return 0

    return sorted(pods, key=functools.cmp_to_key(compare))


# --- manageReplicas ---------------------------------------------------------------------


def manage_replicas_diff(
    rs: Obj, active_pods: Sequence[Obj], burst_replicas: int = BURST_REPLICAS
) -> int:
    """``manageReplicas``: Pods to create (> 0) or delete (< 0), capped at burstReplicas."""
    diff = len(active_pods) - replicas(rs)
    if diff < 0:
        return min(-diff, burst_replicas)
    if diff > 0:
        return -min(diff, burst_replicas)
    return 0


def slow_start_batch_sizes(
    count: int, initial_batch_size: int = SLOW_START_INITIAL_BATCH_SIZE
) -> list[int]:
    """``slowStartBatch``'s batch sizes when every call succeeds: 1, 2, 4, … up to ``count``.

    After a batch with an error the controller stops; the Pods never tried lower the
    expectations (``skipped_after_failure``).
    """
    sizes = []
    remaining = count
    batch = min(remaining, initial_batch_size)
    while batch > 0:
        sizes.append(batch)
        remaining -= batch
        batch = min(2 * batch, remaining)
    return sizes


def skipped_after_failure(
    count: int, failed_batch_index: int, initial_batch_size: int = SLOW_START_INITIAL_BATCH_SIZE
) -> int:
    """Pods slowStartBatch never tries when batch number ``failed_batch_index`` (0-based) fails."""
    sizes = slow_start_batch_sizes(count, initial_batch_size)
    return sum(sizes[failed_batch_index + 1 :])


def new_pod_from_template(
    owner: Obj, owner_kind: str, rng: random.Random, now: float, api_version: str = "apps/v1"
) -> Obj:
    """``GetPodFromTemplate`` + generateName: the Pod a ReplicaSet creates.

    Labels, annotations, finalizers and spec from the template; ``generateName``
    ``<owner>-`` and the generated name; a controller ownerReference.
    """
    metadata = _metadata(owner)
    template = copy.deepcopy(((owner.get("spec") or {}).get("template")) or {})
    template_metadata = template.get("metadata") or {}
    prefix = pods_prefix(metadata.get("name", ""))
    pod_metadata: Obj = {
        "name": generate_name(prefix, rng),
        "generateName": prefix,
        "namespace": metadata.get("namespace", "default"),
        "creationTimestamp": timestamp(now),
        "labels": dict(template_metadata.get("labels") or {}),
        "ownerReferences": [
            {
                "apiVersion": api_version,
                "kind": owner_kind,
                "name": metadata.get("name", ""),
                "uid": metadata.get("uid", ""),
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
    }
    if template_metadata.get("annotations"):
        pod_metadata["annotations"] = dict(template_metadata["annotations"])
    if template_metadata.get("finalizers"):
        pod_metadata["finalizers"] = list(template_metadata["finalizers"])
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": pod_metadata,
        "spec": template.get("spec") or {},
    }


# --- events -----------------------------------------------------------------------------


def successful_create_event(pod_name: str) -> tuple[str, str, str]:
    """RealPodControl: (type, reason, message) after creating a Pod."""
    return ("Normal", "SuccessfulCreate", f"Created pod: {pod_name}")


def failed_create_event(error: str) -> tuple[str, str, str]:
    return ("Warning", "FailedCreate", f"Error creating: {error}")


def successful_delete_event(pod_name: str) -> tuple[str, str, str]:
    return ("Normal", "SuccessfulDelete", f"Deleted pod: {pod_name}")


def failed_delete_event(error: str) -> tuple[str, str, str]:
    return ("Warning", "FailedDelete", f"Error deleting: {error}")


# --- status -----------------------------------------------------------------------------


def _labels_match(selector_labels: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(k) == v for k, v in selector_labels.items())


def calculate_status(
    rs: Obj,
    pods: Sequence[Obj],
    now: float,
    manage_replicas_error: str | None = None,
    *,
    terminating_replicas: bool = False,
) -> Obj:
    """``calculateStatus`` (replica_set_utils.go) from the RS's owned Pods.

    replicas counts active Pods; fullyLabeledReplicas those matching the template's labels;
    readyReplicas the Ready ones; availableReplicas the Ready ones past minReadySeconds. A
    manageReplicas error adds ReplicaFailure True with reason FailedCreate (too few Pods) or
    FailedDelete (too many); no error removes it. ``terminating_replicas`` adds
    status.terminatingReplicas (feature DeploymentReplicaSetTerminatingReplicas).
    """
    active = filter_active_pods(pods)
    template_labels = ((((rs.get("spec") or {}).get("template")) or {}).get("metadata") or {}).get(
        "labels"
    ) or {}
    min_ready = float((rs.get("spec") or {}).get("minReadySeconds") or 0)
    status = copy.deepcopy(_status(rs))
    status["replicas"] = len(active)
    status["fullyLabeledReplicas"] = sum(
        1 for p in active if _labels_match(template_labels, _metadata(p).get("labels") or {})
    )
    status["readyReplicas"] = sum(1 for p in active if is_pod_ready(p))
    status["availableReplicas"] = sum(1 for p in active if is_pod_available(p, min_ready, now))
    status["observedGeneration"] = _metadata(rs).get("generation", 1)
    if terminating_replicas:
        status["terminatingReplicas"] = sum(1 for p in pods if is_pod_terminating(p))
    conditions = [c for c in status.get("conditions") or [] if c.get("type") != "ReplicaFailure"]
    failure = next(
        (c for c in status.get("conditions") or [] if c.get("type") == "ReplicaFailure"), None
    )
    if manage_replicas_error is not None and failure is None:
        diff = len(active) - replicas(rs)
        reason = "FailedCreate" if diff < 0 else ("FailedDelete" if diff > 0 else "")
        conditions.append(
            {
                "type": "ReplicaFailure",
                "status": "True",
                "lastTransitionTime": timestamp(now),
                "reason": reason,
                "message": manage_replicas_error,
            }
        )
    elif manage_replicas_error is not None and failure is not None:
        conditions.append(failure)
    if conditions:
        status["conditions"] = conditions
    else:
        status.pop("conditions", None)
    return status


def requeue_for_availability(rs: Obj, pods: Sequence[Obj], now: float) -> float | None:
    """``syncReplicaSet``: when every active Pod is Ready but some are not yet available, the
    controller syncs again after minReadySeconds (``AddAfter``). Returns that virtual time,
    or None when no such requeue is due."""
    min_ready = float((rs.get("spec") or {}).get("minReadySeconds") or 0)
    active = filter_active_pods(pods)
    if min_ready <= 0 or not active or not all(is_pod_ready(p) for p in active):
        return None
    if all(is_pod_available(p, min_ready, now) for p in active):
        return None
    return now + min_ready
