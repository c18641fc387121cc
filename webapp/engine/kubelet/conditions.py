"""Pod conditions as the kubelet writes them: ``pkg/kubelet/status/generate.go``.

Pure functions of a Pod API object (``spec`` plus ``status.containerStatuses`` /
``initContainerStatuses`` / ``conditions``) and the phase from :func:`phase.pod_phase`.
KUBERNETES-SEMANTICS §2 and §1.7 (node loss).
"""

from __future__ import annotations

from webapp.engine.api.podutil import get_container_status, is_sidecar

# generate.go reasons.
UNKNOWN_CONTAINER_STATUSES = "UnknownContainerStatuses"
POD_COMPLETED = "PodCompleted"
POD_FAILED = "PodFailed"
CONTAINERS_NOT_READY = "ContainersNotReady"
CONTAINERS_NOT_INITIALIZED = "ContainersNotInitialized"
READINESS_GATES_NOT_READY = "ReadinessGatesNotReady"

POD_READY_TO_START_CONTAINERS = "PodReadyToStartContainers"
INITIALIZED = "Initialized"
READY = "Ready"
CONTAINERS_READY = "ContainersReady"
POD_SCHEDULED = "PodScheduled"
# kubetypes.PodConditionsByKubelet: regenerated on every status, never copied through.
KUBELET_CONDITION_TYPES = (
    POD_READY_TO_START_CONTAINERS,
    INITIALIZED,
    READY,
    CONTAINERS_READY,
    POD_SCHEDULED,
)


def pod_condition(type_: str, status: bool | str, reason: str = "", message: str = "") -> dict:
    """A ``v1.PodCondition`` without times; empty reason and message are omitted."""
    if isinstance(status, bool):
        status = "True" if status else "False"
    condition = {"type": type_, "status": status}
    if reason:
        condition["reason"] = reason
    if message:
        condition["message"] = message
    return condition


def _all_container_statuses(pod: dict) -> list[dict] | None:
    """``append(s.InitContainerStatuses, s.ContainerStatuses...)``; None when both are empty."""
    status = pod.get("status") or {}
    statuses = list(status.get("initContainerStatuses") or []) + list(
        status.get("containerStatuses") or []
    )
    return statuses or None


def _go_list(names: list[str]) -> str:
    """Go's ``%s`` of a ``[]string``: ``[a b]``."""
    return "[" + " ".join(names) + "]"


def _containers_message(parts: list[tuple[str, list[str]]]) -> str:
    """``containers with <kind> status: [..]`` for each non-empty group, joined by ", "."""
    return ", ".join(
        f"containers with {kind} status: {_go_list(names)}" for kind, names in parts if names
    )


def generate_pod_ready_to_start_containers_condition(sandbox_ready: bool) -> dict:
    """``GeneratePodReadyToStartContainersCondition``: True once no new sandbox is needed."""
    return pod_condition(POD_READY_TO_START_CONTAINERS, sandbox_ready)


def has_any_regular_container_started(pod: dict, statuses: list[dict] | None) -> bool:
    """``kubecontainer.HasAnyRegularContainerStarted``: a regular container is running or
    terminated (its current state, not lastState)."""
    names = {c.get("name") for c in (pod.get("spec") or {}).get("containers") or []}
    for status in statuses or []:
        state = status.get("state") or {}
        if status.get("name") in names and ("running" in state or "terminated" in state):
            return True
    return False


def _is_init_container_initialized(container: dict, status: dict) -> bool:
    """``isInitContainerInitialized``: a sidecar needs ``started``, a regular one ``ready``."""
    if is_sidecar(container):
        return status.get("started") is True
    return status.get("ready") is True


def generate_pod_initialized_condition(pod: dict, phase: str) -> dict:
    """``GeneratePodInitializedCondition``."""
    spec = pod.get("spec") or {}
    init_containers = spec.get("initContainers") or []
    statuses = _all_container_statuses(pod)
    if statuses is None and init_containers:
        return pod_condition(INITIALIZED, False, UNKNOWN_CONTAINER_STATUSES)
    unknown, incomplete = [], []
    for container in init_containers:
        status = get_container_status(statuses or [], container.get("name"))
        if status is None:
            unknown.append(container["name"])
        elif not _is_init_container_initialized(container, status):
            incomplete.append(container["name"])
    if phase == "Succeeded" and not unknown:
        return pod_condition(INITIALIZED, True, POD_COMPLETED)
    if has_any_regular_container_started(pod, statuses):
        return pod_condition(INITIALIZED, True)
    message = _containers_message([("unknown", unknown), ("incomplete", incomplete)])
    if message:
        return pod_condition(INITIALIZED, False, CONTAINERS_NOT_INITIALIZED, message)
    return pod_condition(INITIALIZED, True)


