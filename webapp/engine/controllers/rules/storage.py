"""PersistentVolumeClaims of StatefulSets and their dynamic provisioning, as pure functions.

Sources: ``pkg/controller/statefulset/stateful_set_utils.go`` (getPersistentVolumeClaimName,
getPersistentVolumeClaims, updateStorage, getPersistentVolumeClaimRetentionPolicy,
updateClaimOwnerRefForSetAndPod), ``stateful_pod_control.go`` (recordClaimEvent),
``pkg/controller/volume/persistentvolume/pv_controller.go`` (syncUnboundClaim,
emitEventForUnboundDelayBindingClaim, provisionClaimOperation, provisionClaimOperationExternal),
``pkg/volume/util/storageclass.go`` and the DefaultStorageClass admission plugin, the
scheduler's VolumeBinding plugin (``pkg/scheduler/framework/plugins/volumebinding``), and
sig-storage-lib-external-provisioner's events as rancher's local-path-provisioner (kind's
default class) writes them.

The cluster is a kind cluster: one StorageClass, ``standard`` (the default class,
provisioner ``rancher.io/local-path``, reclaimPolicy Delete, volumeBindingMode
WaitForFirstConsumer). Any other class name is not found.
"""

from __future__ import annotations

import copy
from typing import Any

from webapp.engine.controllers.rules.objects import metadata as _metadata
from webapp.engine.controllers.rules.objects import spec as _spec
from webapp.engine.controllers.rules.timestamps import timestamp

Obj = dict[str, Any]

DEFAULT_CLASS = "standard"
PROVISIONER = "rancher.io/local-path"
DEFAULT_STORAGE_CLASS: Obj = {
    "apiVersion": "storage.k8s.io/v1",
    "kind": "StorageClass",
    "metadata": {
        "name": DEFAULT_CLASS,
        "annotations": {"storageclass.kubernetes.io/is-default-class": "true"},
    },
    "provisioner": PROVISIONER,
    "reclaimPolicy": "Delete",
    "volumeBindingMode": "WaitForFirstConsumer",
}
PVC_PROTECTION = "kubernetes.io/pvc-protection"
PV_PROTECTION = "kubernetes.io/pv-protection"
SELECTED_NODE = "volume.kubernetes.io/selected-node"
# local-path-provisioner's helper Pod creates the directory: about 3 s on kind
PROVISION_MS = 3_000
PV_CONTROLLER = "persistentvolume-controller"

# pv_controller.go / VolumeBinding texts
WAIT_FOR_FIRST_CONSUMER = "waiting for first consumer to be created before binding"
NO_CLASS_NO_VOLUMES = "no persistent volumes available for this claim and no storage class is set"
UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
VOLUME_NODE_CONFLICT = "node(s) had volume node affinity conflict"


def claim_name(template: Obj, set_name: str, ordinal: int) -> str:
    """``getPersistentVolumeClaimName``: ``<template>-<set>-<ordinal>`` (www-web-0)."""
    return f"{_metadata(template).get('name', '')}-{set_name}-{ordinal}"


def retention_policy(sts: Obj) -> tuple[str, str]:
    """``getPersistentVolumeClaimRetentionPolicy``: (whenDeleted, whenScaled), Retain by default."""
    policy = _spec(sts).get("persistentVolumeClaimRetentionPolicy") or {}
    return policy.get("whenDeleted") or "Retain", policy.get("whenScaled") or "Retain"


def _owner_ref(kind: str, api_version: str, obj: Obj) -> Obj:
    """``setOwnerRef``: apiVersion, kind, name and uid (neither controller nor blocking)."""
    return {"apiVersion": api_version, "kind": kind, "name": _metadata(obj).get("name", ""),
            "uid": _metadata(obj).get("uid", "")}  # fmt: skip


def claim_owner_references(sts: Obj, pod: Obj | None, scaled_down: bool) -> list[Obj]:
    """``updateClaimOwnerRefForSetAndPod``: the claim's owners under the retention policy.

    whenDeleted Delete: the StatefulSet owns it (deleting the set deletes the claim);
    whenScaled Delete: a claim of a Pod beyond the replicas is owned by that Pod (the
    garbage collector deletes it with the Pod). Retain/Retain: no owner.
    """
    when_deleted, when_scaled = retention_policy(sts)
    refs = []
    if when_scaled == "Delete" and scaled_down and pod is not None:
        refs.append(_owner_ref("Pod", "v1", pod))
    elif when_deleted == "Delete":
        refs.append(_owner_ref("StatefulSet", "apps/v1", sts))
    return refs


