"""ConfigMap and Secret references a container needs before it can be created or mounted.

Env: ``kubelet_pods.go`` makeEnvironmentVariables (``valueFrom.configMapKeyRef`` /
``secretKeyRef``, ``envFrom``); a missing object or key gives CreateContainerConfigError
with the kubelet's message, optional references are skipped. Volumes: the volume manager's
``MountVolume.SetUp failed`` (best knowledge of the exact wording).
"""

from __future__ import annotations

from webapp.engine.apiserver.defaults import ROOT_CA_CONFIG_MAP

# ConfigMaps every namespace has without the scenario listing them: the root-ca-cert-publisher
# controller keeps ``kube-root-ca.crt`` (key ``ca.crt``) in each namespace; the ServiceAccount
# admission's projected volume reads it.
IMPLICIT_CONFIG_MAPS = {
    ROOT_CA_CONFIG_MAP: {
        "metadata": {"name": ROOT_CA_CONFIG_MAP},
        "data": {"ca.crt": "<cluster CA>"},
    }
}


def _lookup(kind: str, name: str, key: str | None, objects: dict, namespace: str) -> str | None:
    """The kubelet's error for one reference, or None when it resolves."""
    obj = objects.get(name)
    if obj is None and kind == "ConfigMap":
        obj = IMPLICIT_CONFIG_MAPS.get(name)
    label = "configmap" if kind == "ConfigMap" else "secret"
    if obj is None:
        return f'{label} "{name}" not found'
    if key is not None:
        data = dict(obj.get("data") or {})
        data.update(obj.get("binaryData") or {})
        data.update(obj.get("stringData") or {})
        if key not in data:
            return f"couldn't find key {key} in {kind} {namespace}/{name}"
    return None


def container_config_error(
    container: dict, config_maps: dict, secrets: dict, namespace: str = "default"
) -> str | None:
    """``generateContainerConfig``'s error for this container's env, or None."""
    for env_from in container.get("envFrom") or []:
        for kind, field, objects in (
            ("ConfigMap", "configMapRef", config_maps),
            ("Secret", "secretRef", secrets),
        ):
            ref = env_from.get(field)
            if ref is None or ref.get("optional"):
                continue
            error = _lookup(kind, ref.get("name", ""), None, objects, namespace)
            if error:
                return error
    for env in container.get("env") or []:
        source = env.get("valueFrom") or {}
        for kind, field, objects in (
            ("ConfigMap", "configMapKeyRef", config_maps),
            ("Secret", "secretKeyRef", secrets),
        ):
            ref = source.get(field)
            if ref is None:
                continue
            error = _lookup(kind, ref.get("name", ""), ref.get("key"), objects, namespace)
            if error and not ref.get("optional"):
                return error
    return None


def volume_mount_error(
    volume: dict, config_maps: dict, secrets: dict, namespace: str = "default"
) -> str | None:
    """``MountVolume.SetUp failed for volume "v" : configmap "x" not found``, or None."""
    for kind, field, name_field, objects in (
        ("ConfigMap", "configMap", "name", config_maps),
        ("Secret", "secret", "secretName", secrets),
    ):
        source = volume.get(field)
        if source is None or source.get("optional"):
            continue
        error = _lookup(kind, source.get(name_field, ""), None, objects, namespace)
        if error is None:
            for item in source.get("items") or []:
                error = _lookup(
                    kind, source.get(name_field, ""), item.get("key"), objects, namespace
                )
                if error:
                    break
        if error:
            return f'MountVolume.SetUp failed for volume "{volume.get("name", "")}" : {error}'
    return None


def pod_volume_errors(pod_spec: dict, config_maps: dict, secrets: dict) -> list[str]:
    errors = []
    for volume in pod_spec.get("volumes") or []:
        error = volume_mount_error(volume, config_maps, secrets)
        if error:
            errors.append(error)
    return errors
