"""`kubectl describe pod`, the container sections: describeContainers and its helpers."""

from __future__ import annotations

from typing import Any

from webapp.kubectl.prefix_writer import (
    LEVEL_0,
    LEVEL_1,
    LEVEL_2,
    LEVEL_3,
    PrefixWriter,
    bool_text,
    go_bool,
    string_or_none,
)
from webapp.kubectl.quantity import canonical_quantity, quantity_value
from webapp.kubectl.timestamps import format_rfc1123z

_PROBE_DEFAULTS = {
    "initialDelaySeconds": 0,
    "timeoutSeconds": 1,
    "periodSeconds": 10,
    "successThreshold": 1,
    "failureThreshold": 3,
}


def describe_containers(
    w: PrefixWriter,
    label: str,
    containers: list[dict[str, Any]],
    statuses: list[dict[str, Any]],
    pod: dict[str, Any],
) -> None:
    """describeContainers: one block per container of the spec, its status when reported."""
    by_name = {status.get("name"): status for status in statuses}
    w.write(LEVEL_0, f"{label}:{'' if containers else ' <none>'}\n")
    for container in containers:
        status = by_name.get(container.get("name"))
        describe_container_basic_info(w, container, status)
        describe_container_command(w, container)
        if status is not None:
            describe_container_state(w, status)
        describe_resources(w, container.get("resources") or {}, LEVEL_2)
        describe_container_probe(w, container)
        if container.get("envFrom"):
            describe_container_env_from(w, container)
        describe_container_env_vars(w, container, pod)
        describe_container_volumes(w, container)


def _ports(container: dict[str, Any], field: str) -> str:
    return ", ".join(
        f"{port.get(field, 0)}/{port.get('protocol', 'TCP')}"
        for port in container.get("ports") or []
    )


def describe_container_basic_info(
    w: PrefixWriter, container: dict[str, Any], status: dict[str, Any] | None
) -> None:
    w.write(LEVEL_1, f"{container.get('name', '')}:\n")
    if status is not None:
        w.write(LEVEL_2, f"Container ID:\t{status.get('containerID', '')}\n")
    w.write(LEVEL_2, f"Image:\t{container.get('image', '')}\n")
    if status is not None:
        w.write(LEVEL_2, f"Image ID:\t{status.get('imageID', '')}\n")
    ports, host_ports = _ports(container, "containerPort"), _ports(container, "hostPort")
    w.write(LEVEL_2, f"Ports:\t{ports}\n" if "," in ports else f"Port:\t{string_or_none(ports)}\n")
    if "," in host_ports:
        w.write(LEVEL_2, f"Host Ports:\t{host_ports}\n")
    else:
        w.write(LEVEL_2, f"Host Port:\t{string_or_none(host_ports)}\n")


def describe_container_command(w: PrefixWriter, container: dict[str, Any]) -> None:
    for field, title in (("command", "Command"), ("args", "Args")):
        if container.get(field):
            w.write(LEVEL_2, f"{title}:\n")
            for item in container[field]:
                for line in str(item).split("\n"):
                    w.write(LEVEL_3, f"{line}\n")


def describe_status(w: PrefixWriter, title: str, state: dict[str, Any]) -> None:
    """describeStatus: Running / Waiting / Terminated with their details."""
    if state.get("running") is not None:
        w.write(LEVEL_2, f"{title}:\tRunning\n")
        w.write(LEVEL_3, f"Started:\t{format_rfc1123z(state['running'].get('startedAt'))}\n")
    elif state.get("waiting") is not None:
        w.write(LEVEL_2, f"{title}:\tWaiting\n")
        if state["waiting"].get("reason"):
            w.write(LEVEL_3, f"Reason:\t{state['waiting']['reason']}\n")
    elif state.get("terminated") is not None:
        terminated = state["terminated"]
        w.write(LEVEL_2, f"{title}:\tTerminated\n")
        if terminated.get("reason"):
            w.write(LEVEL_3, f"Reason:\t{terminated['reason']}\n")
        if terminated.get("message"):
            w.write(LEVEL_3, f"Message:\t{terminated['message']}\n")
        w.write(LEVEL_3, f"Exit Code:\t{terminated.get('exitCode', 0)}\n")
        if terminated.get("signal", 0) > 0:
            w.write(LEVEL_3, f"Signal:\t{terminated['signal']}\n")
        w.write(LEVEL_3, f"Started:\t{format_rfc1123z(terminated.get('startedAt'))}\n")
        w.write(LEVEL_3, f"Finished:\t{format_rfc1123z(terminated.get('finishedAt'))}\n")
    else:
        w.write(LEVEL_2, f"{title}:\tWaiting\n")