def new_claim(sts: Obj, template: Obj, ordinal: int, uid: str, now: float) -> Obj:
    """``getPersistentVolumeClaims`` for one template, then the API server's create: the
    template's spec and labels plus the set's ``matchLabels``, the DefaultStorageClass
    admission's class when none is named, phase Pending, the pvc-protection finalizer."""
    claim = copy.deepcopy(template)
    metadata = claim.setdefault("metadata", {})
    set_name = _metadata(sts).get("name", "")
    match_labels = ((_spec(sts).get("selector") or {}).get("matchLabels")) or {}
    labels = dict(metadata.get("labels") or {})
    labels.update(match_labels)
    claim_metadata = {
        "name": claim_name(template, set_name, ordinal),
        "namespace": _metadata(sts).get("namespace", "default"),
        "uid": uid,
        "creationTimestamp": timestamp(now),
        "labels": labels,
        "finalizers": [PVC_PROTECTION],
    }
    if metadata.get("annotations"):
        claim_metadata["annotations"] = dict(metadata["annotations"])
    refs = claim_owner_references(sts, None, scaled_down=False)
    if refs:
        claim_metadata["ownerReferences"] = refs
    spec = copy.deepcopy(claim.get("spec") or {})
    if spec.get("storageClassName") is None:
        spec["storageClassName"] = DEFAULT_CLASS  # DefaultStorageClass admission
    spec.setdefault("volumeMode", "Filesystem")
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": claim_metadata,
        "spec": spec,
        "status": {"phase": "Pending"},
    }


def update_storage(pod: Obj, sts: Obj) -> None:
    """``updateStorage``: each claim template becomes the Pod's volume of that name (any
    volume of the template with that name is replaced), in the templates' order after the
    others."""
    ordinal = int(_metadata(pod)["name"].rsplit("-", 1)[1])
    templates = _spec(sts).get("volumeClaimTemplates") or []
    if not templates:
        return
    names = {_metadata(t).get("name", "") for t in templates}
    spec = pod.setdefault("spec", {})
    volumes = [v for v in spec.get("volumes") or [] if v.get("name") not in names]
    for template in templates:
        volumes.append({
            "name": _metadata(template).get("name", ""),
            "persistentVolumeClaim": {
                "claimName": claim_name(template, _metadata(sts).get("name", ""), ordinal)
            },
        })  # fmt: skip
    spec["volumes"] = volumes


def claim_event(sts: Obj, pod_name: str, claim: str) -> tuple[str, str, str]:
    """``recordClaimEvent``: ``create Claim www-web-0 Pod web-0 in StatefulSet web success``."""
    set_name = _metadata(sts).get("name", "")
    return ("Normal", "SuccessfulCreate",
            f"create Claim {claim} Pod {pod_name} in StatefulSet {set_name} success")  # fmt: skip


def claim_class(claim: Obj) -> str:
    """``GetPersistentVolumeClaimClass`` (spec.storageClassName; "" for none)."""
    return _spec(claim).get("storageClassName") or ""


def storage_class(name: str) -> Obj | None:
    """The cluster's StorageClass ``name``: kind's ``standard``, no other."""
    return copy.deepcopy(DEFAULT_STORAGE_CLASS) if name == DEFAULT_CLASS else None


def is_delay_binding_mode(claim: Obj) -> bool:
    """``IsDelayBindingMode``: the claim's class binds WaitForFirstConsumer (a class that is
    not found, or no class, binds immediately)."""
    cls = storage_class(claim_class(claim))
    return cls is not None and cls.get("volumeBindingMode") == "WaitForFirstConsumer"


def unbound_claim_event(claim: Obj) -> tuple[str, str, str]:
    """``syncUnboundClaim`` with no volume to bind: what the PV controller records first."""
    name = claim_class(claim)
    if name == "":
        return "Normal", "FailedBinding", NO_CLASS_NO_VOLUMES
    if storage_class(name) is None:  # provisionClaimOperation: findProvisionablePlugin
        return "Warning", "ProvisioningFailed", f'storageclass.storage.k8s.io "{name}" not found'
    return "Normal", "WaitForFirstConsumer", WAIT_FOR_FIRST_CONSUMER


