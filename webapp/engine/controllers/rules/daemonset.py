"""The DaemonSet controller's rules (``pkg/controller/daemon``), as pure functions.

Sources: ``daemon_controller.go`` (NodeShouldRunDaemonPod, predicates, podsShouldBeOnNode,
manage, updateDaemonSetStatus), ``update.go`` (rollingUpdate without surge,
findUpdatedPodsOnNode, updatedDesiredNodeCounts) and ``util/daemonset_util.go``
(AddOrUpdateDaemonPodTolerations, CreatePodTemplate, ReplaceDaemonSetPodNodeNameNodeAffinity,
IsPodUpdated).

A daemon Pod is bound to its node by node affinity ``metadata.name In [node]`` (the
scheduler then binds it). Nodes are visited in name order (Go ranges over a map): the
engine stays deterministic.
"""

from __future__ import annotations

import copy
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
from webapp.engine.controllers.rules.replicaset import generate_name, pods_prefix
from webapp.engine.controllers.rules.timestamps import timestamp
from webapp.engine.scheduler import (
    node_taints,
    pod_matches_node_selector_and_affinity,
    tolerates_taint,
)

Obj = dict[str, Any]

REVISION_LABEL = "controller-revision-hash"  # apps.DefaultDaemonSetUniqueLabelKey
TEMPLATE_GENERATION_LABEL = "pod-template-generation"  # DaemonSetTemplateGenerationKey
TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation"
TAINT_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_UNREACHABLE = "node.kubernetes.io/unreachable"
TAINT_DISK_PRESSURE = "node.kubernetes.io/disk-pressure"
TAINT_MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure"
TAINT_PID_PRESSURE = "node.kubernetes.io/pid-pressure"
TAINT_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
TAINT_NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable"


# --- tolerations and the node predicate --------------------------------------------------


def _exists(key: str, effect: str) -> Obj:
    return {"key": key, "operator": "Exists", "effect": effect}


def add_or_update_toleration(tolerations: list[Obj], toleration: Obj) -> list[Obj]:
    """``AddOrUpdateTolerationInPodSpec``: an equal toleration (key, operator, value,
    effect) is replaced by the new one, else it is appended."""

    def same(a: Obj) -> bool:
        return all(
            (a.get(k) or "") == (toleration.get(k) or "") for k in ("key", "value", "effect")
        ) and (a.get("operator") or "Equal") == (toleration.get("operator") or "Equal")

    out, replaced = [], False
    for existing in tolerations:
        if same(existing):
            out.append(dict(toleration))
            replaced = True
        else:
            out.append(existing)
    if not replaced:
        out.append(dict(toleration))
    return out


def add_or_update_daemon_pod_tolerations(spec: Obj) -> None:
    """``AddOrUpdateDaemonPodTolerations``: a daemon Pod tolerates not-ready and unreachable
    (NoExecute, no tolerationSeconds), disk/memory/pid pressure and unschedulable
    (NoSchedule), and network-unavailable when it uses the host network."""
    wanted = [
        _exists(TAINT_NOT_READY, "NoExecute"),
        _exists(TAINT_UNREACHABLE, "NoExecute"),
        _exists(TAINT_DISK_PRESSURE, "NoSchedule"),
        _exists(TAINT_MEMORY_PRESSURE, "NoSchedule"),
        _exists(TAINT_PID_PRESSURE, "NoSchedule"),
        _exists(TAINT_UNSCHEDULABLE, "NoSchedule"),
    ]
    if spec.get("hostNetwork"):
        wanted.append(_exists(TAINT_NETWORK_UNAVAILABLE, "NoSchedule"))
    tolerations = list(spec.get("tolerations") or [])
    for toleration in wanted:
        tolerations = add_or_update_toleration(tolerations, toleration)
    spec["tolerations"] = tolerations


def replace_daemon_set_pod_node_name_node_affinity(affinity: Obj | None, node: str) -> Obj:
    """``ReplaceDaemonSetPodNodeNameNodeAffinity``: the required node affinity becomes the
    one term ``matchFields metadata.name In [node]`` (the rest of the affinity is kept)."""
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
    affinity = copy.deepcopy(affinity) if affinity else {}
    node_affinity = affinity.setdefault("nodeAffinity", {})
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [term]}
    return affinity


def new_pod(ds: Obj, node_name: str) -> Obj:
    """``NewPod``: the template's Pod with spec.nodeName set and the daemon tolerations."""
    template = copy.deepcopy(_spec(ds).get("template") or {})
    spec = template.get("spec") or {}
    spec["nodeName"] = node_name
    add_or_update_daemon_pod_tolerations(spec)
    return {"metadata": template.get("metadata") or {}, "spec": spec}


