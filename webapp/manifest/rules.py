"""Checks the Kubernetes API server makes that the JSON schema does not.

Each rule is one function named after what it checks; it takes an object's data (already
known to be a mapping) and yields `Finding`s. Rules skip values of the wrong type: the
schema reports those.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any, TypeGuard

from webapp.manifest.errors import Finding, Path, format_path

Rule = Callable[[dict[str, Any]], Iterator[Finding]]

MAX_CONTAINERS = 20
POD_RESTART_POLICIES = ("Always", "OnFailure", "Never")
IMAGE_PULL_POLICIES = ("Always", "IfNotPresent", "Never")
PROBE_TYPES = ("livenessProbe", "readinessProbe", "startupProbe")
PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
HOOK_HANDLERS = ("exec", "httpGet", "tcpSocket", "sleep")
# Minimum values of probe fields (pkg/apis/core/validation ValidateNonnegativeField and
# the documented "Minimum value is 1").
PROBE_MINIMUMS = {
    "initialDelaySeconds": 0,
    "timeoutSeconds": 0,
    "periodSeconds": 1,
    "successThreshold": 0,
    "failureThreshold": 0,
    "terminationGracePeriodSeconds": 0,
}


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def pod_containers(pod: dict[str, Any]) -> Iterator[tuple[Path, dict[str, Any]]]:
    """(path, container) for every init and app container that is a mapping, in spec order."""
    spec = _mapping(pod.get("spec"))
    for field in ("initContainers", "containers"):
        for i, container in enumerate(_list(spec.get(field))):
            if isinstance(container, dict):
                yield ("spec", field, i), container


def container_names(pod: dict[str, Any]) -> list[str]:
    """Names of every init and app container of a Pod, in spec order."""
    return [c["name"] for _, c in pod_containers(pod) if isinstance(c.get("name"), str)]


def check_metadata_name(obj: dict[str, Any]) -> Iterator[Finding]:
    """Every object needs metadata.name."""
    metadata = obj.get("metadata")
    if metadata is None or (isinstance(metadata, dict) and metadata.get("name") in (None, "")):
        yield Finding(("metadata", "name"), "required", {"field": "metadata.name"})


# Names as the API server checks them (k8s.io/apimachinery/pkg/util/validation):
# IsDNS1123Subdomain, IsDNS1123Label, IsDNS1035Label. Each returns every message that
# applies, as Kubernetes does: a name can be both too long and badly formed.
DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
DNS1035_LABEL = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253
DNS1035_LABEL_MAX = 63
# metadata.name of each kind (pkg/apis/core/validation: ValidatePodName, ValidateNodeName,
# ValidateConfigMapName, ValidateSecretName are NameIsDNSSubdomain; ValidateServiceName is
# NameIsDNS1035Label).
NAME_RULES = {
    "Pod": "dns1123_subdomain",
    "Node": "dns1123_subdomain",
    "ConfigMap": "dns1123_subdomain",
    "Secret": "dns1123_subdomain",
    "Service": "dns1035_label",
    "Deployment": "dns1123_subdomain",
    "ReplicaSet": "dns1123_subdomain",
    "Job": "dns1123_subdomain",
    "StatefulSet": "dns1123_subdomain",
    "DaemonSet": "dns1123_subdomain",
    "PodDisruptionBudget": "dns1123_subdomain",
}
# Kinds that own Pods through spec.template (the workloads the engine runs).
WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "Job", "StatefulSet", "DaemonSet")
JOB_RESTART_POLICIES = ("OnFailure", "Never")
# The playground's bounds on what one run may hold (docs/limits.md): Pods at once per
# workload, and a Job's completions.
MAX_REPLICAS = 100
MAX_COMPLETIONS = 1000
DAEMONSET_NODES = 3  # a DaemonSet's Pods at once, counted for its work: the default nodes
# The total work of a run (issue 26, F1): per virtual second, each container of each Pod
# counts 1 (its lifecycle: starts, exits, restarts) plus the runs of its probes (1 /
# periodSeconds each, default 10 s), summed over every Pod the workloads run at once
# (replicas; a Job's parallelism). The worst single Pod within the limits (20 containers x
# three probes every second) is 80; the cap is twice that, so no cluster run costs more
# than a few of the worst Pod (100 crash-looping Pods of one probe-less container, 100).
MAX_RUN_WORK = 160
DEFAULT_PROBE_PERIOD = 10  # engine/apiserver/defaults.py


def name_problems(value: str, rule: str) -> list[tuple[str, dict[str, Any]]]:
    """(code, params) for every way `value` breaks `rule`, in Kubernetes' order."""
    found: list[tuple[str, dict[str, Any]]] = []
    if rule == "dns1123_subdomain":
        if len(value) > DNS1123_SUBDOMAIN_MAX:
            found.append(("max_length", {"value": value, "limit": DNS1123_SUBDOMAIN_MAX}))
        if not DNS1123_SUBDOMAIN.fullmatch(value):
            found.append(("dns1123_subdomain", {"value": value}))
    elif rule == "dns1123_label":
        if len(value) > DNS1123_LABEL_MAX:
            found.append(("max_length", {"value": value, "limit": DNS1123_LABEL_MAX}))
        if not DNS1123_LABEL.fullmatch(value):
            # A valid subdomain that is not a label can only be one with dots.
            code = "label_dots" if DNS1123_SUBDOMAIN.fullmatch(value) else "dns1123_label"
            found.append((code, {"value": value}))
    elif rule == "dns1035_label":
        if len(value) > DNS1035_LABEL_MAX:
            found.append(("max_length", {"value": value, "limit": DNS1035_LABEL_MAX}))
        if not DNS1035_LABEL.fullmatch(value):
            found.append(("dns1035_label", {"value": value}))
    return found