def generate_containers_ready_condition(pod: dict, phase: str) -> dict:
    """``GenerateContainersReadyCondition``: sidecars and regular containers all ready."""
    spec = pod.get("spec") or {}
    statuses = _all_container_statuses(pod)
    if statuses is None:
        return pod_condition(CONTAINERS_READY, False, UNKNOWN_CONTAINER_STATUSES)
    sidecars = [c for c in spec.get("initContainers") or [] if is_sidecar(c)]
    unknown, unready = [], []
    for container in sidecars + list(spec.get("containers") or []):
        status = get_container_status(statuses, container.get("name"))
        if status is None:
            unknown.append(container["name"])
        elif status.get("ready") is not True:
            unready.append(container["name"])
    if phase == "Succeeded" and not unknown:
        return pod_condition(CONTAINERS_READY, False, POD_COMPLETED)
    if phase == "Failed":
        return pod_condition(CONTAINERS_READY, False, POD_FAILED)
    message = _containers_message([("unknown", unknown), ("unready", unready)])
    if message:
        return pod_condition(CONTAINERS_READY, False, CONTAINERS_NOT_READY, message)
    return pod_condition(CONTAINERS_READY, True)


def generate_pod_ready_condition(pod: dict, phase: str, containers_ready: dict) -> dict:
    """``GeneratePodReadyCondition``: ContainersReady, then every spec.readinessGates
    condition (looked up in ``status.conditions``) must be True.

    ``phase`` is kept for the kubelet's signature; it acts through ``containers_ready``.
    """
    del phase
    if containers_ready.get("status") != "True":
        return pod_condition(
            READY,
            containers_ready.get("status", "False"),
            containers_ready.get("reason", ""),
            containers_ready.get("message", ""),
        )
    conditions = (pod.get("status") or {}).get("conditions") or []
    by_type = {c.get("type"): c for c in reversed(conditions)}  # first one wins
    messages = []
    for gate in (pod.get("spec") or {}).get("readinessGates") or []:
        gate_type = gate.get("conditionType", "")
        condition = by_type.get(gate_type)
        if condition is None:
            messages.append(
                f'corresponding condition of pod readiness gate "{gate_type}" does not exist.'
            )
        elif condition.get("status") != "True":
            messages.append(
                f'the status of pod readiness gate "{gate_type}" is not "True", '
                f"but {condition.get('status', '')}"
            )
    if messages:
        return pod_condition(READY, False, READINESS_GATES_NOT_READY, ", ".join(messages))
    return pod_condition(READY, True)


def pod_conditions(
    pod: dict,
    *,
    phase: str,
    sandbox_ready: bool,
    scheduled: dict,
    previous: list[dict],
    now: str,
    overrides: dict | None = None,
) -> list[dict]:
    """``status.conditions`` as ``generateAPIPodStatus`` and the status manager write them.

    Order: conditions the kubelet does not own (copied from ``status.conditions``, e.g.
    readiness-gate conditions or DisruptionTarget), then PodReadyToStartContainers,
    Initialized, Ready, ContainersReady, PodScheduled. ``scheduled`` is the PodScheduled
    condition from the scheduler; while it is not True the kubelet has not seen the pod,
    so only the copied conditions and PodScheduled are returned.

    ``lastTransitionTime`` is kept from ``previous`` when the status of that type did not
    change, else it is ``now`` (status manager ``updateLastTransitionTime``).
    ``overrides`` maps a type to fields forced on top (the node controller's
    MarkPodsNotReady: ``{"Ready": {"status": "False"}}`` — reason and message stay).
    """
    status = pod.get("status") or {}
    copied = [
        c for c in status.get("conditions") or [] if c.get("type") not in KUBELET_CONDITION_TYPES
    ]
    scheduled_condition = pod_condition(
        POD_SCHEDULED,
        scheduled.get("status", "True"),
        scheduled.get("reason", ""),
        scheduled.get("message", ""),
    )
    if scheduled_condition["status"] != "True":
        generated = [scheduled_condition]
    else:
        containers_ready = generate_containers_ready_condition(pod, phase)
        generated = [
            generate_pod_ready_to_start_containers_condition(sandbox_ready),
            generate_pod_initialized_condition(pod, phase),
            generate_pod_ready_condition(pod, phase, containers_ready),
            containers_ready,
            pod_condition(POD_SCHEDULED, True),  # the kubelet always reports True
        ]
    for condition in generated:
        condition.update((overrides or {}).get(condition["type"], {}))
    return [dict(c) for c in copied] + [_with_times(c, previous, now) for c in generated]


def _with_times(condition: dict, previous: list[dict], now: str) -> dict:
    """``updateLastTransitionTime``; keys in ``v1.PodCondition`` field order."""
    old = next((c for c in previous if c.get("type") == condition["type"]), None)
    transition = now
    if old is not None and old.get("status") == condition["status"]:
        transition = old.get("lastTransitionTime") or now
    result = {
        "type": condition["type"],
        "status": condition["status"],
        "lastProbeTime": None,
        "lastTransitionTime": condition.get("lastTransitionTime", transition),
    }
    for key in ("reason", "message"):
        if condition.get(key):
            result[key] = condition[key]
    return result


def mark_pod_not_ready(conditions: list[dict], now: str) -> list[dict]:
    """``MarkPodsNotReady`` (``pkg/controller/util/node/controller_utils.go``) on one pod.

    Copies the conditions and flips only Ready to False through ``UpdatePodCondition``:
    reason and message stay as they were, lastTransitionTime becomes ``now`` when the
    status changed. Phase and status.reason are not touched (§1.7).
    """
    result = []
    for condition in conditions:
        condition = dict(condition)
        if condition.get("type") == READY and condition.get("status") != "False":
            condition["status"] = "False"
            condition["lastTransitionTime"] = now
        result.append(condition)
    return result