def daemon_node_taints(node: Obj) -> list[Obj]:
    """The node's taints as the controller sees them: spec.taints, with the taints the node
    lifecycle controller keeps on it (not-ready / unreachable from its Ready condition,
    ``node.kubernetes.io/unschedulable:NoSchedule`` on a cordoned node)."""
    taints = node_taints(node)
    if (node.get("spec") or {}).get("unschedulable") and not any(
        t.get("key") == TAINT_UNSCHEDULABLE for t in taints
    ):
        taints.append({"key": TAINT_UNSCHEDULABLE, "effect": "NoSchedule"})
    return taints


def _untolerated(taints: Sequence[Obj], tolerations: Sequence[Obj], effects: tuple) -> bool:
    """``FindMatchingUntoleratedTaint`` with a filter on the taint's effect."""
    return any(
        t.get("effect") in effects and not any(tolerates_taint(tol, t) for tol in tolerations)
        for t in taints
    )


def predicates(pod: Obj, node: Obj, taints: Sequence[Obj]) -> tuple[bool, bool, bool]:
    """``predicates``: (fitsNodeName, fitsNodeAffinity, fitsTaints)."""
    name = (_metadata(node)).get("name", "")
    spec = pod.get("spec") or {}
    fits_node_name = not spec.get("nodeName") or spec["nodeName"] == name
    fits_affinity = pod_matches_node_selector_and_affinity(pod, node)
    fits_taints = not _untolerated(taints, spec.get("tolerations") or [],
                                   ("NoExecute", "NoSchedule"))  # fmt: skip
    return fits_node_name, fits_affinity, fits_taints


def node_should_run_daemon_pod(node: Obj, ds: Obj) -> tuple[bool, bool]:
    """``NodeShouldRunDaemonPod``: (shouldRun, shouldContinueRunning).

    A Pod whose node no longer fits only by a NoSchedule taint keeps running; an untolerated
    NoExecute taint, a node name or a node affinity that does not match stops it."""
    pod = new_pod(ds, _metadata(node).get("name", ""))
    template_node = ((_spec(ds).get("template") or {}).get("spec") or {}).get("nodeName")
    if template_node and template_node != _metadata(node).get("name"):
        return False, False
    taints = daemon_node_taints(node)
    fits_name, fits_affinity, fits_taints = predicates(pod, node, taints)
    if not fits_name or not fits_affinity:
        return False, False
    if not fits_taints:
        tolerations = pod["spec"].get("tolerations") or []
        return False, not _untolerated(taints, tolerations, ("NoExecute",))
    return True, True


# --- revisions and the Pods it creates -----------------------------------------------------


def current_hash(ds: Obj) -> str:
    """The ControllerRevision hash of the current template (``controller-revision-hash``)."""
    return compute_hash(_spec(ds).get("template") or {}, _status(ds).get("collisionCount"))


def is_pod_updated(pod: Obj, hash_: str, generation: int | None) -> bool:
    """``IsPodUpdated``: the Pod's revision hash is the current one (or, without a hash, its
    pod-template-generation is the DaemonSet's generation)."""
    labels = _metadata(pod).get("labels") or {}
    if REVISION_LABEL in labels:
        return labels[REVISION_LABEL] == hash_
    return generation is not None and labels.get(TEMPLATE_GENERATION_LABEL) == str(generation)


def create_pod(ds: Obj, node_name: str, hash_: str, rng: Any, now: float) -> Obj:
    """``CreatePodTemplate`` + ``CreatePods``: the template with the daemon tolerations, the
    labels ``controller-revision-hash`` and ``pod-template-generation``, the node affinity
    to ``node_name``, generateName ``<ds>-`` and a controller ownerReference."""
    metadata = _metadata(ds)
    template = copy.deepcopy(_spec(ds).get("template") or {})
    template_metadata = template.get("metadata") or {}
    spec = template.get("spec") or {}
    add_or_update_daemon_pod_tolerations(spec)
    spec["affinity"] = replace_daemon_set_pod_node_name_node_affinity(spec.get("affinity"),
                                                                      node_name)  # fmt: skip
    labels = dict(template_metadata.get("labels") or {})
    labels[TEMPLATE_GENERATION_LABEL] = str(metadata.get("generation", 1))
    labels[REVISION_LABEL] = hash_
    prefix = pods_prefix(metadata.get("name", ""))
    pod_metadata: Obj = {
        "name": generate_name(prefix, rng),
        "generateName": prefix,
        "namespace": metadata.get("namespace", "default"),
        "creationTimestamp": timestamp(now),
        "labels": labels,
        "ownerReferences": [
            {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": metadata.get("name", ""),
             "uid": metadata.get("uid", ""), "controller": True, "blockOwnerDeletion": True}
        ],
    }  # fmt: skip
    if template_metadata.get("annotations"):
        pod_metadata["annotations"] = dict(template_metadata["annotations"])
    return {"apiVersion": "v1", "kind": "Pod", "metadata": pod_metadata, "spec": spec}