def _name_findings(path: Path, value: Any, rule: str) -> Iterator[Finding]:
    if isinstance(value, str) and value:
        for code, params in name_problems(value, rule):
            yield Finding(path, code, params)


def object_name_rule(kind: str) -> Rule:
    """metadata.name of `kind` checked as the API server checks it."""

    def check_object_name(obj: dict[str, Any]) -> Iterator[Finding]:
        yield from _name_findings(
            ("metadata", "name"), _mapping(obj.get("metadata")).get("name"), NAME_RULES[kind]
        )

    return check_object_name


def check_container_names(pod: dict[str, Any]) -> Iterator[Finding]:
    """Container names (init, sidecar, app) are DNS-1123 labels."""
    for path, container in pod_containers(pod):
        yield from _name_findings((*path, "name"), container.get("name"), "dns1123_label")


def check_pod_has_containers(pod: dict[str, Any]) -> Iterator[Finding]:
    """A Pod needs a spec with at least one container."""
    spec = pod.get("spec")
    if spec is None:
        yield Finding(("spec",), "required", {"field": "spec"})
    elif isinstance(spec, dict) and spec.get("containers") == []:
        yield Finding(("spec", "containers"), "no_containers", {})


def check_container_items(pod: dict[str, Any]) -> Iterator[Finding]:
    """A list item left empty (``containers:`` then a bare ``-``) decodes, as in the API
    server, to a container with every field unset: its name and image are required."""
    spec = _mapping(pod.get("spec"))
    for field in ("initContainers", "containers"):
        for i, container in enumerate(_list(spec.get(field))):
            if container is None:
                path = ("spec", field, i)
                yield Finding(path, "required", {"field": f"{format_path(path)}.name"})
                yield Finding(path, "image_required", {"container": format_path(path)})


def check_container_count(pod: dict[str, Any]) -> Iterator[Finding]:
    """The playground simulates at most MAX_CONTAINERS containers per Pod."""
    spec = _mapping(pod.get("spec"))
    count = sum(len(_list(spec.get(field))) for field in ("initContainers", "containers"))
    if count > MAX_CONTAINERS:
        field = "containers" if "containers" in spec else "initContainers"
        yield Finding(
            ("spec", field),
            "too_many_containers",
            {"count": count, "limit": MAX_CONTAINERS},
            point="key",
        )


def check_unique_container_names(pod: dict[str, Any]) -> Iterator[Finding]:
    """Container names are unique across init and app containers."""
    first_seen: dict[str, Path] = {}
    for path, container in pod_containers(pod):
        name = container.get("name")
        if not isinstance(name, str):
            continue
        if name in first_seen:
            yield Finding(
                (*path, "name"),
                "duplicate_container",
                {"name": name, "first": format_path(first_seen[name])},
            )
        else:
            first_seen[name] = path


def check_restart_policy(pod: dict[str, Any]) -> Iterator[Finding]:
    """spec.restartPolicy is Always, OnFailure or Never."""
    policy = _mapping(pod.get("spec")).get("restartPolicy")
    if isinstance(policy, str) and policy not in POD_RESTART_POLICIES:
        yield Finding(
            ("spec", "restartPolicy"),
            "enum",
            {"value": policy, "allowed": list(POD_RESTART_POLICIES)},
        )


