"""What the API server adds to a Pod on create, so ``kubectl get pod -o json`` looks real.

Sources: ``pkg/apis/core/v1/defaults.go`` (SetDefaults_Pod, SetDefaults_PodSpec,
SetDefaults_Container, SetDefaults_Probe, SetDefaults_HTTPGetAction, volume sources),
the admission plugins ServiceAccount, Priority and DefaultTolerationSeconds
(KUBERNETES-SEMANTICS §1.7, §5.1, §8, §11), and ``resource.Quantity`` canonical form.

Not added here (they need a clock or an identity, so the simulation owns them): uid,
resourceVersion, creationTimestamp, generation, status. The projected
``kube-api-access-<random>`` service-account volume needs randomness: the simulation calls
:func:`admit_service_account` with its seeded generator right after
:func:`apply_pod_defaults`.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from webapp.engine.api.quantity import canonical_quantity, parse_quantity

DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30
DEFAULT_TOLERATION_SECONDS = 300  # --default-{not-ready,unreachable}-toleration-seconds
TAINT_NODE_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_NODE_UNREACHABLE = "node.kubernetes.io/unreachable"
DEFAULT_VOLUME_MODE = 420  # 0644, SetDefaults_{ConfigMap,Secret,Projected,DownwardAPI}VolumeSource

_POD_SPEC_DEFAULTS: dict[str, Any] = {
    "restartPolicy": "Always",
    "terminationGracePeriodSeconds": DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS,
    "dnsPolicy": "ClusterFirst",
    "securityContext": {},
    "schedulerName": "default-scheduler",
    "serviceAccountName": "default",  # ServiceAccount admission
    "enableServiceLinks": True,
    "preemptionPolicy": "PreemptLowerPriority",  # Priority admission
    "priority": 0,
}
_PROBE_DEFAULTS: dict[str, int] = {
    "timeoutSeconds": 1,
    "periodSeconds": 10,
    "successThreshold": 1,
    "failureThreshold": 3,
}
_CONTAINER_DEFAULTS: dict[str, Any] = {
    "terminationMessagePath": "/dev/termination-log",
    "terminationMessagePolicy": "File",
    "resources": {},
}
_PROBE_FIELDS = ("livenessProbe", "readinessProbe", "startupProbe")

# plugin/pkg/admission/serviceaccount/admission.go
SERVICE_ACCOUNT_VOLUME_PREFIX = "kube-api-access-"  # ServiceAccountVolumeName + "-"
DEFAULT_API_TOKEN_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
# serviceaccount.WarnOnlyBoundTokenExpirationSeconds: 1 h + 7 s, so that a token is
# recognisable as an auto-mounted one when the apiserver extends its lifetime.
TOKEN_EXPIRATION_SECONDS = 3607
ROOT_CA_CONFIG_MAP = "kube-root-ca.crt"  # published into every namespace by the
# root-ca-cert-publisher controller, so it never counts as missing
# k8s.io/apimachinery/pkg/util/rand: the alphabet of names.SimpleNameGenerator's suffix
# (lowercase consonants and digits without vowels, 0, 1 and 3, so no words are spelled).
NAME_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
NAME_SUFFIX_LENGTH = 5


def apply_pod_defaults(pod: dict) -> dict:
    """A new Pod dict with the API server's defaults filled in; keys sorted as kubectl
    prints them (``-o json`` / ``-o yaml`` sort map keys). The input is not changed."""
    result = copy.deepcopy(pod)
    metadata = result.setdefault("metadata", {})
    metadata.setdefault("namespace", "default")
    spec = result.setdefault("spec", {})
    for key, value in _POD_SPEC_DEFAULTS.items():
        spec.setdefault(key, copy.deepcopy(value))
    spec.setdefault("serviceAccount", spec["serviceAccountName"])  # deprecated mirror field
    spec["tolerations"] = default_toleration_seconds(spec.get("tolerations") or [])
    for field in ("initContainers", "containers"):
        for container in spec.get(field) or []:
            set_defaults_container(container)
    for volume in spec.get("volumes") or []:
        set_defaults_volume(volume)
    return sort_keys(result)


def admit_service_account(pod: dict, rng: random.Random) -> dict:
    """The ServiceAccount admission plugin on Pod create (``mountServiceAccountToken``).

    Unless ``spec.automountServiceAccountToken`` is false (the ServiceAccount's own field
    is not modelled: the default ServiceAccount leaves it unset), every init container and
    container that does not already mount something at
    ``/var/run/secrets/kubernetes.io/serviceaccount`` gets a read-only mount of the
    projected ``kube-api-access-<5 random chars>`` volume, and that volume (TokenVolumeSource)
    is appended to ``spec.volumes``. An existing volume named ``kube-api-access-…`` is
    reused, as the plugin does. Call it on the output of :func:`apply_pod_defaults`; the
    input is not changed, keys come out sorted.

    From memory of admission.go (not re-read against the 1.37 tree): the mount is
    appended after the container's own mounts; ephemeral containers get it too (the
    playground has none); mirror pods are skipped (the playground has none).
    """
    result = copy.deepcopy(pod)
    spec = result.setdefault("spec", {})
    if spec.get("automountServiceAccountToken") is False:
        return result
    volumes = spec.get("volumes") or []
    existing = next(
        (
            v["name"]
            for v in volumes
            if str(v.get("name", "")).startswith(SERVICE_ACCOUNT_VOLUME_PREFIX)
        ),
        None,
    )
    volume_name = existing or SERVICE_ACCOUNT_VOLUME_PREFIX + "".join(
        rng.choice(NAME_SUFFIX_ALPHABET) for _ in range(NAME_SUFFIX_LENGTH)
    )
    mount = {"mountPath": DEFAULT_API_TOKEN_MOUNT_PATH, "name": volume_name, "readOnly": True}
    needs_volume = False
    for field in ("initContainers", "containers"):
        for container in spec.get(field) or []:
            mounts = container.get("volumeMounts") or []
            if any(m.get("mountPath") == DEFAULT_API_TOKEN_MOUNT_PATH for m in mounts):
                continue  # an existing mount at the default path prevents the token mount
            container["volumeMounts"] = [*mounts, dict(mount)]
            needs_volume = True
    if existing is None and needs_volume:
        spec["volumes"] = [*volumes, {"name": volume_name, "projected": token_volume_source()}]
    return sort_keys(result)


def token_volume_source() -> dict:
    """``TokenVolumeSource()``: the bound token, the cluster CA and the namespace."""
    return {
        "defaultMode": DEFAULT_VOLUME_MODE,  # set explicitly by the plugin (#104464)
        "sources": [
            {
                "serviceAccountToken": {
                    "expirationSeconds": TOKEN_EXPIRATION_SECONDS,
                    "path": "token",
                }
            },
            {
                "configMap": {
                    "items": [{"key": "ca.crt", "path": "ca.crt"}],
                    "name": ROOT_CA_CONFIG_MAP,
                }
            },
            {
                "downwardAPI": {
                    "items": [
                        {
                            "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"},
                            "path": "namespace",
                        }
                    ]
                }
            },
        ],
    }


def keep_service_account_token(new_spec: dict, old_spec: dict) -> dict:
    """What ``kubectl apply``'s strategic merge patch keeps on a Pod update: the admitted
    ``kube-api-access-…`` volume (merge key ``name``) and each container's token mount
    (merge key ``mountPath``), which the applied manifest does not mention. Admission
    itself only mutates on create. Returns a new spec with sorted keys."""
    result = copy.deepcopy(new_spec)
    old_volume = next(
        (
            v
            for v in old_spec.get("volumes") or []
            if str(v.get("name", "")).startswith(SERVICE_ACCOUNT_VOLUME_PREFIX)
        ),
        None,
    )
    if old_volume is None:
        return result
    volumes = result.get("volumes") or []
    if not any(v.get("name") == old_volume["name"] for v in volumes):
        result["volumes"] = [*volumes, copy.deepcopy(old_volume)]
    for field in ("initContainers", "containers"):
        old_by_name = {c.get("name"): c for c in old_spec.get(field) or []}
        for container in result.get(field) or []:
            old_mount = next(
                (
                    m
                    for m in (old_by_name.get(container.get("name")) or {}).get("volumeMounts")
                    or []
                    if m.get("mountPath") == DEFAULT_API_TOKEN_MOUNT_PATH
                ),
                None,
            )
            mounts = container.get("volumeMounts") or []
            if old_mount is not None and not any(
                m.get("mountPath") == DEFAULT_API_TOKEN_MOUNT_PATH for m in mounts
            ):
                container["volumeMounts"] = [*mounts, copy.deepcopy(old_mount)]
    return sort_keys(result)


def default_toleration_seconds(tolerations: list[dict]) -> list[dict]:
    """The DefaultTolerationSeconds admission plugin: add a 300 s NoExecute toleration for
    the not-ready and unreachable taints unless the pod already tolerates them (a
    toleration with that key or no key, and effect NoExecute or no effect)."""
    result = list(tolerations)
    for taint_key in (TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE):
        if not any(_tolerates_no_execute(t, taint_key) for t in tolerations):
            result.append(
                {
                    "effect": "NoExecute",
                    "key": taint_key,
                    "operator": "Exists",
                    "tolerationSeconds": DEFAULT_TOLERATION_SECONDS,
                }
            )
    return result


def _tolerates_no_execute(toleration: dict, taint_key: str) -> bool:
    key_matches = toleration.get("key", "") in (taint_key, "")
    return key_matches and toleration.get("effect", "") in ("NoExecute", "")


def default_image_pull_policy(image: str) -> str:
    """SetDefaults_Container: Always for the tag ``latest`` or no tag (and no digest)."""
    return "Always" if image_tag(image) == "latest" else "IfNotPresent"


def image_tag(image: str) -> str:
    """The tag as ``parsers.ParseImageName`` sees it: "latest" when neither tag nor digest."""
    name, _, digest = image.partition("@")
    last_component = name.rsplit("/", 1)[-1]
    if ":" in last_component:
        return last_component.rsplit(":", 1)[1]
    return "" if digest else "latest"


def set_defaults_container(container: dict) -> None:
    """SetDefaults_Container, SetDefaults_Pod (requests default to limits) and the
    defaults of its probes, ports, hooks and env field references, in place."""
    container.setdefault("imagePullPolicy", default_image_pull_policy(container.get("image", "")))
    for key, value in _CONTAINER_DEFAULTS.items():
        container.setdefault(key, copy.deepcopy(value))
    _default_resources(container["resources"])
    for port in container.get("ports") or []:
        port.setdefault("protocol", "TCP")
    for field in _PROBE_FIELDS:
        if field in container:
            for key, value in _PROBE_DEFAULTS.items():
                container[field].setdefault(key, value)
            _default_handler(container[field])
    lifecycle = container.get("lifecycle") or {}
    for hook in ("postStart", "preStop"):  # lifecycle.stopSignal is a string, not a handler
        if isinstance(lifecycle.get(hook), dict):
            _default_handler(lifecycle[hook])
    for env in container.get("env") or []:
        field_ref = (env.get("valueFrom") or {}).get("fieldRef")
        if field_ref is not None:
            field_ref.setdefault("apiVersion", "v1")


def _default_resources(resources: dict) -> None:
    """If limits are set but requests are not, requests default to limits; quantities are
    echoed in canonical form."""
    limits = resources.get("limits")
    if limits:
        requests = resources.setdefault("requests", {})
        for name, value in limits.items():
            requests.setdefault(name, value)
    for group in ("limits", "requests"):
        if resources.get(group):
            resources[group] = {k: _canonical(v) for k, v in resources[group].items()}


def _canonical(value: Any) -> Any:
    try:
        return canonical_quantity(value)
    except (ValueError, TypeError):
        return value  # invalid input is the manifest checker's job, not ours


def _default_handler(handler: dict) -> None:
    """SetDefaults_HTTPGetAction: path "/" and scheme HTTP."""
    http_get = handler.get("httpGet")
    if http_get is not None:
        http_get.setdefault("path", "/")
        http_get.setdefault("scheme", "HTTP")


def set_defaults_volume(volume: dict) -> None:
    """defaultMode 0644 (420) on configMap, secret, projected and downwardAPI volumes."""
    for source in ("configMap", "secret", "projected", "downwardAPI"):
        if isinstance(volume.get(source), dict):
            volume[source].setdefault("defaultMode", DEFAULT_VOLUME_MODE)


def sort_keys(value: Any) -> Any:
    """Mappings with their keys sorted, recursively, as kubectl prints API objects."""
    if isinstance(value, dict):
        return {key: sort_keys(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [sort_keys(item) for item in value]
    return value


def pod_qos_class(pod: dict) -> str:
    """``v1qos.GetPodQOS`` for cpu and memory: BestEffort, Guaranteed or Burstable.

    Call it on a defaulted pod (requests already defaulted to limits); zero quantities
    count as unset, as in the source.
    """
    spec = pod.get("spec") or {}
    containers = list(spec.get("initContainers") or []) + list(spec.get("containers") or [])
    any_set, guaranteed = False, True
    for container in containers:
        resources = container.get("resources") or {}
        requests = _nonzero_compute(resources.get("requests"))
        limits = _nonzero_compute(resources.get("limits"))
        any_set = any_set or bool(requests) or bool(limits)
        if set(limits) != {"cpu", "memory"} or requests != limits:
            guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def _nonzero_compute(resource_list: dict | None) -> dict[str, Any]:
    result = {}
    resource_list = resource_list or {}
    for name in ("cpu", "memory"):
        if name in resource_list:
            value = parse_quantity(resource_list[name])
            if value != 0:
                result[name] = value
    return result