def target_node_name(pod: Obj) -> str:
    """``GetTargetNodeName``: spec.nodeName, else the node its affinity names."""
    name = (pod.get("spec") or {}).get("nodeName")
    if name:
        return name
    required = (((pod.get("spec") or {}).get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or {}
    for term in required.get("nodeSelectorTerms") or []:
        for field_ in term.get("matchFields") or []:
            if field_.get("key") == "metadata.name" and field_.get("operator") == "In":
                values = field_.get("values") or []
                if len(values) == 1:
                    return values[0]
    return ""


def nodes_to_daemon_pods(pods: Sequence[Obj]) -> dict[str, list[Obj]]:
    """``getNodesToDaemonPods`` (terminal Pods with a deletionTimestamp left out), each
    node's Pods oldest first."""
    out: dict[str, list[Obj]] = {}
    for pod in pods:
        deleted = _metadata(pod).get("deletionTimestamp") is not None
        if deleted and _status(pod).get("phase") in ("Succeeded", "Failed"):
            continue
        node = target_node_name(pod)
        if node:
            out.setdefault(node, []).append(pod)
    return out


def _created(pod: Obj) -> str:
    return str(_metadata(pod).get("creationTimestamp") or "")


# --- manage --------------------------------------------------------------------------------


@dataclass
class Plan:
    """What one sync decided: nodes needing a Pod, Pods to delete, Warning events."""

    create_on: list[str] = field(default_factory=list)
    delete: list[str] = field(default_factory=list)
    events: list[tuple[str, str, str]] = field(default_factory=list)


def pods_should_be_on_node(node: Obj, ds: Obj, pods: Sequence[Obj], plan: Plan) -> None:
    """``podsShouldBeOnNode`` (no surge)."""
    should_run, should_continue = node_should_run_daemon_pod(node, ds)
    name = _metadata(node).get("name", "")
    if should_run and not pods:
        plan.create_on.append(name)
    elif should_continue:
        running = []
        for pod in pods:
            if _metadata(pod).get("deletionTimestamp") is not None:
                continue
            phase = _status(pod).get("phase")
            if phase == "Failed":
                pod_name = _metadata(pod).get("name", "")
                ns = _metadata(pod).get("namespace", "default")
                plan.events.append(("Warning", "FailedDaemonPod",
                                    f"Found failed daemon pod {ns}/{pod_name} on node {name}, "
                                    "will try to kill it"))  # fmt: skip
                plan.delete.append(pod_name)
                continue
            if phase == "Succeeded":
                plan.delete.append(_metadata(pod).get("name", ""))
                continue
            running.append(pod)
        if len(running) > 1:  # keep the oldest
            running.sort(key=_created)
            plan.delete.extend(_metadata(p).get("name", "") for p in running[1:])
    elif pods:
        plan.delete.extend(
            _metadata(p).get("name", "")
            for p in pods
            if _metadata(p).get("deletionTimestamp") is None
        )


def manage(ds: Obj, nodes: Sequence[Obj], pods: Sequence[Obj]) -> Plan:
    """``manage``: for every node (name order) what it needs; unscheduled Pods whose node
    no longer exists are deleted (``getUnscheduledPodsWithoutNode``; a bound Pod of a
    node that is gone is PodGC's)."""
    by_node = nodes_to_daemon_pods(pods)
    plan = Plan()
    names = set()
    for node in sorted(nodes, key=lambda n: _metadata(n).get("name", "")):
        names.add(_metadata(node).get("name", ""))
        pods_should_be_on_node(node, ds, by_node.get(_metadata(node).get("name", ""), []), plan)
    for node_name in sorted(by_node):
        if node_name not in names:
            plan.delete.extend(
                _metadata(p).get("name", "")
                for p in by_node[node_name]
                if _metadata(p).get("deletionTimestamp") is None
                and not (p.get("spec") or {}).get("nodeName")
            )
    return plan


# --- rolling update ------------------------------------------------------------------------


def update_strategy(ds: Obj) -> Obj:
    return _spec(ds).get("updateStrategy") or {"type": "RollingUpdate"}


def desired_number_scheduled(ds: Obj, nodes: Sequence[Obj]) -> int:
    return sum(1 for node in nodes if node_should_run_daemon_pod(node, ds)[0])


def max_unavailable(ds: Obj, desired: int) -> int:
    """``updatedDesiredNodeCounts``: maxUnavailable scaled on the desired count (rounded
    up), at least 1 when maxSurge is 0 as well."""
    rolling = update_strategy(ds).get("rollingUpdate") or {}
    value = get_scaled_value_from_int_or_percent(rolling.get("maxUnavailable", 1), desired, True)
    surge = get_scaled_value_from_int_or_percent(rolling.get("maxSurge", 0), desired, True)
    if desired > 0 and value == 0 and surge == 0:
        value = 1
    return value


def find_updated_pods_on_node(pods: Sequence[Obj], hash_: str, generation: int | None
                              ) -> tuple[Obj | None, Obj | None, bool]:  # fmt: skip
    """``findUpdatedPodsOnNode``: (new Pod, old Pod, ok); not ok with two of either."""
    new = old = None
    for pod in pods:
        if _metadata(pod).get("deletionTimestamp") is not None:
            continue
        if is_pod_updated(pod, hash_, generation):
            if new is not None:
                return None, None, False
            new = pod
        else:
            if old is not None:
                return None, None, False
            old = pod
    return new, old, True


def rolling_update(ds: Obj, nodes: Sequence[Obj], pods: Sequence[Obj], hash_: str,
                   now: float) -> list[str]:  # fmt: skip
    """``rollingUpdate`` with maxSurge 0: the old Pods to delete now (unavailable old Pods
    always; available ones while fewer than maxUnavailable Pods are unavailable)."""
    by_node = nodes_to_daemon_pods(pods)
    min_ready = float(_spec(ds).get("minReadySeconds") or 0)
    generation = _metadata(ds).get("generation")
    limit = max_unavailable(ds, desired_number_scheduled(ds, nodes))
    unavailable = 0
    allowed: list[str] = []
    candidates: list[str] = []
    for node_name in sorted(by_node):
        new, old, ok = find_updated_pods_on_node(by_node[node_name], hash_, generation)
        if not ok or (new is None) == (old is None):
            unavailable += 1
        elif new is not None:
            if not is_pod_available(new, min_ready, now):
                unavailable += 1
        elif not is_pod_available(old, min_ready, now):
            allowed.append(_metadata(old).get("name", ""))
        elif unavailable < limit:
            candidates.append(_metadata(old).get("name", ""))
    remaining = min(max(limit - unavailable, 0), len(candidates))
    return allowed + candidates[:remaining]


# --- status --------------------------------------------------------------------------------


def daemon_set_status(ds: Obj, nodes: Sequence[Obj], pods: Sequence[Obj], hash_: str,
                      now: float) -> Obj:  # fmt: skip
    """``updateDaemonSetStatus``: the counts over the nodes (the oldest Pod of each node)."""
    by_node = nodes_to_daemon_pods(pods)
    min_ready = float(_spec(ds).get("minReadySeconds") or 0)
    generation = _metadata(ds).get("generation")
    desired = current = ready = available = updated = misscheduled = 0
    for node in nodes:
        should_run, _ = node_should_run_daemon_pod(node, ds)
        on_node = sorted(by_node.get(_metadata(node).get("name", ""), []), key=_created)
        if should_run:
            desired += 1
            if on_node:
                current += 1
                pod = on_node[0]
                if is_pod_ready(pod):
                    ready += 1
                    if is_pod_available(pod, min_ready, now):
                        available += 1
                if is_pod_updated(pod, hash_, generation):
                    updated += 1
        elif on_node:
            misscheduled += 1
    status: Obj = {
        "currentNumberScheduled": current,
        "numberMisscheduled": misscheduled,
        "desiredNumberScheduled": desired,
        "numberReady": ready,
        "observedGeneration": generation,
        "updatedNumberScheduled": updated,
        "numberAvailable": available,
    }
    if desired - available > 0:
        status["numberUnavailable"] = desired - available
    if _status(ds).get("collisionCount") is not None:
        status["collisionCount"] = _status(ds)["collisionCount"]
    return {k: v for k, v in status.items() if v or k in (
        "currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady")}  # fmt: skip


def spec_defaults(spec: Obj) -> Obj:
    """``SetDefaults_DaemonSet``: RollingUpdate with maxUnavailable 1 and maxSurge 0,
    revisionHistoryLimit 10."""
    strategy = spec.setdefault("updateStrategy", {})
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        rolling = strategy.setdefault("rollingUpdate", {})
        rolling.setdefault("maxUnavailable", 1)
        rolling.setdefault("maxSurge", 0)
    spec.setdefault("revisionHistoryLimit", 10)
    return spec