def describe_container_state(w: PrefixWriter, status: dict[str, Any]) -> None:
    describe_status(w, "State", status.get("state") or {})
    last_state = status.get("lastState") or {}
    if last_state.get("terminated") is not None:
        describe_status(w, "Last State", last_state)
    w.write(LEVEL_2, f"Ready:\t{bool_text(bool(status.get('ready')))}\n")
    w.write(LEVEL_2, f"Restart Count:\t{status.get('restartCount', 0)}\n")


def describe_resources(w: PrefixWriter, resources: dict[str, Any], level: int) -> None:
    """describeResources: Limits then Requests, resource names sorted."""
    for field, title in (("limits", "Limits"), ("requests", "Requests")):
        values = resources.get(field) or {}
        if values:
            w.write(level, f"{title}:\n")
        for name in sorted(values):
            w.write(level + 1, f"{name}:\t{canonical_quantity(values[name])}\n")


def _port_text(port: Any) -> str:
    return str(port) if port is not None else ""


def describe_probe(probe: dict[str, Any]) -> str:
    """DescribeProbe, e.g. `http-get http://:8080/healthz delay=0s timeout=1s period=10s ...`."""
    p = {**_PROBE_DEFAULTS, **probe}
    attrs = (
        f"delay={p['initialDelaySeconds']}s timeout={p['timeoutSeconds']}s "
        f"period={p['periodSeconds']}s #success={p['successThreshold']} "
        f"#failure={p['failureThreshold']}"
    )
    if probe.get("exec") is not None:
        return f"exec [{' '.join(probe['exec'].get('command') or [])}] {attrs}"
    if probe.get("httpGet") is not None:
        http = probe["httpGet"]
        host, port = http.get("host", ""), _port_text(http.get("port"))
        netloc = f"[{host}]:{port}" if ":" in host else f"{host}:{port}" if port else host
        scheme = str(http.get("scheme", "HTTP")).lower()
        path = http.get("path", "")
        if path and not path.startswith("/"):
            path = "/" + path  # url.URL.String() adds the slash after a host
        return f"http-get {scheme}://{netloc}{path} {attrs}"
    if probe.get("tcpSocket") is not None:
        tcp = probe["tcpSocket"]
        return f"tcp-socket {tcp.get('host', '')}:{_port_text(tcp.get('port'))} {attrs}"
    if probe.get("grpc") is not None:
        grpc = probe["grpc"]
        return f"grpc <pod>:{grpc.get('port')} {grpc.get('service', '')} {attrs}"
    return f"unknown {attrs}"


def describe_container_probe(w: PrefixWriter, container: dict[str, Any]) -> None:
    for field, title in (
        ("livenessProbe", "Liveness"),
        ("readinessProbe", "Readiness"),
        ("startupProbe", "Startup"),
    ):
        if container.get(field) is not None:
            w.write(LEVEL_2, f"{title}:\t{describe_probe(container[field])}\n")


def describe_container_env_from(w: PrefixWriter, container: dict[str, Any]) -> None:
    w.write(LEVEL_2, "Environment Variables from:\n")
    for source in container.get("envFrom") or []:
        kind, ref = (
            ("ConfigMap", source["configMapRef"])
            if "configMapRef" in source
            else (
                "Secret",
                source.get("secretRef") or {},
            )
        )
        optional = go_bool(bool(ref.get("optional")))
        prefix = source.get("prefix", "")
        described = f"{kind} with prefix '{prefix}'" if prefix else kind
        w.write(LEVEL_3, f"{ref.get('name', '')}\t{described}\tOptional: {optional}\n")


