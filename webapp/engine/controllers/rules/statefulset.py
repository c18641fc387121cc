"""The StatefulSet controller's rules (``pkg/controller/statefulset``), as pure functions.

Sources: ``stateful_set_control.go`` (updateStatefulSet, processReplica, processCondemned,
runForAll, computeReplicaStatus, completeRollingUpdate,
updateStatefulSetAfterInvariantEstablished), ``stateful_set_utils.go`` (getOrdinal,
newVersionedStatefulSetPod, isRunningAndReady, isUnavailable) and
``stateful_pod_control.go`` (event texts).

Revisions are named as ControllerRevisions are, ``<set>-<hash>``; the caller keeps each
revision's Pod template (as Kubernetes keeps ControllerRevisions) and builds Pods with
``new_stateful_set_pod``. PersistentVolumeClaims: rules/storage.py.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from webapp.engine.controllers.rules.deployment import (
    compute_hash,
    get_scaled_value_from_int_or_percent,
    is_pod_available,
    is_pod_ready,
)
from webapp.engine.controllers.rules.objects import metadata as _metadata
from webapp.engine.controllers.rules.objects import spec as _spec
from webapp.engine.controllers.rules.objects import status as _status
from webapp.engine.controllers.rules.timestamps import timestamp

Obj = dict[str, Any]

REVISION_LABEL = "controller-revision-hash"
POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
_ORDINAL = re.compile(r"^(.*)-([0-9]+)$")


def replicas(sts: Obj) -> int:
    value = _spec(sts).get("replicas")
    return 1 if value is None else int(value)


def start_ordinal(sts: Obj) -> int:
    """``getStartOrdinal``: spec.ordinals.start (0 by default)."""
    return int((_spec(sts).get("ordinals") or {}).get("start") or 0)


def end_ordinal(sts: Obj) -> int:
    return start_ordinal(sts) + replicas(sts) - 1


def allows_burst(sts: Obj) -> bool:
    """``allowsBurst``: podManagementPolicy Parallel (OrderedReady is the default)."""
    return _spec(sts).get("podManagementPolicy") == "Parallel"


def update_strategy(sts: Obj) -> Obj:
    """spec.updateStrategy with the defaults: RollingUpdate, partition 0 (the API server fills
    partition only inside a given rollingUpdate block; kubectl's texts look at the raw spec)."""
    strategy = _spec(sts).get("updateStrategy") or {}
    kind = strategy.get("type", "RollingUpdate")
    result: Obj = {"type": kind}
    if kind == "RollingUpdate":
        rolling = dict(strategy.get("rollingUpdate") or {})
        rolling.setdefault("partition", 0)
        result["rollingUpdate"] = rolling
    return result


def partition(sts: Obj) -> int:
    return int((update_strategy(sts).get("rollingUpdate") or {}).get("partition") or 0)


def pod_name(sts: Obj, ordinal: int) -> str:
    """``getPodName``: ``<set>-<ordinal>``."""
    return f"{_metadata(sts).get('name', '')}-{ordinal}"


def get_parent_name_and_ordinal(pod: Obj) -> tuple[str, int]:
    """``getParentNameAndOrdinal``: (set name, ordinal) from the Pod's name, ("", −1) if none."""
    match = _ORDINAL.match(_metadata(pod).get("name", ""))
    if not match:
        return "", -1
    return match.group(1), int(match.group(2))


def get_ordinal(pod: Obj) -> int:
    return get_parent_name_and_ordinal(pod)[1]


def pod_revision(pod: Obj) -> str:
    return (_metadata(pod).get("labels") or {}).get(REVISION_LABEL, "")


def revision_name(sts: Obj, template: Obj, collision_count: int | None = None) -> str:
    """A ControllerRevision name, ``<set>-<hash of the template>``."""
    return f"{_metadata(sts).get('name', '')}-{compute_hash(template, collision_count)}"


# --- Pod states -------------------------------------------------------------------------


def is_created(pod: Obj | None) -> bool:
    return pod is not None and bool(_status(pod).get("phase"))


def is_terminating(pod: Obj | None) -> bool:
    return pod is not None and _metadata(pod).get("deletionTimestamp") is not None


def is_running_and_ready(pod: Obj | None) -> bool:
    """``isRunningAndReady``: phase Running and Ready=True."""
    return pod is not None and _status(pod).get("phase") == "Running" and is_pod_ready(pod)


def is_running_and_available(pod: Obj | None, min_ready_seconds: float, now: float) -> bool:
    """``isRunningAndAvailable``: Running and available for minReadySeconds."""
    return (
        pod is not None
        and _status(pod).get("phase") == "Running"
        and is_pod_available(pod, min_ready_seconds, now)
    )


def is_unavailable(pod: Obj | None, min_ready_seconds: float, now: float) -> bool:
    """``isUnavailable``: not created, terminating, or not Running and available."""
    return (
        not is_created(pod)
        or is_terminating(pod)
        or not is_running_and_available(pod, min_ready_seconds, now)
    )


def _min_ready(sts: Obj) -> float:
    return float(_spec(sts).get("minReadySeconds") or 0)


# --- Pods -------------------------------------------------------------------------------


def new_stateful_set_pod(
    sts: Obj, ordinal: int, revision: str, template: Obj | None = None, now: float | None = None
) -> Obj:
    """``newStatefulSetPod`` + ``updateIdentity`` + ``setPodRevision``.

    Name ``<set>-<ordinal>``, hostname the Pod name, subdomain spec.serviceName, labels
    ``statefulset.kubernetes.io/pod-name``, ``apps.kubernetes.io/pod-index`` and
    ``controller-revision-hash``, a controller ownerReference to the StatefulSet.
    """
    metadata = _metadata(sts)
    source = copy.deepcopy(template if template is not None else _spec(sts).get("template") or {})
    labels = dict((source.get("metadata") or {}).get("labels") or {})
    name = pod_name(sts, ordinal)
    labels.update({POD_NAME_LABEL: name, POD_INDEX_LABEL: str(ordinal), REVISION_LABEL: revision})
    pod_metadata: Obj = {
        "name": name,
        "namespace": metadata.get("namespace", "default"),
        "labels": labels,
        "ownerReferences": [
            {
                "apiVersion": "apps/v1",
                "kind": "StatefulSet",
                "name": metadata.get("name", ""),
                "uid": metadata.get("uid", ""),
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
    }
    if now is not None:
        pod_metadata["creationTimestamp"] = timestamp(now)
    annotations = (source.get("metadata") or {}).get("annotations")
    if annotations:
        pod_metadata["annotations"] = dict(annotations)
    spec = source.get("spec") or {}
    spec["hostname"] = name
    if _spec(sts).get("serviceName"):
        spec["subdomain"] = _spec(sts)["serviceName"]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": pod_metadata, "spec": spec}


def revision_for_new_pod(
    sts: Obj, ordinal: int, current_revision: str, update_revision: str
) -> str:
    """``newVersionedStatefulSetPod``: ordinals below the partition keep the current revision
    (without a rollingUpdate block: those below status.currentReplicas); the rest get the
    update revision."""
    strategy = _spec(sts).get("updateStrategy") or {}
    if strategy.get("type", "RollingUpdate") == "RollingUpdate":
        rolling = strategy.get(
            "rollingUpdate"
        )  # as given: the API defaults partition only inside it
        bound = (
            int(rolling.get("partition") or 0)
            if rolling is not None
            else int(_status(sts).get("currentReplicas") or 0)
        )
        if ordinal < start_ordinal(sts) + bound:
            return current_revision
    return update_revision


def create_event(sts: Obj, pod: str) -> tuple[str, str, str]:
    """``recordPodEvent``: ``create Pod web-0 in StatefulSet web successful``."""
    return (
        "Normal",
        "SuccessfulCreate",
        f"create Pod {pod} in StatefulSet {_metadata(sts).get('name', '')} successful",
    )


def delete_event(sts: Obj, pod: str) -> tuple[str, str, str]:
    return (
        "Normal",
        "SuccessfulDelete",
        f"delete Pod {pod} in StatefulSet {_metadata(sts).get('name', '')} successful",
    )


# --- status -----------------------------------------------------------------------------


def compute_status(
    sts: Obj, pods: Sequence[Obj], current_revision: str, update_revision: str, now: float
) -> Obj:
    """``updateStatus``/``computeReplicaStatus`` then ``completeRollingUpdate``.

    replicas = created Pods; readyReplicas Running+Ready; availableReplicas also past
    minReadySeconds; currentReplicas/updatedReplicas the non-terminating Pods at each revision.
    A RollingUpdate whose Pods are all updated and ready makes the update revision current.
    """
    created = [p for p in pods if is_created(p)]
    status: Obj = {
        "observedGeneration": _metadata(sts).get("generation", 1),
        "replicas": len(created),
        "readyReplicas": sum(1 for p in created if is_running_and_ready(p)),
        "availableReplicas": sum(
            1
            for p in created
            if is_running_and_ready(p) and is_running_and_available(p, _min_ready(sts), now)
        ),
        "currentReplicas": sum(
            1 for p in created if not is_terminating(p) and pod_revision(p) == current_revision
        ),
        "updatedReplicas": sum(
            1 for p in created if not is_terminating(p) and pod_revision(p) == update_revision
        ),
        "currentRevision": current_revision,
        "updateRevision": update_revision,
        "collisionCount": int(_status(sts).get("collisionCount") or 0),
    }
    if (
        update_strategy(sts)["type"] == "RollingUpdate"
        and status["updatedReplicas"] == status["replicas"]
        and status["readyReplicas"] == status["replicas"]
    ):
        status["currentReplicas"] = status["updatedReplicas"]
        status["currentRevision"] = update_revision
    return status


# --- one sync ---------------------------------------------------------------------------


@dataclass
class StatefulSetSync:
    """What one ``updateStatefulSet`` decides: ``create`` as (ordinal, revision) pairs to build
    with ``new_stateful_set_pod``, ``delete`` Pod names, and the new ``status``."""

    status: Obj
    create: list[tuple[int, str]] = field(default_factory=list)
    delete: list[str] = field(default_factory=list)
    waiting_for: str | None = None


def sync_stateful_set(
    sts: Obj,
    pods: Sequence[Obj],
    current_revision: str,
    update_revision: str,
    now: float,
    *,
    max_unavailable_gate: bool = False,
) -> StatefulSetSync:
    """One ``updateStatefulSet``: scale up in order, then down in reverse, then update.

    OrderedReady (monotonic): create one missing Pod and stop; stop at a Pod that is
    terminating, not Running and Ready, or not available; delete the highest condemned
    ordinal only when every lower Pod is healthy (or it is itself the first unhealthy Pod),
    one per sync. Parallel: create and delete everything at once. A Failed or Succeeded Pod
    is deleted and recreated on a later sync. Then, unless OnDelete, the highest ordinal ≥
    partition not at the update revision is deleted (one per sync), waiting while a Pod
    above it is unavailable. ``waiting_for`` names the Pod a monotonic sync stopped at.
    """
    min_ready = _min_ready(sts)
    result = StatefulSetSync(
        status=compute_status(sts, pods, current_revision, update_revision, now)
    )
    start, end = start_ordinal(sts), end_ordinal(sts)
    slots: list[Obj | None] = [None] * replicas(sts)
    condemned: list[Obj] = []
    for pod in pods:
        ordinal = get_ordinal(pod)
        if start <= ordinal <= end:
            slots[ordinal - start] = pod
        elif ordinal >= 0:
            condemned.append(pod)
    condemned.sort(key=get_ordinal, reverse=True)
    # The first unavailable Pod: a replica (a missing one counts), else the lowest condemned.
    gate = next((p for p in slots if is_unavailable(p, min_ready, now)), None)
    if gate is None:
        gate = next((p for p in reversed(condemned) if is_unavailable(p, min_ready, now)), None)
    if _metadata(sts).get("deletionTimestamp") is not None:
        return result
    monotonic = not allows_burst(sts)

    for index, pod in enumerate(slots):
        ordinal = start + index
        if pod is not None and _status(pod).get("phase") in ("Failed", "Succeeded"):
            if not is_terminating(pod):
                result.delete.append(_metadata(pod).get("name", ""))
            if monotonic:
                result.waiting_for = _metadata(pod).get("name")
                return result
            continue
        if pod is None:
            result.create.append(
                (ordinal, revision_for_new_pod(sts, ordinal, current_revision, update_revision))
            )
            if monotonic:
                result.waiting_for = pod_name(sts, ordinal)
                return result
            continue
        if monotonic and (
            is_terminating(pod)
            or not is_running_and_ready(pod)
            or not is_running_and_available(pod, min_ready, now)
        ):
            result.waiting_for = _metadata(pod).get("name")
            return result
    for pod in condemned:
        name = _metadata(pod).get("name", "")
        if is_terminating(pod):
            if monotonic:
                result.waiting_for = name
                return result
            continue
        unhealthy = not is_running_and_ready(pod) or not is_running_and_available(
            pod, min_ready, now
        )
        if monotonic and unhealthy and pod is not gate:
            result.waiting_for = _metadata(gate or {}).get("name")
            return result
        result.delete.append(name)
        if monotonic:
            return result

    strategy = update_strategy(sts)
    if strategy["type"] == "OnDelete":
        return result
    if max_unavailable_gate:
        _update_with_max_unavailable(sts, slots, update_revision, now, result)
        return result
    for target in range(len(slots) - 1, partition(sts) - 1, -1):
        pod = slots[target]
        if pod is None:  # being created in this (burst) sync: not available yet
            result.waiting_for = pod_name(sts, start + target)
            return result
        if pod_revision(pod) != update_revision and not is_terminating(pod):
            result.delete.append(_metadata(pod).get("name", ""))
            result.status["currentReplicas"] -= 1
            return result
        if is_unavailable(pod, min_ready, now):
            result.waiting_for = _metadata(pod).get("name")
            return result
    return result


def max_unavailable(sts: Obj) -> int:
    """rollingUpdate.maxUnavailable (int or percent of replicas, rounded down, at least 1)."""
    value = (update_strategy(sts).get("rollingUpdate") or {}).get("maxUnavailable", 1)
    return max(1, get_scaled_value_from_int_or_percent(value, replicas(sts), False))


def _update_with_max_unavailable(
    sts: Obj, slots: Sequence[Obj | None], update_revision: str, now: float, result: StatefulSetSync
) -> None:
    """``updateStatefulSetAfterInvariantEstablished`` (gate MaxUnavailableStatefulSet)."""
    unavailable = sum(1 for p in slots if is_unavailable(p, _min_ready(sts), now))
    allowed = max_unavailable(sts)
    if unavailable > allowed:
        return
    budget = allowed - unavailable
    for target in range(len(slots) - 1, partition(sts) - 1, -1):
        if budget <= 0:
            break
        pod = slots[target]
        if pod is not None and pod_revision(pod) != update_revision and not is_terminating(pod):
            result.delete.append(_metadata(pod).get("name", ""))
            result.status["currentReplicas"] -= 1
            budget -= 1
