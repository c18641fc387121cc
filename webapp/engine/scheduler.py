"""kube-scheduler for one Pod: the default profile's Filter plugins and FitError message.

Sources: ``pkg/scheduler/framework/types.go`` FitError.Error; the Filter plugins
NodeUnschedulable, TaintToleration, NodeAffinity and NodeResourcesFit, in the default
profile's order; the PostFilter plugins DynamicResources and DefaultPreemption
(KUBERNETES-SEMANTICS §10). A node is rejected by the first plugin that fails, as in
the framework (RunFilterPlugins stops at the first failure).

Wording of the messages, checked against what 1.34+ clusters print (events quoted in
public issue threads and blog posts, 2025–2026) because §10 marks it **unconfirmed**:

    0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu.
    no new claims to deallocate, preemption: 0/3 nodes are available:
    1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.

* TaintToleration used to say ``node(s) had untolerated taint {key: value}``; current
  releases say ``node(s) had untolerated taint(s)`` (the value is no longer shown).
* ``no new claims to deallocate`` is the DynamicResources PostFilter for a pod without
  ResourceClaims (DRA is on by default since 1.34); PostFilter messages are joined with
  ", " and FitError appends them after a space, so the text ends with a single period.
* Preemption says "Preemption is not helpful for scheduling" for nodes rejected as
  UnschedulableAndUnresolvable (taints, affinity, unschedulable, or a request larger than
  the node's whole allocatable) and "No preemption victims found for incoming pod" for
  nodes that lack free room but hold no lower-priority pod (ours never do).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from webapp.engine.api.podutil import is_sidecar
from webapp.engine.api.quantity import cpu_millis, memory_bytes
from webapp.engine.apiserver.defaults import TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE

EPOCH = "2026-01-01T00:00:00Z"
KUBELET_VERSION = "v1.37.0"

ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
ERR_REASON_NODE_AFFINITY = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_UNTOLERATED_TAINT = "node(s) had untolerated taint(s)"
ERR_REASON_TOO_MANY_PODS = "Too many pods"
NO_NODE_AVAILABLE_MSG = "0/{} nodes are available"
ERR_NO_NODES_AVAILABLE = "no nodes available to schedule pods"
DRA_POST_FILTER_MSG = "no new claims to deallocate"
PREEMPTION_NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_PREEMPTION_VICTIMS = "No preemption victims found for incoming pod"
PREEMPTION_POLICY_NEVER = "not eligible due to preemptionPolicy=Never."  # wording unconfirmed

TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"


@dataclass(frozen=True)
class ScheduleResult:
    """The chosen node, or None with the FailedScheduling / PodScheduled message."""

    node_name: str | None
    message: str


@dataclass(frozen=True)
class FilterStatus:
    """A Filter plugin's rejection: its reasons and whether preemption could help."""

    reasons: tuple[str, ...]
    unresolvable: bool


def default_nodes() -> list[dict]:
    """The playground's three identical worker nodes, node-1 … node-3."""
    return [_default_node(i) for i in (1, 2, 3)]


def _default_node(index: int) -> dict:
    name = f"node-{index}"
    resources = {"cpu": "2", "memory": "4Gi", "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "creationTimestamp": EPOCH,
            "labels": {
                "beta.kubernetes.io/arch": "amd64",
                "beta.kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
            },
        },
        "spec": {"podCIDR": f"10.244.{index}.0/24", "podCIDRs": [f"10.244.{index}.0/24"]},
        "status": {
            "addresses": [
                {"type": "InternalIP", "address": f"10.0.0.{10 + index}"},
                {"type": "Hostname", "address": name},
            ],
            "allocatable": dict(resources),
            "capacity": dict(resources),
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True",
                    "lastHeartbeatTime": EPOCH,
                    "lastTransitionTime": EPOCH,
                    "reason": "KubeletReady",
                    "message": "kubelet is posting ready status",
                }
            ],
            "nodeInfo": {
                "architecture": "amd64",
                "containerRuntimeVersion": "containerd://2.1.0",
                "kubeletVersion": KUBELET_VERSION,
                "operatingSystem": "linux",
                "osImage": "Debian GNU/Linux 13 (trixie)",
            },
        },
    }


# --- resources ---------------------------------------------------------------------------


