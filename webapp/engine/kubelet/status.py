"""The Pod API status, computed from the kubelet's runtime model the way the kubelet does.

``convert_to_api_container_statuses`` mirrors ``convertToAPIContainerStatuses``
(``pkg/kubelet/kubelet_pods.go``, KUBERNETES-SEMANTICS §3.1): default waiting reason,
runtime state → API state, newest instance as state and the one before as lastState, the
reason cache applied to containers that will be (re)started. ``apply_probe_results``
mirrors the prober manager's ``UpdatePodStatus`` (``started`` / ``ready``, §3.5).
"""

from __future__ import annotations

from dataclasses import dataclass

from webapp.engine.core.timefmt import rfc3339
from webapp.engine.kubelet.runtime import ContainerInstance

CONTAINER_CREATING = "ContainerCreating"
POD_INITIALIZING = "PodInitializing"


@dataclass(frozen=True, slots=True)
class ContainerSnapshot:
    """One container's API status as of the last sync (before started/ready)."""

    name: str
    state: dict
    last_state: dict
    restart_count: int
    image: str
    image_id: str
    container_id: str
    started_ms: int | None  # set while the API shows the container running

    @property
    def running(self) -> bool:
        return "running" in self.state

    @property
    def terminated(self) -> dict | None:
        return self.state.get("terminated")


def _terminated_state(instance: ContainerInstance) -> dict:
    terminated = {"exitCode": instance.exit_code, "reason": instance.reason}
    if instance.message:
        terminated["message"] = instance.message
    terminated["startedAt"] = rfc3339(instance.started_ms or instance.created_ms)
    terminated["finishedAt"] = rfc3339(instance.finished_ms or 0)
    terminated["containerID"] = instance.container_id
    return {"terminated": terminated}


def _api_state(instance: ContainerInstance) -> dict:
    """Runtime state → API state (§3.1 table)."""
    if instance.finished_ms is not None:
        return _terminated_state(instance)
    if instance.started_ms is not None:
        return {"running": {"startedAt": rfc3339(instance.started_ms)}}
    return {"waiting": {}}


def _waiting(reason: str, message: str = "") -> dict:
    waiting = {"reason": reason}
    if message:
        waiting["message"] = message
    return {"waiting": waiting}


def convert_to_api_container_status(
    name: str,
    image: str,
    instances: list[ContainerInstance],
    default_reason: str,
    previous: ContainerSnapshot | None,
    cached_reason: tuple[str, str] | None,
    should_restart: bool,
) -> ContainerSnapshot:
    """One entry of ``convertToAPIContainerStatuses``.

    ``instances`` is the runtime's list for this name, newest first. ``previous`` is the
    status last written to the API: restartCount never decreases and lastState is kept
    when the runtime has forgotten it. ``cached_reason`` is the reason cache entry
    (reason, message), applied only when ``should_restart`` (ShouldContainerBeRestarted).
    """
    last_state: dict = previous.last_state if previous else {}
    restart_count = previous.restart_count if previous else 0
    image_id = container_id = ""
    started_ms = None
    if not instances:
        state = _waiting(default_reason)
    else:
        newest = instances[0]
        state = _api_state(newest)
        image_id, container_id = newest.image_id, newest.container_id
        restart_count = max(restart_count, newest.attempt)
        if len(instances) > 1:
            last_state = _api_state(instances[1])
        if newest.running:
            started_ms = newest.started_ms
    if cached_reason is not None and should_restart:
        if "terminated" in state:
            last_state = state
        state = _waiting(*cached_reason)
        started_ms = None
    return ContainerSnapshot(
        name, state, last_state, restart_count, image, image_id, container_id, started_ms
    )


def api_container_status(snapshot: ContainerSnapshot, *, started: bool, ready: bool) -> dict:
    """``v1.ContainerStatus`` JSON in the API's field order."""
    status = {
        "name": snapshot.name,
        "state": snapshot.state,
        "lastState": snapshot.last_state,
        "ready": ready,
        "restartCount": snapshot.restart_count,
        "image": snapshot.image,
        "imageID": snapshot.image_id,
    }
    if snapshot.container_id:
        status["containerID"] = snapshot.container_id
    status["started"] = started
    return status


def probe_started_ready(
    snapshot: ContainerSnapshot,
    *,
    regular_init: bool,
    startup_result: str | None,
    readiness_result: str | None,
) -> tuple[bool, bool]:
    """``prober_manager.go`` UpdatePodStatus: (started, ready) of one container.

    ``*_result`` is None when the container has no such probe, else the worker's current
    result ("success", "failure", "unknown", or "" before the worker saw this container).
    """
    running = snapshot.running
    started = running and (startup_result is None or startup_result == "success")
    if regular_init:
        terminated = snapshot.terminated
        return started, bool(terminated and terminated.get("exitCode") == 0)
    ready = started and (readiness_result is None or readiness_result == "success")
    return started, ready


def qos_class(pod_spec: dict) -> str:
    """``GetPodQOS``: BestEffort, Guaranteed or Burstable (simplified to cpu and memory)."""
    containers = list(pod_spec.get("containers") or []) + list(pod_spec.get("initContainers") or [])
    any_set = False
    guaranteed = True
    for container in containers:
        resources = container.get("resources") or {}
        requests = resources.get("requests") or {}
        limits = resources.get("limits") or {}
        if requests or limits:
            any_set = True
        for resource in ("cpu", "memory"):
            limit = limits.get(resource)
            if limit is None or str(requests.get(resource, limit)) != str(limit):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"
