"""`kubectl describe pod`, the Volumes section: describeVolumes for the common sources."""

from __future__ import annotations

from typing import Any

from webapp.kubectl.prefix_writer import LEVEL_0, LEVEL_1, LEVEL_2, LEVEL_3, PrefixWriter, go_bool
from webapp.kubectl.quantity import canonical_quantity, quantity_value


def _empty_dir(w: PrefixWriter, source: dict[str, Any]) -> None:
    size = source.get("sizeLimit")
    size_limit = canonical_quantity(size) if size and quantity_value(size) > 0 else "<unset>"
    w.write(
        LEVEL_2,
        "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n"
        f"    Medium:\t{source.get('medium', '')}\n"
        f"    SizeLimit:\t{size_limit}\n",
    )


def _host_path(w: PrefixWriter, source: dict[str, Any]) -> None:
    w.write(
        LEVEL_2,
        "Type:\tHostPath (bare host directory volume)\n"
        f"    Path:\t{source.get('path', '')}\n"
        f"    HostPathType:\t{source.get('type') or '<none>'}\n",
    )


def _secret(w: PrefixWriter, source: dict[str, Any]) -> None:
    w.write(
        LEVEL_2,
        "Type:\tSecret (a volume populated by a Secret)\n"
        f"    SecretName:\t{source.get('secretName', '')}\n"
        f"    Optional:\t{go_bool(bool(source.get('optional')))}\n",
    )


def _config_map(w: PrefixWriter, source: dict[str, Any]) -> None:
    w.write(
        LEVEL_2,
        "Type:\tConfigMap (a volume populated by a ConfigMap)\n"
        f"    Name:\t{source.get('name', '')}\n"
        f"    Optional:\t{go_bool(bool(source.get('optional')))}\n",
    )


def _persistent_volume_claim(w: PrefixWriter, source: dict[str, Any]) -> None:
    w.write(
        LEVEL_2,
        "Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same "
        "namespace)\n"
        f"    ClaimName:\t{source.get('claimName', '')}\n"
        f"    ReadOnly:\t{go_bool(bool(source.get('readOnly')))}\n",
    )


def _downward_api(w: PrefixWriter, source: dict[str, Any]) -> None:
    w.write(LEVEL_2, "Type:\tDownwardAPI (a volume populated by information about the pod)\n")
    w.write(LEVEL_2, "Items:\n")
    for item in source.get("items") or []:
        if item.get("fieldRef"):
            w.write(LEVEL_3, f"{item['fieldRef'].get('fieldPath', '')} -> {item.get('path', '')}\n")
        if item.get("resourceFieldRef"):
            resource = item["resourceFieldRef"].get("resource", "")
            w.write(LEVEL_3, f"{resource} -> {item.get('path', '')}\n")


def _projected(w: PrefixWriter, source: dict[str, Any]) -> None:
    w.write(
        LEVEL_2, "Type:\tProjected (a volume that contains injected data from multiple sources)\n"
    )
    for item in source.get("sources") or []:
        if item.get("secret") is not None:
            secret = item["secret"]
            w.write(LEVEL_2, f"SecretName:\t{secret.get('name', '')}\n")
            w.write(LEVEL_2, f"Optional:\t{go_bool(bool(secret.get('optional')))}\n")
        elif item.get("downwardAPI") is not None:
            w.write(LEVEL_2, "DownwardAPI:\ttrue\n")
        elif item.get("configMap") is not None:
            config_map = item["configMap"]
            w.write(LEVEL_2, f"ConfigMapName:\t{config_map.get('name', '')}\n")
            w.write(LEVEL_2, f"Optional:\t{go_bool(bool(config_map.get('optional')))}\n")
        elif item.get("serviceAccountToken") is not None:
            seconds = item["serviceAccountToken"].get("expirationSeconds", 3600)
            w.write(LEVEL_2, f"TokenExpirationSeconds:\t{seconds}\n")


_SOURCES = {
    "hostPath": _host_path,
    "emptyDir": _empty_dir,
    "secret": _secret,
    "configMap": _config_map,
    "persistentVolumeClaim": _persistent_volume_claim,
    "downwardAPI": _downward_api,
    "projected": _projected,
}


def describe_volumes(w: PrefixWriter, volumes: list[dict[str, Any]]) -> None:
    """describeVolumes: one block per volume; `<unknown>` for sources not described here."""
    if not volumes:
        w.write(LEVEL_0, "Volumes:\t<none>\n")
        return
    w.write(LEVEL_0, "Volumes:\n")
    for volume in volumes:
        w.write(LEVEL_1, f"{volume.get('name', '')}:\n")
        field = next((f for f in _SOURCES if volume.get(f) is not None), None)
        if field is None:
            w.write(LEVEL_1, "<unknown>\n")
        else:
            _SOURCES[field](w, volume[field])