def pod_requests(pod: dict) -> dict[str, int]:
    """``resourcehelper.PodRequests`` for cpu (millicores) and memory (bytes).

    Regular containers are summed; sidecars add up in order and also run beside every
    later init container (KEP-753); the result is the max of the two, plus overhead.
    """
    spec = pod.get("spec") or {}
    total = _sum(_container_requests(c) for c in spec.get("containers") or [])
    sidecars: dict[str, int] = {}
    init_peak: dict[str, int] = {}
    for container in spec.get("initContainers") or []:
        requests = _container_requests(container)
        if is_sidecar(container):
            sidecars = _sum([sidecars, requests])
            requests = sidecars
        else:
            requests = _sum([requests, sidecars])
        init_peak = _max(init_peak, requests)
    total = _max(_sum([total, sidecars]), init_peak)
    return _sum([total, _parse_resources(spec.get("overhead") or {})])


def _container_requests(container: dict) -> dict[str, int]:
    return _parse_resources((container.get("resources") or {}).get("requests") or {})


def _parse_resources(resource_list: dict) -> dict[str, int]:
    """cpu → millicores, memory → bytes, pods → count; other resources are ignored."""
    parsed = {}
    if "cpu" in resource_list:
        parsed["cpu"] = cpu_millis(resource_list["cpu"])
    if "memory" in resource_list:
        parsed["memory"] = memory_bytes(resource_list["memory"])
    if "pods" in resource_list:
        parsed["pods"] = int(resource_list["pods"])
    return parsed


def _sum(resource_lists) -> dict[str, int]:
    total: dict[str, int] = {}
    for resources in resource_lists:
        for name, value in resources.items():
            total[name] = total.get(name, 0) + value
    return total