def resolve_field_ref(pod: dict[str, Any], field_path: str) -> str:
    """fieldpath.ExtractFieldPathAsString for the paths the downward API allows."""
    metadata, spec, status = (pod.get(k) or {} for k in ("metadata", "spec", "status"))
    for prefix, source in (("metadata.labels", "labels"), ("metadata.annotations", "annotations")):
        if field_path.startswith(prefix + "['") and field_path.endswith("']"):
            return (metadata.get(source) or {}).get(field_path[len(prefix) + 2 : -2], "")
    simple = {
        "metadata.name": metadata.get("name"),
        "metadata.namespace": metadata.get("namespace"),
        "metadata.uid": metadata.get("uid"),
        "spec.nodeName": spec.get("nodeName"),
        "spec.serviceAccountName": spec.get("serviceAccountName"),
        "status.hostIP": status.get("hostIP"),
        "status.podIP": status.get("podIP"),
    }
    return str(simple.get(field_path) or "")


def _resource_field_value(container: dict[str, Any], ref: dict[str, Any]) -> str:
    """ExtractContainerResourceValue: ceil(value / divisor); 0 when unset."""
    kind, _, name = ref.get("resource", "").partition(".")
    quantities = (container.get("resources") or {}).get(kind) or {}
    if name not in quantities:
        return "0"
    divisor = quantity_value(ref.get("divisor") or "1") or 1
    value = quantity_value(quantities[name]) / divisor
    return str(-(-value.numerator // value.denominator))


def _describe_env_value_from(
    w: PrefixWriter, env: dict[str, Any], container: dict[str, Any], pod: dict[str, Any]
) -> None:
    value_from, name = env["valueFrom"], env.get("name", "")
    if value_from.get("fieldRef") is not None:
        ref = value_from["fieldRef"]
        value = resolve_field_ref(pod, ref.get("fieldPath", ""))
        source = f"{ref.get('apiVersion', 'v1')}:{ref.get('fieldPath', '')}"
        w.write(LEVEL_3, f"{name}:\t{value} ({source})\n")
    elif value_from.get("resourceFieldRef") is not None:
        ref = value_from["resourceFieldRef"]
        resource = ref.get("resource", "")
        value = _resource_field_value(container, ref)
        if value == "0" and resource in ("limits.cpu", "limits.memory"):
            value = "node allocatable"
        w.write(LEVEL_3, f"{name}:\t{value} ({resource})\n")
    elif value_from.get("secretKeyRef") is not None:
        ref = value_from["secretKeyRef"]
        optional = go_bool(bool(ref.get("optional")))
        described = f"<set to the key '{ref.get('key', '')}' in secret '{ref.get('name', '')}'>"
        w.write(LEVEL_3, f"{name}:\t{described}\tOptional: {optional}\n")
    elif value_from.get("configMapKeyRef") is not None:
        ref = value_from["configMapKeyRef"]
        optional = go_bool(bool(ref.get("optional")))
        described = f"<set to the key '{ref.get('key', '')}' of config map '{ref.get('name', '')}'>"
        w.write(LEVEL_3, f"{name}:\t{described}\tOptional: {optional}\n")


def describe_container_env_vars(
    w: PrefixWriter, container: dict[str, Any], pod: dict[str, Any]
) -> None:
    envs = container.get("env") or []
    w.write(LEVEL_2, "Environment:" + ("" if envs else "\t<none>") + "\n")
    for env in envs:
        if env.get("valueFrom") is None:
            for index, line in enumerate(str(env.get("value", "")).split("\n")):
                key = f"{env.get('name', '')}:" if index == 0 else ""
                w.write(LEVEL_3, f"{key}\t{line}\n")
        else:
            _describe_env_value_from(w, env, container, pod)


def describe_container_volumes(w: PrefixWriter, container: dict[str, Any]) -> None:
    mounts = sorted(container.get("volumeMounts") or [], key=lambda m: m.get("mountPath", ""))
    w.write(LEVEL_2, "Mounts:" + ("" if mounts else "\t<none>") + "\n")
    for mount in mounts:
        flags = ["ro" if mount.get("readOnly") else "rw"]
        if mount.get("subPath"):
            flags.append(f'path="{mount["subPath"]}"')
        w.write(
            LEVEL_3,
            f"{mount.get('mountPath', '')} from {mount.get('name', '')} ({','.join(flags)})\n",
        )