def check_init_container_restart_policy(pod: dict[str, Any]) -> Iterator[Finding]:
    """An init container's restartPolicy may only be Always (which makes it a sidecar)."""
    spec = _mapping(pod.get("spec"))
    for i, container in enumerate(_list(spec.get("initContainers"))):
        policy = _mapping(container).get("restartPolicy")
        if isinstance(policy, str) and policy != "Always":
            yield Finding(
                ("spec", "initContainers", i, "restartPolicy"),
                "init_restart_policy",
                {"value": policy},
            )


def check_image_pull_policy(pod: dict[str, Any]) -> Iterator[Finding]:
    """imagePullPolicy is Always, IfNotPresent or Never."""
    for path, container in pod_containers(pod):
        policy = container.get("imagePullPolicy")
        if isinstance(policy, str) and policy not in IMAGE_PULL_POLICIES:
            yield Finding(
                (*path, "imagePullPolicy"),
                "enum",
                {"value": policy, "allowed": list(IMAGE_PULL_POLICIES)},
            )


def check_container_image(pod: dict[str, Any]) -> Iterator[Finding]:
    """Every container names an image (the schema leaves `image` optional)."""
    for path, container in pod_containers(pod):
        image = container.get("image")
        if image is None or (isinstance(image, str) and not image.strip()):
            name = container.get("name")
            # `image:` with nothing after it: show the key, not the empty spot after it.
            yield Finding(
                (*path, "image"),
                "image_required",
                {"container": name if isinstance(name, str) else format_path(path)},
                point="key" if "image" in container and image is None else "value",
            )


def _probes(pod: dict[str, Any]) -> Iterator[tuple[str, Path, dict[str, Any]]]:
    for path, container in pod_containers(pod):
        for probe_type in PROBE_TYPES:
            probe = container.get(probe_type)
            if isinstance(probe, dict):
                yield probe_type, (*path, probe_type), probe


def check_probe_success_threshold(pod: dict[str, Any]) -> Iterator[Finding]:
    """Liveness and startup probes need successThreshold 1."""
    for probe_type, path, probe in _probes(pod):
        value = probe.get("successThreshold")
        if probe_type != "readinessProbe" and _is_int(value) and value != 1:
            yield Finding(
                (*path, "successThreshold"),
                "success_threshold",
                {"probe": probe_type, "value": value},
            )


def check_readiness_probe_grace(pod: dict[str, Any]) -> Iterator[Finding]:
    """A readiness probe never kills, so it has no terminationGracePeriodSeconds."""
    for probe_type, path, probe in _probes(pod):
        if (
            probe_type == "readinessProbe"
            and probe.get("terminationGracePeriodSeconds") is not None
        ):
            yield Finding(
                (*path, "terminationGracePeriodSeconds"), "readiness_termination_grace", {}
            )


def check_probe_numbers(pod: dict[str, Any]) -> Iterator[Finding]:
    """Probe timings are not negative, and periodSeconds is at least 1."""
    for _, path, probe in _probes(pod):
        for field, minimum in PROBE_MINIMUMS.items():
            value = probe.get(field)
            if _is_int(value) and value < minimum:
                yield Finding((*path, field), "minimum", {"minimum": minimum, "value": value})


def _handler_findings(
    path: Path, handler: dict[str, Any], handlers: tuple[str, ...], handler_of: str
) -> Iterator[Finding]:
    present = [name for name in handlers if handler.get(name) is not None]
    if not present:
        yield Finding(
            path,
            "handler_missing",
            {"handler_of": handler_of, "handlers": list(handlers)},
            point="key",
        )
    elif len(present) > 1:
        yield Finding(
            path, "handler_multiple", {"handler_of": handler_of, "found": present}, point="key"
        )


def check_probe_handler(pod: dict[str, Any]) -> Iterator[Finding]:
    """A probe has exactly one of exec, httpGet, tcpSocket, grpc."""
    for _, path, probe in _probes(pod):
        yield from _handler_findings(path, probe, PROBE_HANDLERS, "probe")


def check_lifecycle_handler(pod: dict[str, Any]) -> Iterator[Finding]:
    """A postStart or preStop hook has exactly one of exec, httpGet, tcpSocket, sleep."""
    for path, container in pod_containers(pod):
        lifecycle = _mapping(container.get("lifecycle"))
        for hook in ("postStart", "preStop"):
            handler = lifecycle.get(hook)
            if isinstance(handler, dict):
                yield from _handler_findings(
                    (*path, "lifecycle", hook), handler, HOOK_HANDLERS, "hook"
                )


