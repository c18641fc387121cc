"""``kubectl logs POD [-c NAME] [--previous] [--timestamps]``.

Which container: ``-c``, else the ``kubectl.kubernetes.io/default-container`` annotation,
else the first app container, with kubectl's "Defaulted container" notice when the Pod has
more than one container or any init container (``pkg/polymorphichelpers/
logsforobject.go``, ``podcmd``). Which instance: the kubelet's
``validateContainerLogStatus`` (``pkg/kubelet/kubelet_pods.go``) picks a container ID from
the status, or answers one of its errors, which kubectl prints as ``Error from server
(BadRequest): …`` (CONTAINER-SEMANTICS §7).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

DEFAULT_CONTAINER_ANNOTATION = "kubectl.kubernetes.io/default-container"
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


def all_container_names(pod: dict[str, Any]) -> list[str]:
    """``AllContainerNames``: containers, then ephemeral " (ephem)", then init " (init)"."""
    spec = pod.get("spec") or {}
    names = [c["name"] for c in spec.get("containers") or []]
    names += [f"{c['name']} (ephem)" for c in spec.get("ephemeralContainers") or []]
    names += [f"{c['name']} (init)" for c in spec.get("initContainers") or []]
    return names


def default_container(pod: dict[str, Any]) -> tuple[str, list[str]]:
    """(the container kubectl picks without ``-c``, the notices it prints on stderr)."""
    spec = pod.get("spec") or {}
    name = pod["metadata"]["name"]
    notices = []
    containers = [c["name"] for c in spec.get("containers") or []]
    every = containers + [c["name"] for c in spec.get("initContainers") or []]
    annotated = ((pod.get("metadata") or {}).get("annotations") or {}).get(
        DEFAULT_CONTAINER_ANNOTATION
    )
    if annotated:
        if annotated in every:
            return annotated, notices
        notices.append(f'Default container name "{annotated}" not found in pod {name}')
    chosen = containers[0] if containers else every[0]
    if len(every) > 1 or spec.get("initContainers"):
        notices.append(
            f'Defaulted container "{chosen}" out of: {", ".join(all_container_names(pod))}'
        )
    return chosen, notices


def _status(pod: dict[str, Any], container: str) -> dict[str, Any] | None:
    status = pod.get("status") or {}
    for key in ("initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses"):
        for entry in status.get(key) or []:
            if entry.get("name") == container:
                return entry
    return None


def log_container_id(pod: dict[str, Any], container: str, previous: bool) -> tuple[str | None, str]:
    """``validateContainerLogStatus``: (container ID, "") or (None, the kubelet's error)."""
    pod_name = pod["metadata"]["name"]
    status = _status(pod, container)
    if status is None:
        return None, f'container "{container}" in pod "{pod_name}" is not available'
    state = status.get("state") or {}
    last = (status.get("lastState") or {}).get("terminated")
    if previous:
        if not last or not last.get("containerID"):
            return (
                None,
                f'previous terminated container "{container}" in pod "{pod_name}" not found',
            )
        return last["containerID"], ""
    if "running" in state:
        return status.get("containerID"), ""
    terminated = state.get("terminated")
    if terminated is not None:
        if terminated.get("containerID"):
            return terminated["containerID"], ""
        if last and last.get("containerID"):
            return last["containerID"], ""
        return None, f'container "{container}" in pod "{pod_name}" is terminated'
    if last is not None:
        if not last.get("containerID"):
            return None, f'container "{container}" in pod "{pod_name}" is terminated'
        return last["containerID"], ""
    waiting = state.get("waiting")
    if waiting is not None:
        reason = waiting.get("reason", "")
        detail = {"ErrImagePull": "image can't be pulled",
                  "ImagePullBackOff": "trying and failing to pull image"}.get(reason, reason)  # fmt: skip
        return None, f'container "{container}" in pod "{pod_name}" is waiting to start: {detail}'
    return None, f'container "{container}" in pod "{pod_name}" is waiting to start - no logs yet'


def rfc3339_nano(ms: int) -> str:
    """Go's RFC3339Nano: trailing zeros of the fraction dropped."""
    moment = EPOCH + timedelta(milliseconds=ms)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    fraction = f"{moment.microsecond * 1000:09d}".rstrip("0")
    return f"{text}.{fraction}Z" if fraction else f"{text}Z"


def kubectl_logs(
    pod: dict[str, Any] | None,
    pod_name: str,
    logs_by_id: dict[str, list],
    container: str | None = None,
    *,
    previous: bool = False,
    tail: int | None = None,
) -> dict[str, Any]:
    """What ``kubectl logs`` prints: {"command", "lines" [[stamp, text]], "stderr"}.

    ``logs_by_id`` maps a container ID to its log lines ``[ms, stream, text]`` (both
    streams, in order: the container log file interleaves them)."""
    words = ["kubectl", "logs", pod_name]
    if container:
        words += ["-c", container]
    if previous:
        words.append("--previous")
    if tail is not None:
        words.append(f"--tail={tail}")
    result: dict[str, Any] = {"command": " ".join(words), "lines": [], "stderr": ""}
    if pod is None:
        result["stderr"] = f'Error from server (NotFound): pods "{pod_name}" not found'
        return result
    if not (pod.get("spec") or {}).get("nodeName"):
        result["stderr"] = (
            f"Error from server (BadRequest): pod {pod_name} does not have a host assigned"
        )
        return result
    notices: list[str] = []
    if container is None:
        container, notices = default_container(pod)
    elif container not in [n.split(" ")[0] for n in all_container_names(pod)]:
        result["stderr"] = (
            f"error: container {container} is not valid for pod {pod_name} out of: "
            f"{', '.join(all_container_names(pod))}"
        )
        return result
    container_id, error = log_container_id(pod, container, previous)
    if container_id is None:
        result["stderr"] = "\n".join([*notices, f"Error from server (BadRequest): {error}"])
        return result
    lines = logs_by_id.get(container_id) or []
    if tail is not None:
        lines = lines[-tail:] if tail > 0 else []
    result["lines"] = [[rfc3339_nano(ms), text] for ms, _stream, text in lines]
    result["stderr"] = "\n".join(notices)
    return result


def logs_text(view: dict[str, Any], timestamps: bool = False) -> str:
    """The terminal text of a ``kubectl_logs`` result (stderr first, as a terminal shows it)."""
    out = [f"{stamp} {text}" if timestamps else text for stamp, text in view["lines"]]
    parts = [view["stderr"]] if view["stderr"] else []
    if out:
        parts.append("\n".join(out))
    return "\n".join(parts)
