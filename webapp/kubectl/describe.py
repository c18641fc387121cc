"""`kubectl describe pod`: a port of describePod (staging/src/k8s.io/kubectl/pkg/describe)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from webapp.kubectl.containers import describe_containers
from webapp.kubectl.events import describe_events
from webapp.kubectl.prefix_writer import LEVEL_0, LEVEL_1, PrefixWriter
from webapp.kubectl.qos import get_pod_qos
from webapp.kubectl.timestamps import format_rfc1123z, translate_timestamp_since
from webapp.kubectl.volumes import describe_volumes

_MAX_ANNOTATION_LEN = 140
_SKIP_ANNOTATIONS = {"kubectl.kubernetes.io/last-applied-configuration"}


def print_labels_multiline(w: PrefixWriter, title: str, labels: dict[str, str] | None) -> None:
    """printLabelsMultiline: `key=value`, sorted, one per line; `<none>` when empty."""
    w.write(LEVEL_0, f"{title}:\t")
    if not labels:
        w.write(LEVEL_0, "<none>\n")
        return
    for index, key in enumerate(sorted(labels)):
        w.write(LEVEL_0, ("\t" if index else "") + f"{key}={labels[key]}\n")


def _shorten(text: str, max_length: int) -> str:
    return text[:max_length] + "..." if len(text) > max_length else text


def print_annotations_multiline(
    w: PrefixWriter, title: str, annotations: dict[str, str] | None
) -> None:
    """printAnnotationsMultiline: `key: value`; long or multi-line values below the key."""
    w.write(LEVEL_0, f"{title}:\t")
    keys = sorted(k for k in annotations or {} if k not in _SKIP_ANNOTATIONS)
    if not keys:
        w.write(LEVEL_0, "<none>\n")
        return
    for index, key in enumerate(keys):
        if index:
            w.write(LEVEL_0, "\t")
        value = str(annotations[key]).removesuffix("\n")  # type: ignore[index]
        if len(value) + len(key) + 2 > _MAX_ANNOTATION_LEN or "\n" in value:
            w.write(LEVEL_0, f"{key}:\n")
            for line in value.split("\n"):
                w.write(LEVEL_0, f"\t  {_shorten(line, _MAX_ANNOTATION_LEN - 2)}\n")
        else:
            w.write(LEVEL_0, f"{key}: {value}\n")


def _toleration_text(toleration: dict[str, Any]) -> str:
    key, value, effect = (toleration.get(k, "") for k in ("key", "value", "effect"))
    text = key + (f"={value}" if value else "") + (f":{effect}" if effect else "")
    if toleration.get("operator") == "Exists" and not value:
        text += " op=Exists" if key or effect else "op=Exists"
    if toleration.get("tolerationSeconds") is not None:
        text += f" for {toleration['tolerationSeconds']}s"
    return text


def print_pod_tolerations_multiline(
    w: PrefixWriter, title: str, tolerations: list[dict[str, Any]] | None
) -> None:
    """printPodTolerationsMultiline: sorted by key; `op=Exists`, `for 300s` as kubectl writes."""
    w.write(LEVEL_0, f"{title}:\t")
    if not tolerations:
        w.write(LEVEL_0, "<none>\n")
        return
    ordered = sorted(tolerations, key=lambda t: t.get("key", ""))
    for index, toleration in enumerate(ordered):
        w.write(LEVEL_0, ("\t" if index else "") + _toleration_text(toleration) + "\n")


def _controlled_by(metadata: dict[str, Any]) -> str:
    for owner in metadata.get("ownerReferences") or []:
        if owner.get("controller"):
            return f"{owner.get('kind', '')}/{owner.get('name', '')}"
    return ""


def _describe_header(w: PrefixWriter, pod: dict[str, Any], now: datetime) -> None:
    metadata, spec, status = (pod.get(k) or {} for k in ("metadata", "spec", "status"))
    w.write(LEVEL_0, f"Name:\t{metadata.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{metadata.get('namespace', '')}\n")
    if spec.get("priority") is not None:
        w.write(LEVEL_0, f"Priority:\t{spec['priority']}\n")
    if spec.get("priorityClassName"):
        w.write(LEVEL_0, f"Priority Class Name:\t{spec['priorityClassName']}\n")
    if spec.get("runtimeClassName"):
        w.write(LEVEL_0, f"Runtime Class Name:\t{spec['runtimeClassName']}\n")
    if spec.get("serviceAccountName"):
        w.write(LEVEL_0, f"Service Account:\t{spec['serviceAccountName']}\n")
    node = f"{spec['nodeName']}/{status.get('hostIP', '')}" if spec.get("nodeName") else "<none>"
    w.write(LEVEL_0, f"Node:\t{node}\n")
    if status.get("startTime"):
        w.write(LEVEL_0, f"Start Time:\t{format_rfc1123z(status['startTime'])}\n")
    print_labels_multiline(w, "Labels", metadata.get("labels"))
    print_annotations_multiline(w, "Annotations", metadata.get("annotations"))
    _describe_status(w, pod, now)
    w.write(LEVEL_0, f"IP:\t{status.get('podIP', '')}\n")
    pod_ips = status.get("podIPs") or []
    w.write(LEVEL_0, "IPs:\n" if pod_ips else "IPs:\t<none>\n")
    for pod_ip in pod_ips:
        w.write(LEVEL_1, f"IP:\t{pod_ip.get('ip', '')}\n")
    if controlled_by := _controlled_by(metadata):
        w.write(LEVEL_0, f"Controlled By:\t{controlled_by}\n")
    if status.get("nominatedNodeName"):
        w.write(LEVEL_0, f"NominatedNodeName:\t{status['nominatedNodeName']}\n")


def _describe_status(w: PrefixWriter, pod: dict[str, Any], now: datetime) -> None:
    """Status: the phase, or `Terminating (lasts <dur>)` while a deletion is pending.

    `lasts` is the time since deletionTimestamp, which lies in the future during the grace
    period, so kubectl prints `<invalid>` there, exactly as a real cluster shows.
    """
    metadata, status, spec = (pod.get(k) or {} for k in ("metadata", "status", "spec"))
    phase = status.get("phase", "")
    if metadata.get("deletionTimestamp") and phase not in ("Failed", "Succeeded"):
        lasts = translate_timestamp_since(metadata["deletionTimestamp"], now)
        w.write(LEVEL_0, f"Status:\tTerminating (lasts {lasts})\n")
        grace = metadata.get("deletionGracePeriodSeconds", 0)
        w.write(LEVEL_0, f"Termination Grace Period:\t{grace}s\n")
    else:
        w.write(LEVEL_0, f"Status:\t{phase}\n")
    if status.get("reason"):
        w.write(LEVEL_0, f"Reason:\t{status['reason']}\n")
    if status.get("message"):
        w.write(LEVEL_0, f"Message:\t{status['message']}\n")
    seccomp = (spec.get("securityContext") or {}).get("seccompProfile")
    if seccomp:
        w.write(LEVEL_0, f"SeccompProfile:\t{seccomp.get('type', '')}\n")
        if seccomp.get("type") == "Localhost":
            w.write(LEVEL_0, f"LocalhostProfile:\t{seccomp.get('localhostProfile', '')}\n")


def _describe_conditions(w: PrefixWriter, pod: dict[str, Any]) -> None:
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    conditions = status.get("conditions") or []
    if spec.get("readinessGates"):
        w.write(LEVEL_0, "Readiness Gates:\n  Type\tStatus\n")
        by_type = {c.get("type"): c.get("status") for c in conditions}
        for gate in spec["readinessGates"]:
            gate_type = gate.get("conditionType", "")
            w.write(LEVEL_1, f"{gate_type} \t{by_type.get(gate_type, '<none>')} \n")
    if conditions:
        w.write(LEVEL_0, "Conditions:\n  Type\tStatus\n")
        for condition in conditions:
            w.write(LEVEL_1, f"{condition.get('type', '')} \t{condition.get('status', '')} \n")


def events_of_pod(pod: dict[str, Any], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events `kubectl describe` finds for the Pod (describe.go searchEvents): a field
    selector on involvedObject kind, name, namespace and uid. An event recorded without the
    uid (the taint-eviction controller's) is in `kubectl get events` but not here."""
    meta = pod.get("metadata") or {}
    wanted = {
        "kind": "Pod",
        "name": meta.get("name"),
        "namespace": meta.get("namespace", "default"),
        "uid": meta.get("uid"),
    }
    found = []
    for event in events:
        involved = event.get("involvedObject") or {}
        got = {key: involved.get(key) for key in wanted}
        got["namespace"] = involved.get("namespace", "default")
        if got == wanted:
            found.append(event)
    return found


def describe_pod(pod: dict[str, Any], events: list[dict[str, Any]], now: datetime) -> str:
    """`kubectl describe pod` of the Pod with its events, at `now`. Pass the events
    `events_of_pod` finds, as kubectl's searchEvents does."""
    w = PrefixWriter()
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    _describe_header(w, pod, now)
    if spec.get("initContainers"):
        describe_containers(
            w,
            "Init Containers",
            spec["initContainers"],
            status.get("initContainerStatuses") or [],
            pod,
        )
    describe_containers(
        w, "Containers", spec.get("containers") or [], status.get("containerStatuses") or [], pod
    )
    _describe_conditions(w, pod)
    describe_volumes(w, spec.get("volumes") or [])
    w.write(LEVEL_0, f"QoS Class:\t{get_pod_qos(pod)}\n")
    print_labels_multiline(w, "Node-Selectors", spec.get("nodeSelector"))
    print_pod_tolerations_multiline(w, "Tolerations", spec.get("tolerations"))
    describe_events(w, events, now)
    return w.text()
