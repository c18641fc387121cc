"""Pod phase: the kubelet's ``getPhase`` as a pure function of a Pod API object.

Source: ``pkg/kubelet/kubelet_pods.go`` getPhase (KUBERNETES-SEMANTICS §1), with the
feature gates as Kubernetes 1.37 ships them: ContainerRestartRules on,
RestartAllContainersOnContainerExits off, SidecarContainers GA.
"""

from __future__ import annotations

from dataclasses import dataclass

from webapp.engine.api.podutil import container_should_restart, get_container_status, is_sidecar

PENDING = "Pending"
RUNNING = "Running"
SUCCEEDED = "Succeeded"
FAILED = "Failed"

# kubetypes.ConfigSourceAnnotationKey; "api" is kubetypes.ApiserverSource.
CONFIG_SOURCE_ANNOTATION = "kubernetes.io/config.source"


def has_any_active_regular_container_started(pod: dict) -> bool:
    """Our reading of ``kubecontainer.HasAnyActiveRegularContainerStarted`` from the API.

    The kubelet asks the runtime whether any regular container of the *current* sandbox
    exists. From the API status we count a regular container as started when it is
    running, terminated, or waiting with a ``lastState.terminated`` (an earlier instance
    ran). The API cannot tell sandboxes apart: after a sandbox is recreated the caller must
    pass ``pod_has_initialized=False`` itself.
    """
    names = {c.get("name") for c in pod.get("spec", {}).get("containers") or []}
    for status in pod.get("status", {}).get("containerStatuses") or []:
        if status.get("name") not in names:
            continue
        state = status.get("state") or {}
        last_state = status.get("lastState") or {}
        if "running" in state or "terminated" in state or "terminated" in last_state:
            return True
    return False


def is_static_pod(pod: dict) -> bool:
    """``kubetypes.IsStaticPod``: the config source annotation is set and not "api"."""
    annotations = pod.get("metadata", {}).get("annotations") or {}
    source = annotations.get(CONFIG_SOURCE_ANNOTATION)
    return source is not None and source != "api"


@dataclass
class _PhaseCounts:
    """The counters getPhase accumulates before deciding."""

    pending_regular_init: int = 0
    pending_sidecar: int = 0
    failed_init_not_restartable: int = 0
    unknown: int = 0
    running: int = 0
    waiting: int = 0
    stopped: int = 0
    stopped_not_restartable: int = 0
    succeeded: int = 0


def _count_regular_init_containers(spec: dict, info: list[dict], counts: _PhaseCounts) -> None:
    for container in spec.get("initContainers") or []:
        if is_sidecar(container):
            continue
        status = get_container_status(info, container.get("name"))
        state = (status or {}).get("state") or {}
        terminated = state.get("terminated")
        last_terminated = ((status or {}).get("lastState") or {}).get("terminated")
        if status is None or "running" in state:
            counts.pending_regular_init += 1
        elif terminated is not None:
            _count_init_failure(container, spec, terminated, counts)
        elif "waiting" in state and last_terminated is not None:
            _count_init_failure(container, spec, last_terminated, counts)
        else:
            counts.pending_regular_init += 1


def _count_init_failure(container: dict, spec: dict, terminated: dict, counts) -> None:
    exit_code = terminated.get("exitCode", 0)
    if exit_code != 0 and not container_should_restart(container, spec, exit_code):
        counts.failed_init_not_restartable += 1


def _count_sidecars(spec: dict, info: list[dict], counts: _PhaseCounts) -> None:
    for container in spec.get("initContainers") or []:
        if not is_sidecar(container):
            continue
        status = get_container_status(info, container.get("name"))
        if status is None:
            counts.unknown += 1
            continue
        state = status.get("state") or {}
        if "running" in state:
            if status.get("started") is not True:
                counts.pending_sidecar += 1
            counts.running += 1
        elif "terminated" in state:
            pass  # a stopped sidecar does not count towards the phase
        elif "waiting" in state:
            if "terminated" not in (status.get("lastState") or {}):
                counts.pending_sidecar += 1
                counts.waiting += 1
        else:
            counts.pending_sidecar += 1
            counts.unknown += 1


def _count_regular_containers(spec: dict, info: list[dict], counts: _PhaseCounts) -> None:
    for container in spec.get("containers") or []:
        status = get_container_status(info, container.get("name"))
        state = (status or {}).get("state") or {}
        last_terminated = ((status or {}).get("lastState") or {}).get("terminated")
        if status is None:
            counts.unknown += 1
        elif "running" in state:
            counts.running += 1
        elif "terminated" in state:
            exit_code = state["terminated"].get("exitCode", 0)
            _count_stopped(container, spec, exit_code, counts)
            if exit_code == 0:
                counts.succeeded += 1
        elif "waiting" in state:
            if last_terminated is None:
                counts.waiting += 1
            else:  # crash-looping: stopped, not waiting
                _count_stopped(container, spec, last_terminated.get("exitCode", 0), counts)
        else:
            counts.unknown += 1


def _count_stopped(container: dict, spec: dict, exit_code: int, counts: _PhaseCounts) -> None:
    counts.stopped += 1
    if not container_should_restart(container, spec, exit_code):
        counts.stopped_not_restartable += 1


def pod_phase(
    pod: dict, *, pod_is_terminal: bool = False, pod_has_initialized: bool | None = None
) -> str:
    """``getPhase``: Pending, Running, Succeeded or Failed (never Unknown).

    ``pod`` needs ``spec`` and ``status.containerStatuses`` / ``initContainerStatuses``.
    ``pod_is_terminal`` is the pod worker's verdict that the pod is finished.
    ``pod_has_initialized`` defaults to :func:`has_any_active_regular_container_started`.
    """
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    # generateAPIPodStatus passes containerStatuses followed by initContainerStatuses.
    info = list(status.get("containerStatuses") or []) + list(
        status.get("initContainerStatuses") or []
    )
    if pod_has_initialized is None:
        pod_has_initialized = has_any_active_regular_container_started(pod)
    counts = _PhaseCounts()
    _count_regular_init_containers(spec, info, counts)
    _count_sidecars(spec, info, counts)
    _count_regular_containers(spec, info, counts)
    return _decide_phase(pod, counts, pod_is_terminal, pod_has_initialized)


def _decide_phase(pod: dict, c: _PhaseCounts, pod_is_terminal: bool, initialized: bool) -> str:
    if c.failed_init_not_restartable > 0:
        return FAILED
    if c.pending_regular_init > 0 or (c.pending_sidecar > 0 and not initialized):
        return PENDING
    if c.waiting > 0:
        return PENDING
    if c.running > 0 and c.unknown == 0:
        return RUNNING
    if c.running == 0 and c.stopped > 0 and c.unknown == 0:
        if pod_is_terminal and not is_static_pod(pod):
            return SUCCEEDED if c.stopped == c.succeeded else FAILED
        if c.stopped != c.stopped_not_restartable:
            return RUNNING  # at least one container is restarting
        return SUCCEEDED if c.stopped == c.succeeded else FAILED
    return PENDING