def external_provisioning_message(provisioner: str = PROVISIONER) -> str:
    """``provisionClaimOperationExternal``'s ExternalProvisioning event."""
    return (
        f"Waiting for a volume to be created either by the external provisioner '{provisioner}' "
        "or manually by the system administrator. If volume creation is delayed, please "
        "verify that the provisioner is running and correctly registered."
    )


def provisioning_message(claim: Obj) -> str:
    metadata = _metadata(claim)
    return (
        "External provisioner is provisioning volume for claim "
        f'"{metadata.get("namespace", "default")}/{metadata.get("name", "")}"'
    )


def volume_name(claim: Obj) -> str:
    """The provisioner names the volume ``pvc-<claim uid>``."""
    return f"pvc-{_metadata(claim).get('uid', '')}"


def provisioned_volume(claim: Obj, node: str, now: float) -> Obj:
    """local-path-provisioner's PersistentVolume: a hostPath directory on ``node`` with
    node affinity to it, the claim's size and access modes, the class's reclaim policy."""
    metadata = _metadata(claim)
    spec = _spec(claim)
    name = volume_name(claim)
    namespace = metadata.get("namespace", "default")
    storage = ((spec.get("resources") or {}).get("requests") or {}).get("storage", "")
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {
            "name": name,
            "creationTimestamp": timestamp(now),
            "annotations": {
                "local.path.provisioner/selected-node": node,
                "pv.kubernetes.io/provisioned-by": PROVISIONER,
            },
            "finalizers": [PV_PROTECTION],
        },
        "spec": {
            "accessModes": list(spec.get("accessModes") or []),
            "capacity": {"storage": storage},
            "claimRef": {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "name": metadata.get("name", ""),
                "namespace": namespace,
                "uid": metadata.get("uid", ""),
            },
            "hostPath": {
                "path": f"/var/local-path-provisioner/{name}_{namespace}_{metadata.get('name', '')}",
                "type": "DirectoryOrCreate",
            },
            "nodeAffinity": {
                "required": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {
                                    "key": "kubernetes.io/hostname",
                                    "operator": "In",
                                    "values": [node],
                                }
                            ]
                        }
                    ]
                }
            },
            "persistentVolumeReclaimPolicy": DEFAULT_STORAGE_CLASS["reclaimPolicy"],
            "storageClassName": claim_class(claim),
            "volumeMode": spec.get("volumeMode", "Filesystem"),
        },
        "status": {"phase": "Bound", "lastPhaseTransitionTime": timestamp(now)},
    }


def bind_claim(claim: Obj, volume: Obj, node: str) -> None:
    """``bindClaimToVolume`` + ``updateClaimStatus``: Bound, with the volume's size."""
    metadata = _metadata(claim)
    annotations = metadata.setdefault("annotations", {})
    annotations.update({
        "pv.kubernetes.io/bind-completed": "yes",
        "pv.kubernetes.io/bound-by-controller": "yes",
        "volume.beta.kubernetes.io/storage-provisioner": PROVISIONER,
        SELECTED_NODE: node,
        "volume.kubernetes.io/storage-provisioner": PROVISIONER,
    })  # fmt: skip
    claim["spec"]["volumeName"] = _metadata(volume)["name"]
    claim["status"] = {
        "phase": "Bound",
        "accessModes": list(_spec(volume).get("accessModes") or []),
        "capacity": dict(_spec(volume).get("capacity") or {}),
    }


def volume_node(volume: Obj) -> str | None:
    """The node a local volume's required node affinity names."""
    terms = ((_spec(volume).get("nodeAffinity") or {}).get("required") or {}).get(
        "nodeSelectorTerms"
    ) or []
    for term in terms:
        for expression in term.get("matchExpressions") or []:
            if expression.get("key") == "kubernetes.io/hostname" and expression.get("values"):
                return expression["values"][0]
    return None


def pod_claim_names(pod: Obj) -> list[str]:
    """The claims a Pod's volumes name, in order."""
    return [
        v["persistentVolumeClaim"]["claimName"]
        for v in _spec(pod).get("volumes") or []
        if isinstance(v.get("persistentVolumeClaim"), dict)
        and v["persistentVolumeClaim"].get("claimName")
    ]


def access_modes_string(modes: list[str]) -> str:
    """``GetAccessModesAsString``: RWO, ROX, RWX, RWOP in that order, comma-separated."""
    short = {"ReadWriteOnce": "RWO", "ReadOnlyMany": "ROX", "ReadWriteMany": "RWX",
             "ReadWriteOncePod": "RWOP"}  # fmt: skip
    return ",".join(short[m] for m in short if m in set(modes or []))
