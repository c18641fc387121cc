"""The EndpointSlice controller for one Service and our one Pod.

Sources: ``staging/src/k8s.io/endpointslice/utils.go`` podToEndpoint, getEndpointPorts,
setEndpointSliceLabels; ``pkg/api/v1/endpoints`` ShouldPodBeInEndpoints;
``podutil.FindPort`` (KUBERNETES-SEMANTICS §8).
"""

from __future__ import annotations

import hashlib

from webapp.engine.api.podutil import is_sidecar

MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by"
MANAGED_BY_CONTROLLER = "endpointslice-controller.k8s.io"
SERVICE_NAME_LABEL = "kubernetes.io/service-name"
HEADLESS_LABEL = "service.kubernetes.io/headless"
# k8s.io/apimachinery/pkg/util/rand: the alphabet generateName suffixes are drawn from.
NAME_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def service_selects(service: dict, pod: dict | None) -> bool:
    """The Service has a selector, the Pod is in its namespace and carries every label."""
    if pod is None:
        return False
    selector = (service.get("spec") or {}).get("selector") or {}
    if not selector or _namespace(service) != _namespace(pod):
        return False
    labels = (pod.get("metadata") or {}).get("labels") or {}
    return all(labels.get(key) == value for key, value in selector.items())


def should_pod_be_in_endpoints(pod: dict) -> bool:
    """``ShouldPodBeInEndpoints(pod, includeTerminating=true)``: not Succeeded/Failed and
    has an IP. Terminating pods stay, with terminating=true."""
    status = pod.get("status") or {}
    if status.get("phase") in ("Succeeded", "Failed"):
        return False
    return bool(status.get("podIP") or status.get("podIPs"))


def endpoint_slice(service: dict, pod: dict | None) -> dict:
    """The ``discovery.k8s.io/v1`` EndpointSlice the controller keeps for ``service``.

    With no endpoint the controller keeps a placeholder slice whose ``endpoints`` and
    ``ports`` are null, as ``kubectl get endpointslice -o yaml`` shows them.
    """
    endpoints, ports = None, None
    if pod is not None and service_selects(service, pod) and should_pod_be_in_endpoints(pod):
        endpoints = [pod_to_endpoint(pod, service)]
        ports = endpoint_ports(service, pod)
    return {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": _slice_metadata(service),
        "addressType": "IPv4",
        "endpoints": endpoints,
        "ports": ports,
    }


def endpoint_slice_for_pods(service: dict, pods: list[dict]) -> dict:
    """The EndpointSlice of ``service`` over many Pods (a workload's): one endpoint per
    selected Pod that should be in endpoints, in the order given; ports resolved on the
    first of them. No endpoint gives the placeholder slice, as ``endpoint_slice`` does."""
    chosen = [p for p in pods if service_selects(service, p) and should_pod_be_in_endpoints(p)]
    if not chosen:
        return endpoint_slice(service, None)
    slice_ = endpoint_slice(service, chosen[0])
    slice_["endpoints"] = [pod_to_endpoint(pod, service) for pod in chosen]
    return slice_


def endpoint_slice_name(service: dict) -> str:
    """``<service>-<5 chars>``: generateName with a suffix derived from the Service, so the
    same scenario always gives the same name."""
    digest = hashlib.sha256(f"{_namespace(service)}/{_name(service)}".encode()).digest()
    suffix = "".join(NAME_SUFFIX_ALPHABET[b % len(NAME_SUFFIX_ALPHABET)] for b in digest[:5])
    return f"{_name(service)}-{suffix}"


def _slice_metadata(service: dict) -> dict:
    """setEndpointSliceLabels: the Service's labels plus the controller's own."""
    labels = dict((service.get("metadata") or {}).get("labels") or {})
    labels[MANAGED_BY_LABEL] = MANAGED_BY_CONTROLLER
    labels[SERVICE_NAME_LABEL] = _name(service)
    if (service.get("spec") or {}).get("clusterIP") == "None":
        labels[HEADLESS_LABEL] = ""
    owner = {
        "apiVersion": "v1",
        "kind": "Service",
        "name": _name(service),
        "blockOwnerDeletion": True,
        "controller": True,
    }
    uid = (service.get("metadata") or {}).get("uid")
    if uid:
        owner["uid"] = uid
    return {
        "name": endpoint_slice_name(service),
        "generateName": f"{_name(service)}-",
        "namespace": _namespace(service),
        "labels": labels,
        "ownerReferences": [owner],
    }


def pod_to_endpoint(pod: dict, service: dict) -> dict:
    """``podToEndpoint``: serving = the Pod's Ready condition, terminating = a
    deletionTimestamp is set, ready = publishNotReadyAddresses or (serving and not
    terminating)."""
    metadata = pod.get("metadata") or {}
    serving = is_pod_ready(pod)
    terminating = metadata.get("deletionTimestamp") is not None
    publish_not_ready = bool((service.get("spec") or {}).get("publishNotReadyAddresses"))
    endpoint = {
        "addresses": _ipv4_addresses(pod),
        "conditions": {
            "ready": publish_not_ready or (serving and not terminating),
            "serving": serving,
            "terminating": terminating,
        },
    }
    node_name = (pod.get("spec") or {}).get("nodeName")
    if node_name:
        endpoint["nodeName"] = node_name
    target_ref = {"kind": "Pod", "name": metadata.get("name"), "namespace": _namespace(pod)}
    if metadata.get("uid"):
        target_ref["uid"] = metadata["uid"]
    endpoint["targetRef"] = target_ref
    return endpoint


def is_pod_ready(pod: dict) -> bool:
    """``podutil.IsPodReady``: the Ready condition is True."""
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return condition.get("status") == "True"
    return False


def _ipv4_addresses(pod: dict) -> list[str]:
    status = pod.get("status") or {}
    ips = [entry.get("ip") for entry in status.get("podIPs") or []] or [status.get("podIP")]
    return [ip for ip in ips if ip and ":" not in ip][:1]


def endpoint_ports(service: dict, pod: dict) -> list[dict]:
    """``getEndpointPorts``: each Service port with its targetPort resolved on the Pod
    (``FindPort``); a named targetPort the Pod lacks is left out."""
    ports = []
    for service_port in (service.get("spec") or {}).get("ports") or []:
        protocol = service_port.get("protocol") or "TCP"
        number = find_port(pod, service_port, protocol)
        if number is None:
            continue
        port = {"name": service_port.get("name", ""), "port": number, "protocol": protocol}
        if service_port.get("appProtocol"):
            port["appProtocol"] = service_port["appProtocol"]
        ports.append(port)
    return ports


def find_port(pod: dict, service_port: dict, protocol: str) -> int | None:
    """``podutil.FindPort``: a number is used as is; a name is looked up among the
    container ports (sidecars included) with the same protocol. Unset means ``port``."""
    target = service_port.get("targetPort", service_port.get("port"))
    if isinstance(target, int):
        return target
    if isinstance(target, str) and target.isdigit():
        return int(target)
    spec = pod.get("spec") or {}
    containers = list(spec.get("containers") or []) + [
        c for c in spec.get("initContainers") or [] if is_sidecar(c)
    ]
    for container in containers:
        for port in container.get("ports") or []:
            if port.get("name") == target and (port.get("protocol") or "TCP") == protocol:
                return port.get("containerPort")
    return None


def _name(obj: dict) -> str:
    return (obj.get("metadata") or {}).get("name", "")


def _namespace(obj: dict) -> str:
    return (obj.get("metadata") or {}).get("namespace") or "default"
