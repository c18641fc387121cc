"""`kubectl get pods` cells: a port of printPod (pkg/printers/internalversion/printers.go).

Follows KUBERNETES-SEMANTICS.md section 9, including the v1.35 rule (PR #124766) that a
non-zero exit beats `Completed`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from webapp.kubectl.timestamps import human_duration_since, parse_time, translate_timestamp_since

POD_COLUMNS = ("NAME", "READY", "STATUS", "RESTARTS", "AGE")
POD_WIDE_COLUMNS = (*POD_COLUMNS, "IP", "NODE", "NOMINATED NODE", "READINESS GATES")

_NODE_UNREACHABLE_POD_REASON = "NodeLost"  # pkg/util/node NodeUnreachablePodReason
_TERMINAL_PHASES = ("Succeeded", "Failed")


def is_restartable_init_container(container: dict[str, Any] | None) -> bool:
    """podutil.IsRestartableInitContainer: a sidecar (init container with restartPolicy Always)."""
    return container is not None and container.get("restartPolicy") == "Always"


def _has_condition(status: dict[str, Any], condition_type: str) -> bool:
    return any(
        c.get("type") == condition_type and c.get("status") == "True"
        for c in status.get("conditions") or []
    )


def _last_finished_at(container_status: dict[str, Any]) -> datetime | None:
    terminated = (container_status.get("lastState") or {}).get("terminated")
    return parse_time(terminated.get("finishedAt")) if terminated else None


def _newest(current: datetime | None, candidate: datetime | None) -> datetime | None:
    if candidate is None or (current is not None and current >= candidate):
        return current
    return candidate


def _terminated_reason(terminated: dict[str, Any], prefix: str = "") -> str:
    """The terminated reason, or `Signal:N` / `ExitCode:N` when the runtime gave none."""
    if terminated.get("reason"):
        return prefix + terminated["reason"]
    if terminated.get("signal"):
        return f"{prefix}Signal:{terminated['signal']}"
    return f"{prefix}ExitCode:{terminated.get('exitCode', 0)}"


@dataclass
class _Tally:
    """What printPod accumulates while it walks the container statuses."""

    reason: str
    ready: int = 0
    restarts: int = 0
    last_restart: datetime | None = None
    sidecar_restarts: int = 0
    last_sidecar_restart: datetime | None = None
    initializing: bool = False


def _walk_init_containers(pod: dict[str, Any], tally: _Tally) -> None:
    """The init loop: regular init containers block, started sidecars count as ready."""
    init_specs = {c.get("name"): c for c in pod.get("spec", {}).get("initContainers") or []}
    init_total = len(pod.get("spec", {}).get("initContainers") or [])
    for index, status in enumerate(pod.get("status", {}).get("initContainerStatuses") or []):
        finished_at = _last_finished_at(status)
        tally.restarts += status.get("restartCount", 0)
        tally.last_restart = _newest(tally.last_restart, finished_at)
        is_sidecar = is_restartable_init_container(init_specs.get(status.get("name")))
        if is_sidecar:
            tally.sidecar_restarts += status.get("restartCount", 0)
            tally.last_sidecar_restart = _newest(tally.last_sidecar_restart, finished_at)
        state = status.get("state") or {}
        terminated, waiting = state.get("terminated"), state.get("waiting")
        if terminated is not None and terminated.get("exitCode", 0) == 0:
            continue
        if is_sidecar and status.get("started"):
            tally.ready += 1 if status.get("ready") else 0
            continue
        if terminated is not None:
            tally.reason = _terminated_reason(terminated, "Init:")
        elif waiting and waiting.get("reason") and waiting["reason"] != "PodInitializing":
            tally.reason = "Init:" + waiting["reason"]
        else:
            tally.reason = f"Init:{index}/{init_total}"
        tally.initializing = True
        break


def _walk_containers(pod: dict[str, Any], tally: _Tally) -> None:
    """The container loop, last to first, so the first container decides STATUS."""
    tally.restarts = tally.sidecar_restarts
    tally.last_restart = tally.last_sidecar_restart
    has_running = False
    error_reason = ""
    for status in reversed(pod.get("status", {}).get("containerStatuses") or []):
        tally.restarts += status.get("restartCount", 0)
        tally.last_restart = _newest(tally.last_restart, _last_finished_at(status))
        state = status.get("state") or {}
        waiting, terminated = state.get("waiting"), state.get("terminated")
        if waiting and waiting.get("reason"):
            tally.reason = waiting["reason"]
        elif terminated is not None:
            tally.reason = _terminated_reason(terminated)
            if terminated.get("exitCode", 0) != 0:
                error_reason = tally.reason
        elif status.get("ready") and state.get("running") is not None:
            has_running = True
            tally.ready += 1
    if tally.reason == "Completed":
        if has_running and _has_condition(pod.get("status", {}), "Ready"):
            tally.reason = "Running"
        elif error_reason:
            tally.reason = error_reason
        elif has_running:
            tally.reason = "NotReady"


def _pod_reason(pod: dict[str, Any]) -> str:
    status = pod.get("status") or {}
    reason = status.get("reason") or status.get("phase") or ""
    for condition in status.get("conditions") or []:
        if condition.get("type") == "PodScheduled" and condition.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"
    return reason


def _terminating_reason(pod: dict[str, Any], reason: str) -> str:
    status = pod.get("status") or {}
    if not (pod.get("metadata") or {}).get("deletionTimestamp"):
        return reason
    if status.get("reason") == _NODE_UNREACHABLE_POD_REASON:
        return "Unknown"
    if status.get("phase") not in _TERMINAL_PHASES:
        return "Terminating"
    return reason


def _total_containers(pod: dict[str, Any]) -> int:
    spec = pod.get("spec") or {}
    sidecars = sum(1 for c in spec.get("initContainers") or [] if is_restartable_init_container(c))
    return len(spec.get("containers") or []) + sidecars


def _wide_cells(pod: dict[str, Any]) -> dict[str, str]:
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    pod_ips = status.get("podIPs") or []
    gates = spec.get("readinessGates") or []
    readiness_gates = "<none>"
    if gates:
        conditions = {c.get("type"): c.get("status") for c in status.get("conditions") or []}
        true_gates = sum(1 for g in gates if conditions.get(g.get("conditionType")) == "True")
        readiness_gates = f"{true_gates}/{len(gates)}"
    return {
        "IP": (pod_ips[0].get("ip") if pod_ips else "") or "<none>",
        "NODE": spec.get("nodeName") or "<none>",
        "NOMINATED NODE": status.get("nominatedNodeName") or "<none>",
        "READINESS GATES": readiness_gates,
    }


def print_pod(pod: dict[str, Any], now: datetime, *, wide: bool = False) -> dict[str, str]:
    """printPod: the cells of one `kubectl get pods` row (`-o wide` with wide=True)."""
    tally = _Tally(reason=_pod_reason(pod))
    _walk_init_containers(pod, tally)
    if not tally.initializing or _has_condition(pod.get("status") or {}, "Initialized"):
        _walk_containers(pod, tally)
    restarts = str(tally.restarts)
    if tally.restarts != 0 and tally.last_restart is not None:
        since = human_duration_since(tally.last_restart, now)
        restarts = f"{tally.restarts} ({since} ago)"
    metadata = pod.get("metadata") or {}
    cells = {
        "NAME": metadata.get("name", ""),
        "READY": f"{tally.ready}/{_total_containers(pod)}",
        "STATUS": _terminating_reason(pod, tally.reason),
        "RESTARTS": restarts,
        "AGE": translate_timestamp_since(metadata.get("creationTimestamp"), now),
    }
    return {**cells, **_wide_cells(pod)} if wide else cells


def pod_columns(pod: dict[str, Any], now: datetime, *, wide: bool = False) -> dict[str, str]:
    """The public contract: NAME, READY, STATUS, RESTARTS, AGE of `kubectl get pods` at `now`.

    With wide=True also IP, NODE, NOMINATED NODE and READINESS GATES (`-o wide`).
    """
    return print_pod(pod, now, wide=wide)


def pod_columns_wide(pod: dict[str, Any], now: datetime) -> dict[str, str]:
    """The cells of `kubectl get pods -o wide`."""
    return print_pod(pod, now, wide=True)