def check_node_name_with_scheduling_gates(pod: dict[str, Any]) -> Iterator[Finding]:
    """A Pod created with scheduling gates may not name its node (validatePodCreate:
    ``spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared``)."""
    spec = _mapping(pod.get("spec"))
    if spec.get("nodeName") and _list(spec.get("schedulingGates")):
        yield Finding(("spec", "nodeName"), "node_name_gated", {})


OBJECT_RULES: tuple[Rule, ...] = (check_metadata_name,)
POD_RULES: tuple[Rule, ...] = (
    check_pod_has_containers,
    check_container_items,
    check_container_names,
    check_container_count,
    check_unique_container_names,
    check_restart_policy,
    check_init_container_restart_policy,
    check_image_pull_policy,
    check_container_image,
    check_probe_success_threshold,
    check_readiness_probe_grace,
    check_probe_numbers,
    check_probe_handler,
    check_lifecycle_handler,
    check_node_name_with_scheduling_gates,
)


def rule_findings(kind: str, obj: dict[str, Any]) -> list[Finding]:
    """Every rule finding for one Kubernetes object."""
    rules = OBJECT_RULES + (POD_RULES if kind == "Pod" else ())
    if kind in NAME_RULES:
        rules += (object_name_rule(kind),)
    findings = [finding for rule in rules for finding in rule(obj)]
    if kind == "PodDisruptionBudget":
        findings.extend(pdb_findings(obj))
    if kind in WORKLOAD_KINDS:
        findings.extend(workload_findings(obj, kind))
    return findings


def pdb_findings(obj: dict[str, Any]) -> Iterator[Finding]:
    """``ValidatePodDisruptionBudgetSpec``: minAvailable and maxUnavailable not both; an
    integer not negative."""
    spec = _mapping(obj.get("spec"))
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        yield Finding(("spec", "maxUnavailable"), "pdb_both", {})
    for key in ("minAvailable", "maxUnavailable"):
        value = spec.get(key)
        if _is_int(value) and value < 0:
            yield Finding(("spec", key), "minimum", {"minimum": 0, "value": value})


RETENTION_POLICIES = ["Retain", "Delete"]


def statefulset_storage_findings(spec: dict[str, Any]) -> Iterator[Finding]:
    """``ValidateStatefulSetSpec``'s storage part: each ``volumeClaimTemplates`` entry is
    named (its claims are ``<name>-<set>-<ordinal>``), and the retention policy's
    ``whenDeleted`` / ``whenScaled`` are Retain or Delete."""
    templates = spec.get("volumeClaimTemplates")
    for index, template in enumerate(templates if isinstance(templates, list) else []):
        name = _mapping(_mapping(template).get("metadata")).get("name")
        if not isinstance(name, str) or not name:
            yield Finding(("spec", "volumeClaimTemplates", index, "metadata", "name"), "required",
                          {"field": f"spec.volumeClaimTemplates[{index}].metadata.name"})  # fmt: skip
    policy = _mapping(spec.get("persistentVolumeClaimRetentionPolicy"))
    for key in ("whenDeleted", "whenScaled"):
        value = policy.get(key)
        if value is not None and value not in RETENTION_POLICIES:
            yield Finding(("spec", "persistentVolumeClaimRetentionPolicy", key), "enum",
                          {"value": value, "allowed": RETENTION_POLICIES})  # fmt: skip


def pod_work(pod: dict[str, Any]) -> float:
    """The work per virtual second of one Pod (see MAX_RUN_WORK): 1 per container plus
    1 / periodSeconds per probe. Malformed parts count as their defaults (the schema and the
    other rules report them)."""
    work = 0.0
    for _, container in pod_containers(pod):
        work += 1.0
        for probe_type in PROBE_TYPES:
            probe = container.get(probe_type)
            if not isinstance(probe, dict):
                continue
            period = probe.get("periodSeconds", DEFAULT_PROBE_PERIOD)
            work += 1.0 / period if _is_int(period) and period >= 1 else 1.0
    return work


def workload_pods(obj: dict[str, Any], kind: str) -> int:
    """How many Pods a workload runs at once, as written: replicas (default 1), a Job's
    parallelism (default 1), within 0..MAX_REPLICAS."""
    spec = _mapping(obj.get("spec"))
    if kind == "DaemonSet":  # one Pod per node: at most the playground's default nodes
        return DAEMONSET_NODES
    value = spec.get("parallelism" if kind == "Job" else "replicas", 1)
    return min(max(value, 0), MAX_REPLICAS) if _is_int(value) else 1


def workload_work(obj: dict[str, Any], kind: str) -> float:
    """The work per virtual second of one workload: its Pods at once x its template's."""
    template = _mapping(_mapping(obj.get("spec")).get("template"))
    return workload_pods(obj, kind) * pod_work(template)