def _max(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    return {name: max(a.get(name, 0), b.get(name, 0)) for name in sorted({*a, *b})}


# --- filters -----------------------------------------------------------------------------


def tolerates_taint(toleration: dict, taint: dict) -> bool:
    """``Toleration.ToleratesTaint``: effect, key and (for Equal) value match."""
    if toleration.get("effect") and toleration["effect"] != taint.get("effect"):
        return False
    if toleration.get("key") and toleration["key"] != taint.get("key"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Exists":
        return True
    return operator == "Equal" and toleration.get("value", "") == taint.get("value", "")


def node_taints(node: dict) -> list[dict]:
    """spec.taints plus the NoSchedule taint TaintNodesByCondition keeps on a node whose
    Ready condition is False (not-ready) or Unknown (unreachable)."""
    taints = list((node.get("spec") or {}).get("taints") or [])
    ready = _ready_status(node)
    implied = {"False": TAINT_NODE_NOT_READY, "Unknown": TAINT_NODE_UNREACHABLE}.get(ready)
    if implied and not any(
        t.get("key") == implied and t.get("effect") == "NoSchedule" for t in taints
    ):
        taints.append({"key": implied, "effect": "NoSchedule"})
    return taints


def _ready_status(node: dict) -> str:
    for condition in (node.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return condition.get("status", "Unknown")
    return "Unknown"


def filter_node_unschedulable(pod: dict, node: dict) -> FilterStatus | None:
    """NodeUnschedulable: a cordoned node, unless the pod tolerates its taint."""
    if not (node.get("spec") or {}).get("unschedulable"):
        return None
    taint = {"key": TAINT_NODE_UNSCHEDULABLE, "effect": "NoSchedule"}
    if any(tolerates_taint(t, taint) for t in _tolerations(pod)):
        return None
    return FilterStatus((ERR_REASON_UNSCHEDULABLE,), unresolvable=True)


def filter_taint_toleration(pod: dict, node: dict) -> FilterStatus | None:
    """TaintToleration: every NoSchedule / NoExecute taint must be tolerated."""
    for taint in node_taints(node):
        if taint.get("effect") not in ("NoSchedule", "NoExecute"):
            continue
        if not any(tolerates_taint(t, taint) for t in _tolerations(pod)):
            return FilterStatus((ERR_REASON_UNTOLERATED_TAINT,), unresolvable=True)
    return None


def _tolerations(pod: dict) -> list[dict]:
    return (pod.get("spec") or {}).get("tolerations") or []


def filter_node_affinity(pod: dict, node: dict) -> FilterStatus | None:
    """NodeAffinity: nodeSelector and requiredDuringSchedulingIgnoredDuringExecution."""
    if pod_matches_node_selector_and_affinity(pod, node):
        return None
    return FilterStatus((ERR_REASON_NODE_AFFINITY,), unresolvable=True)


def pod_matches_node_selector_and_affinity(pod: dict, node: dict) -> bool:
    """``GetRequiredNodeAffinity(pod).Match(node)``: selector AND any required term."""
    spec = pod.get("spec") or {}
    labels = (node.get("metadata") or {}).get("labels") or {}
    for key, value in (spec.get("nodeSelector") or {}).items():
        if labels.get(key) != value:
            return False
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    )
    if required is None:
        return True
    return any(
        node_selector_term_matches(term, node) for term in required.get("nodeSelectorTerms") or []
    )


def node_selector_term_matches(term: dict, node: dict) -> bool:
    """A NodeSelectorTerm: all matchExpressions (labels) and matchFields (metadata.name)
    hold; a term with neither matches no node."""
    expressions = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    if not expressions and not fields:
        return False
    labels = (node.get("metadata") or {}).get("labels") or {}
    node_fields = {"metadata.name": (node.get("metadata") or {}).get("name")}
    return all(_requirement_matches(r, labels) for r in expressions) and all(
        _requirement_matches(r, node_fields) for r in fields
    )


def _requirement_matches(requirement: dict, labels: dict) -> bool:
    key, operator = requirement.get("key"), requirement.get("operator")
    values = requirement.get("values") or []
    present = key in labels
    if operator == "In":
        return present and labels[key] in values
    if operator == "NotIn":
        return not present or labels[key] not in values
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator in ("Gt", "Lt") and present and len(values) == 1:
        try:
            label, bound = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return label > bound if operator == "Gt" else label < bound
    return False


def filter_node_resources_fit(
    pod_request: dict[str, int], node: dict, used: dict[str, int]
) -> FilterStatus | None:
    """NodeResourcesFit: requests against allocatable minus what is already requested.

    A request larger than the whole allocatable is UnschedulableAndUnresolvable
    (preemption cannot free enough), otherwise Unschedulable.
    """
    allocatable = _parse_resources((node.get("status") or {}).get("allocatable") or {})
    reasons, unresolvable = [], False
    if allocatable.get("pods", 110) < used.get("pods", 0) + 1:
        reasons.append(ERR_REASON_TOO_MANY_PODS)
    for name in ("cpu", "memory"):
        request = pod_request.get(name, 0)
        if request > 0 and request > allocatable.get(name, 0) - used.get(name, 0):
            reasons.append(f"Insufficient {name}")
            unresolvable = unresolvable or request > allocatable.get(name, 0)
    return FilterStatus(tuple(reasons), unresolvable) if reasons else None


# --- scheduling cycle --------------------------------------------------------------------


def run_filter_plugins(
    pod: dict,
    node: dict,
    pod_request: dict[str, int],
    used: dict[str, int],
    volume_binding: Callable[[dict], FilterStatus | None] | None = None,
) -> FilterStatus | None:
    """The default profile's Filter plugins in order; the first rejection wins
    (VolumeBinding, when the caller knows the Pod's claims, after NodeResourcesFit)."""
    return (
        filter_node_unschedulable(pod, node)
        or filter_taint_toleration(pod, node)
        or filter_node_affinity(pod, node)
        or filter_node_resources_fit(pod_request, node, used)
        or (volume_binding(node) if volume_binding is not None else None)
    )


def schedule(
    pod: dict,
    nodes: list[dict],
    *,
    requested: dict[str, dict] | None = None,
    pre_filter: str = "",
    volume_binding: Callable[[dict], FilterStatus | None] | None = None,
) -> ScheduleResult:
    """``schedulePod``: a node for ``pod``, or None and the FitError message.

    ``requested`` maps a node name to what other pods already request there, as a
    ResourceList (``{"cpu": "500m", "memory": "1Gi", "pods": 3}``). A pod with
    ``spec.nodeName`` never reaches the scheduler: that node is returned as is.
    Among feasible nodes the least allocated one wins (mean free fraction of cpu and
    memory after placing the pod), ties broken by name — deterministic where the real
    scheduler scores more plugins and breaks ties at random.
    """
    node_name = (pod.get("spec") or {}).get("nodeName")
    if node_name:
        return ScheduleResult(node_name, "")
    if not nodes:
        return ScheduleResult(None, ERR_NO_NODES_AVAILABLE)
    if pre_filter:  # a PreFilter rejection (VolumeBinding's): every node gets that status
        statuses = {
            (node.get("metadata") or {}).get("name", ""): FilterStatus((), True) for node in nodes
        }
        return ScheduleResult(None, fit_error_message(pod, len(nodes), statuses, pre_filter))
    pod_request = pod_requests(pod)
    feasible, statuses = [], {}
    for node in nodes:
        name = (node.get("metadata") or {}).get("name", "")
        used = _parse_resources((requested or {}).get(name) or {})
        status = run_filter_plugins(pod, node, pod_request, used, volume_binding)
        if status is None:
            feasible.append((-_free_fraction(node, used, pod_request), name))
        else:
            statuses[name] = status
    if feasible:
        return ScheduleResult(min(feasible)[1], "")
    return ScheduleResult(None, fit_error_message(pod, len(nodes), statuses))


def admission_failure(
    pod: dict, node: dict, used: dict[str, int] | None = None
) -> tuple[str, str] | None:
    """The kubelet's ``Admit`` (``pkg/kubelet/lifecycle/predicate.go``) for a Pod bound
    without the scheduler: (reason, message) of the first failure, or None.

    Resources are checked as ``fitsRequest`` does, pods first, then cpu (millicores),
    memory (bytes); only the first shortage is reported: ``OutOfcpu`` with
    ``Node didn't have enough resource: cpu, requested: 4000, used: 0, capacity: 2000``.
    Then the node selector and affinity (``NodeAffinity``).
    """
    used = used or {}
    allocatable = _parse_resources((node.get("status") or {}).get("allocatable") or {})
    request = pod_requests(pod)
    if allocatable.get("pods", 110) < used.get("pods", 0) + 1:
        return "OutOfpods", (
            f"Node didn't have enough resource: pods, requested: 1, used: {used.get('pods', 0)}, "
            f"capacity: {allocatable.get('pods', 110)}"
        )
    for name in ("cpu", "memory"):
        wanted = request.get(name, 0)
        if wanted > 0 and wanted > allocatable.get(name, 0) - used.get(name, 0):
            return f"OutOf{name}", (
                f"Node didn't have enough resource: {name}, requested: {wanted}, "
                f"used: {used.get(name, 0)}, capacity: {allocatable.get(name, 0)}"
            )
    if not pod_matches_node_selector_and_affinity(pod, node):
        return "NodeAffinity", f"Predicate NodeAffinity failed: {ERR_REASON_NODE_AFFINITY}"
    return None


def _free_fraction(node: dict, used: dict[str, int], pod_request: dict[str, int]) -> float:
    """NodeResourcesFit LeastAllocated, equal weights for cpu and memory."""
    allocatable = _parse_resources((node.get("status") or {}).get("allocatable") or {})
    fractions = []
    for name in ("cpu", "memory"):
        capacity = allocatable.get(name, 0)
        if capacity > 0:
            fractions.append((capacity - used.get(name, 0) - pod_request.get(name, 0)) / capacity)
    return sum(fractions) / len(fractions) if fractions else 0.0


def fit_error_message(
    pod: dict, num_all_nodes: int, statuses: dict[str, FilterStatus], pre_filter: str = ""
) -> str:
    """``FitError.Error()``: the PreFilter message or else the filter histogram, then the
    PostFilter messages."""
    message = NO_NODE_AVAILABLE_MSG.format(num_all_nodes) + ":"
    filter_reasons = Counter(r for s in statuses.values() for r in s.reasons)
    if pre_filter:
        message += f" {pre_filter}."
    elif filter_reasons:
        message += f" {reasons_histogram(filter_reasons)}."
    return f"{message} {DRA_POST_FILTER_MSG}, preemption: {preemption_message(pod, num_all_nodes, statuses)}"


def reasons_histogram(reasons: Counter) -> str:
    """``"<count> <reason>"`` per reason, sorted as strings, joined with ", "."""
    return ", ".join(sorted(f"{count} {reason}" for reason, count in reasons.items()))


def preemption_message(pod: dict, num_all_nodes: int, statuses: dict[str, FilterStatus]) -> str:
    """DefaultPreemption's PostFilter text after "preemption: ".

    Our simulated cluster runs no other pods, so no node has a lower-priority victim.
    """
    if (pod.get("spec") or {}).get("preemptionPolicy") == "Never":
        return PREEMPTION_POLICY_NEVER
    outcome = Counter(
        PREEMPTION_NOT_HELPFUL if status.unresolvable else NO_PREEMPTION_VICTIMS
        for status in statuses.values()
    )
    return NO_NODE_AVAILABLE_MSG.format(num_all_nodes) + f": {reasons_histogram(outcome)}."
