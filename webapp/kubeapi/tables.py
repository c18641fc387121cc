"""`meta.k8s.io/v1` Table answers for `kubectl get`, rendered by the project's kubectl
printers (webapp/kubectl/) and, for the kinds those do not print, by ports of the API
server's own printers (kubernetes/pkg/printers/internalversion/printers.go: printNode,
printService, printNamespace, printStorageClass).

The API server builds a Table with every column (`GenerateOptions{Wide: true}` in
pkg/printers/storage/storage.go); the columns `-o wide` adds have priority 1, and kubectl
hides them otherwise. With `includeObject=Metadata` (kubectl's default) each row carries
the object's metadata as a PartialObjectMetadata, from which kubectl computes
`--show-labels` and `-L`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from webapp.kubeapi.common import bad_request
from webapp.kubectl.columns import POD_COLUMNS, POD_WIDE_COLUMNS, print_pod
from webapp.kubectl.events import EVENT_COLUMNS, EVENT_WIDE_COLUMNS, print_event
from webapp.kubectl.timestamps import translate_timestamp_since
from webapp.kubectl.workloads import _PRINTERS

Obj = dict[str, Any]

# The printers' column names, as the API server spells them (kubectl upper-cases them).
_NAMES = {
    "UP-TO-DATE": "Up-to-date",
    "ADDRESSTYPE": "AddressType",
    "STORAGECLASS": "StorageClass",
    "VOLUMEATTRIBUTESCLASS": "VolumeAttributesClass",
    "VOLUMEMODE": "VolumeMode",
    "IP": "IP",
    "PORT(S)": "Port(s)",
    "CLUSTER-IP": "Cluster-IP",
    "EXTERNAL-IP": "External-IP",
    "INTERNAL-IP": "Internal-IP",
    "OS-IMAGE": "OS-Image",
    "KERNEL-VERSION": "Kernel-Version",
    "CONTAINER-RUNTIME": "Container-Runtime",
    "RECLAIMPOLICY": "ReclaimPolicy",
    "VOLUMEBINDINGMODE": "VolumeBindingMode",
    "ALLOWVOLUMEEXPANSION": "AllowVolumeExpansion",
}


def _column_name(header: str) -> str:
    return _NAMES.get(header) or " ".join(word.capitalize() for word in header.split(" "))


def _age(obj: Obj, now: datetime) -> str:
    return translate_timestamp_since((obj.get("metadata") or {}).get("creationTimestamp"), now)


def _labels_text(labels: dict | None) -> str:
    """labels.FormatLabels: `k=v` sorted by key, comma-joined; `<none>` when empty."""
    if not labels:
        return "<none>"
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels))


# -- printNode ------------------------------------------------------------------------------

NODE_COLUMNS = ("NAME", "STATUS", "ROLES", "AGE", "VERSION")
NODE_WIDE = (*NODE_COLUMNS, "INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE", "KERNEL-VERSION",
             "CONTAINER-RUNTIME")  # fmt: skip


def _node_roles(node: Obj) -> list[str]:
    """findNodeRoles: `node-role.kubernetes.io/<role>` keys and the `kubernetes.io/role` value."""
    roles = set()
    for key, value in ((node.get("metadata") or {}).get("labels") or {}).items():
        if key.startswith("node-role.kubernetes.io/"):
            role = key[len("node-role.kubernetes.io/") :]
            if role:
                roles.add(role)
        elif key == "kubernetes.io/role" and value:
            roles.add(value)
    return sorted(roles)


def _node_address(node: Obj, kind: str) -> str:
    for address in (node.get("status") or {}).get("addresses") or []:
        if address.get("type") == kind:
            return str(address.get("address", ""))
    return "<none>"


def print_node(node: Obj, now: datetime) -> list[str]:
    status = node.get("status") or {}
    conditions = {c.get("type"): c for c in status.get("conditions") or []}
    words = []
    ready = conditions.get("Ready")
    if ready is not None:
        words.append("Ready" if ready.get("status") == "True" else "NotReady")
    if not words:
        words.append("Unknown")
    if (node.get("spec") or {}).get("unschedulable"):
        words.append("SchedulingDisabled")
    info = status.get("nodeInfo") or {}
    return [
        (node.get("metadata") or {}).get("name", ""),
        ",".join(words),
        ",".join(_node_roles(node)) or "<none>",
        _age(node, now),
        str(info.get("kubeletVersion", "")),
        _node_address(node, "InternalIP"),
        _node_address(node, "ExternalIP"),
        str(info.get("osImage") or "<unknown>"),
        str(info.get("kernelVersion") or "<unknown>"),
        str(info.get("containerRuntimeVersion") or "<unknown>"),
    ]


# -- printService ---------------------------------------------------------------------------

SERVICE_COLUMNS = ("NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE")
SERVICE_WIDE = (*SERVICE_COLUMNS, "SELECTOR")


def _port_string(ports: list[Obj]) -> str:
    """makePortString: `80/TCP`, `80:30080/TCP` with a node port, comma-joined."""
    parts = []
    for port in ports:
        protocol = port.get("protocol") or "TCP"
        if port.get("nodePort"):
            parts.append(f"{port.get('port')}:{port['nodePort']}/{protocol}")
        else:
            parts.append(f"{port.get('port')}/{protocol}")
    return ",".join(parts)


def _service_external_ip(service: Obj) -> str:
    """getServiceExternalIP."""
    spec = service.get("spec") or {}
    kind = spec.get("type") or "ClusterIP"
    external = spec.get("externalIPs") or []
    if kind in ("ClusterIP", "NodePort"):
        return ",".join(external) if external else "<none>"
    if kind == "LoadBalancer":
        ingress = ((service.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []
        ips = [i.get("ip") or i.get("hostname") or "" for i in ingress]
        ips = [ip for ip in ips if ip] + list(external)
        return ",".join(ips) if ips else "<pending>"
    if kind == "ExternalName":
        return str(spec.get("externalName", ""))
    return "<unknown>"


def print_service(service: Obj, now: datetime) -> list[str]:
    spec = service.get("spec") or {}
    cluster_ips = spec.get("clusterIPs") or ([spec["clusterIP"]] if spec.get("clusterIP") else [])
    return [
        (service.get("metadata") or {}).get("name", ""),
        str(spec.get("type") or "ClusterIP"),
        cluster_ips[0] if cluster_ips else "<none>",
        _service_external_ip(service),
        _port_string(spec.get("ports") or []) or "<none>",
        _age(service, now),
        _labels_text(spec.get("selector")),
    ]


# -- printNamespace, printStorageClass --------------------------------------------------------

NAMESPACE_COLUMNS = ("NAME", "STATUS", "AGE")


def print_namespace(namespace: Obj, now: datetime) -> list[str]:
    return [
        (namespace.get("metadata") or {}).get("name", ""),
        str((namespace.get("status") or {}).get("phase", "")),
        _age(namespace, now),
    ]


STORAGECLASS_COLUMNS = ("NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE",
                        "ALLOWVOLUMEEXPANSION", "AGE")  # fmt: skip
DEFAULT_CLASS_ANNOTATIONS = (
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
)


def print_storage_class(sc: Obj, now: datetime) -> list[str]:
    metadata = sc.get("metadata") or {}
    name = metadata.get("name", "")
    annotations = metadata.get("annotations") or {}
    if any(annotations.get(key) == "true" for key in DEFAULT_CLASS_ANNOTATIONS):
        name += " (default)"
    return [
        name,
        str(sc.get("provisioner", "")),
        str(sc.get("reclaimPolicy") or "Delete"),
        str(sc.get("volumeBindingMode") or "Immediate"),
        "true" if sc.get("allowVolumeExpansion") else "false",
        _age(sc, now),
    ]


# -- the table ------------------------------------------------------------------------------


def _from_kubectl(kind: str) -> tuple[Callable[[Obj, datetime], list[str]], tuple, tuple]:
    printer, columns, wide = _PRINTERS[kind]

    def cells(obj: Obj, now: datetime) -> list[str]:
        return list(printer(obj, now, wide=True).values())

    return cells, columns, wide


def _event_cells(event: Obj, now: datetime) -> list[str]:
    return print_event(event, now, wide=True)


def _pod_cells(pod: Obj, now: datetime) -> list[str]:
    return list(print_pod(pod, now, wide=True).values())


PRINTERS: dict[str, tuple[Callable[[Obj, datetime], list[str]], tuple, tuple]] = {
    "Pod": (_pod_cells, POD_COLUMNS, POD_WIDE_COLUMNS),
    "Event": (_event_cells, EVENT_COLUMNS, EVENT_WIDE_COLUMNS),
    "Node": (print_node, NODE_COLUMNS, NODE_WIDE),
    "Service": (print_service, SERVICE_COLUMNS, SERVICE_WIDE),
    "Namespace": (print_namespace, NAMESPACE_COLUMNS, NAMESPACE_COLUMNS),
    "StorageClass": (print_storage_class, STORAGECLASS_COLUMNS, STORAGECLASS_COLUMNS),
}
for _kind in _PRINTERS:
    if _kind not in PRINTERS:
        PRINTERS[_kind] = _from_kubectl(_kind)

_DESCRIPTIONS = {
    "NAME": "Name must be unique within a namespace. Is required when creating resources, "
    "although some resources may allow a client to request the generation of an appropriate "
    "name automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
    "AGE": "CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
    "UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
}


def column_definitions(kind: str) -> list[Obj]:
    if kind in PRINTERS:
        _, columns, wide = PRINTERS[kind]
    else:  # defaultTableConvertor (apiserver/pkg/registry/rest/table.go)
        return [
            {"name": "Name", "type": "string", "format": "name",
             "description": _DESCRIPTIONS["NAME"], "priority": 0},
            {"name": "Created At", "type": "date", "format": "",
             "description": _DESCRIPTIONS["AGE"], "priority": 0},
        ]  # fmt: skip
    shown = set(columns)
    return [
        {
            "name": _column_name(header),
            "type": "string",
            "format": "name" if header == "NAME" else "",
            "description": _DESCRIPTIONS.get(header, ""),
            "priority": 0 if header in shown else 1,
        }
        for header in wide
    ]


def _row_object(obj: Obj, include: str) -> Obj | None:
    if include == "None":
        return None
    if include == "Object":
        return obj
    metadata = obj.get("metadata") or {}
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": metadata}


def cells_of(kind: str, obj: Obj, now: datetime) -> list[Any]:
    if kind in PRINTERS:
        return PRINTERS[kind][0](obj, now)
    metadata = obj.get("metadata") or {}
    return [metadata.get("name", ""), metadata.get("creationTimestamp")]


def include_object() -> str:
    from flask import request

    value = request.args.get("includeObject", "Metadata") or "Metadata"
    if value not in ("None", "Metadata", "Object"):
        raise bad_request(
            f'unsupported includeObject value "{value}": must be one of None, Metadata, Object'
        )
    return value


def table(
    kind: str,
    objects: Iterable[Obj],
    now: datetime,
    rv: str,
    *,
    include: str = "Metadata",
    headers: bool = True,
    cont: str = "",
) -> Obj:
    """A Table of `objects` (a list, one object, or one watch event's object)."""
    rows = [{"cells": cells_of(kind, obj, now), "object": _row_object(obj, include)}
            for obj in objects]  # fmt: skip
    metadata: Obj = {"resourceVersion": rv}
    if cont:
        metadata["continue"] = cont
    out: Obj = {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": metadata}
    out["columnDefinitions"] = column_definitions(kind) if headers else None
    out["rows"] = rows
    return out