def check_run_work(objects: list[tuple[str, dict[str, Any]]]) -> tuple[int, Finding] | None:
    """The workloads of one run together stay within MAX_RUN_WORK; over it, a finding at the
    heaviest workload's replicas (or parallelism), naming the cap, with that workload's index
    in `objects` ((kind, object) pairs; kinds that run no Pods are skipped)."""
    shares = [(workload_work(obj, kind), i, kind) for i, (kind, obj) in enumerate(objects)
              if kind in WORKLOAD_KINDS]  # fmt: skip
    total = sum(work for work, _, _ in shares)
    if total <= MAX_RUN_WORK:
        return None
    _, index, kind = max(shares)
    spec = _mapping(objects[index][1].get("spec"))
    key = "parallelism" if kind == "Job" else "replicas"
    path: Path = ("spec", key) if key in spec else ("spec", "template", "spec", "containers")
    return index, Finding(path, "run_too_heavy", {"work": _units(total), "limit": MAX_RUN_WORK})


def _units(work: float) -> str:
    return f"{work:.1f}".rstrip("0").rstrip(".")


def workload_findings(obj: dict[str, Any], kind: str = "Deployment") -> Iterator[Finding]:
    """``ValidateDeploymentSpec`` / ``ValidateReplicaSetSpec`` (pkg/apis/apps/validation),
    ``ValidateJobSpec`` (pkg/apis/batch/validation): the Pod template passes the Pod rules
    (paths under spec.template); its restartPolicy is Always (a Job's: OnFailure or Never,
    and it must be set); the selector is not empty and selects the template's labels (a
    Job's is generated when not given)."""
    spec = _mapping(obj.get("spec"))
    counts = ("replicas", "minReadySeconds", "revisionHistoryLimit", "progressDeadlineSeconds")
    if kind == "StatefulSet":
        counts = ("replicas", "minReadySeconds", "revisionHistoryLimit")
    if kind == "DaemonSet":
        counts = ("minReadySeconds", "revisionHistoryLimit")
    if kind == "Job":
        counts = ("parallelism", "completions", "backoffLimit", "activeDeadlineSeconds",
                  "ttlSecondsAfterFinished", "backoffLimitPerIndex", "maxFailedIndexes")  # fmt: skip
    for key in counts:
        value = spec.get(key)
        if _is_int(value) and value < 0:  # ValidateNonnegativeField
            yield Finding(("spec", key), "minimum", {"minimum": 0, "value": value})
    for key, limit in (("replicas", MAX_REPLICAS), ("parallelism", MAX_REPLICAS),
                       ("completions", MAX_COMPLETIONS)):  # fmt: skip
        value = spec.get(key)
        if _is_int(value) and value > limit:
            yield Finding(("spec", key), "playground_limit", {"limit": limit, "value": value})
    if kind == "StatefulSet":
        yield from statefulset_storage_findings(spec)
    template = _mapping(spec.get("template"))
    prefix: Path = ("spec", "template")
    for rule in POD_RULES:
        for finding in rule(template):
            yield Finding(prefix + tuple(finding.path), finding.code, finding.params, finding.point)
    policy = _mapping(template.get("spec")).get("restartPolicy")
    allowed = list(JOB_RESTART_POLICIES) if kind == "Job" else ["Always"]
    if kind == "Job" and policy is None and isinstance(template.get("spec"), dict):
        yield Finding(
            (*prefix, "spec", "restartPolicy"), "enum", {"value": "Always", "allowed": allowed}
        )
    if isinstance(policy, str) and policy in POD_RESTART_POLICIES and policy not in allowed:
        yield Finding(
            (*prefix, "spec", "restartPolicy"), "enum", {"value": policy, "allowed": allowed}
        )
    selector = spec.get("selector")
    if kind == "Job" and selector is None:
        return  # generated by the API server
    if not isinstance(selector, dict):
        return  # the schema says it is required
    match = selector.get("matchLabels")
    expressions = selector.get("matchExpressions")
    if not match and not expressions:
        yield Finding(("spec", "selector"), "empty_selector", {})
        return
    labels = _mapping(_mapping(template.get("metadata")).get("labels"))
    if isinstance(match, dict) and any(labels.get(k) != v for k, v in match.items()):
        yield Finding(
            ("spec", "template", "metadata", "labels"), "selector_mismatch",
            {"selector": ",".join(f"{k}={v}" for k, v in match.items())},
        )  # fmt: skip
    if expressions:
        yield Finding(("spec", "selector", "matchExpressions"), "not_run_yet_field", {})
