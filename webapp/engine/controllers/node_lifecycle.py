"""Node loss: the node lifecycle controller and taint-based eviction (KUBERNETES-SEMANTICS §1.7).

``node-down`` stops the kubelet: containers keep running but nothing is reported. After
the node monitor grace period (50 s) the controller marks the node Ready=Unknown, taints it
``node.kubernetes.io/unreachable:NoExecute`` and marks its pods not ready (MarkPodsNotReady:
only the Ready condition, the phase stays Running). A pod tolerating the taint for 300 s
(DefaultTolerationSeconds) is then deleted by the taint-eviction controller and stays
Terminating while the kubelet cannot act. ``node-up`` lets the kubelet post again.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from webapp.engine.core.clock import Timer
from webapp.engine.core.timefmt import rfc3339

NODE_MONITOR_GRACE_PERIOD_MS = 50_000
DEFAULT_TOLERATION_SECONDS = 300
TAINT_UNREACHABLE = "node.kubernetes.io/unreachable"


# taint_eviction.go addConditionAndDeletePod: the condition patched in before the delete
TAINT_EVICTION_CONDITION = {
    "type": "DisruptionTarget",
    "status": "True",
    "reason": "DeletionByTaintManager",
    "message": "Taint manager: deleting due to NoExecute taint",
}


@dataclass(eq=False)
class NodeState:
    """A Node object plus what the simulation knows about its kubelet."""

    obj: dict
    kubelet_up: bool = True
    not_ready: bool = False  # the controller has marked it Unknown
    images: dict[str, str] = field(default_factory=dict)  # image reference → image ID
    timers: list[Timer] = field(default_factory=list)
    eviction: Timer | None = None  # the taint-eviction controller's work item for the Pod

    @property
    def name(self) -> str:
        return self.obj["metadata"]["name"]

    def cancel_timers(self) -> None:
        for timer in self.timers:
            timer.cancel()
        self.timers.clear()


def ready_condition(node: dict) -> dict | None:
    for condition in (node.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return condition
    return None


def mark_node_unknown(node: dict, now_ms: int) -> dict:
    """``tryUpdateNodeHealth``: every condition Unknown, ``Kubelet stopped posting node
    status.``, and the unreachable NoExecute taint."""
    node = copy.deepcopy(node)
    status = node.setdefault("status", {})
    for condition in status.get("conditions") or []:
        condition["status"] = "Unknown"
        condition["reason"] = "NodeStatusUnknown"
        condition["message"] = "Kubelet stopped posting node status."
        condition["lastTransitionTime"] = rfc3339(now_ms)
    spec = node.setdefault("spec", {})
    taints = [t for t in spec.get("taints") or [] if t.get("key") != TAINT_UNREACHABLE]
    taints.append({"key": TAINT_UNREACHABLE, "effect": "NoExecute", "timeAdded": rfc3339(now_ms)})
    spec["taints"] = taints
    return node


def mark_node_ready(node: dict, now_ms: int) -> dict:
    """The kubelet posts status again: Ready True, the unreachable taint removed."""
    node = copy.deepcopy(node)
    for condition in (node.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready" and condition.get("status") != "True":
            condition["status"] = "True"
            condition["reason"] = "KubeletReady"
            condition["message"] = "kubelet is posting ready status"
            condition["lastTransitionTime"] = rfc3339(now_ms)
    spec = node.get("spec") or {}
    if "taints" in spec:
        taints = [t for t in spec["taints"] if t.get("key") != TAINT_UNREACHABLE]
        if taints:
            spec["taints"] = taints
        else:
            del spec["taints"]
    return node


def unreachable_toleration_seconds(pod_spec: dict) -> int | None:
    """How long the Pod tolerates ``unreachable:NoExecute``; None means forever."""
    for toleration in pod_spec.get("tolerations") or []:
        key = toleration.get("key")
        operator = toleration.get("operator", "Equal")
        effect = toleration.get("effect")
        key_matches = key == TAINT_UNREACHABLE or (not key and operator == "Exists")
        if key_matches and effect in (None, "", "NoExecute"):
            seconds = toleration.get("tolerationSeconds")
            return None if seconds is None else max(0, int(seconds))
    return 0


def with_node_defaults(node: dict) -> dict:
    """A Node from the scenario gets a Ready condition and an address if it lacks them."""
    node = dict(node)
    status = dict(node.get("status") or {})
    if not any(c.get("type") == "Ready" for c in status.get("conditions") or []):
        status["conditions"] = [*(status.get("conditions") or []), {
            "type": "Ready", "status": "True", "lastHeartbeatTime": rfc3339(0),
            "lastTransitionTime": rfc3339(0), "reason": "KubeletReady",
            "message": "kubelet is posting ready status"}]  # fmt: skip
    node["status"] = status
    return node
