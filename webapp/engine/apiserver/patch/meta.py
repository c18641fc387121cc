"""Patch metadata of the kinds the playground has: the ``patchStrategy`` and
``patchMergeKey`` struct tags of k8s.io/api (the OpenAPI ``x-kubernetes-patch-strategy``
and ``x-kubernetes-patch-merge-key``). A field without a tag is atomic for lists (replaced
whole) and merged key by key for maps."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Field:
    """One field's tags: ``strategies`` ("merge", "retainKeys", "replace"), the merge key
    of a list of maps, and the metadata of the value (or of the list's items)."""

    strategies: tuple[str, ...] = ()
    merge_key: str = ""
    elem: Callable[[], Meta] | None = None

    @property
    def retain_keys(self) -> bool:
        return "retainKeys" in self.strategies

    @property
    def strategy(self) -> str:
        """The strategy besides retainKeys (``extractRetainKeysPatchStrategy``)."""
        others = [s for s in self.strategies if s != "retainKeys"]
        return others[0] if others else ""

    def meta(self) -> Meta:
        return self.elem() if self.elem is not None else ANY


@dataclass(frozen=True)
class Meta:
    """A struct's fields by JSON name; a name not listed has no tags."""

    fields: dict[str, Field] = field(default_factory=dict)

    def lookup(self, key: str) -> Field:
        return self.fields.get(key, _NONE)


_NONE = Field()
ANY = Meta()


def _merge(key: str = "", elem: Callable[[], Meta] | None = None, *more: str) -> Field:
    return Field(("merge", *more), key, elem)


def _struct(elem: Callable[[], Meta]) -> Field:
    return Field((), "", elem)


OBJECT_META = Meta(
    {
        "ownerReferences": _merge("uid"),
        "finalizers": _merge(),
    }
)
CONTAINER = Meta(
    {
        "ports": _merge("containerPort"),
        "env": _merge("name"),
        "volumeMounts": _merge("mountPath"),
        "volumeDevices": _merge("devicePath"),
    }
)
VOLUME = Meta()
POD_SPEC = Meta(
    {
        "volumes": _merge("name", lambda: VOLUME, "retainKeys"),
        "initContainers": _merge("name", lambda: CONTAINER),
        "containers": _merge("name", lambda: CONTAINER),
        "ephemeralContainers": _merge("name", lambda: CONTAINER),
        "imagePullSecrets": _merge("name"),
        "hostAliases": _merge("ip"),
        "topologySpreadConstraints": _merge("topologyKey"),
        "schedulingGates": _merge("name"),
        "resourceClaims": _merge("name", None, "retainKeys"),
    }
)
_CONDITIONS = _merge("type")
POD_STATUS = Meta(
    {
        "conditions": _CONDITIONS,
        "podIPs": _merge("ip"),
        "hostIPs": _merge("ip"),
    }
)
POD_TEMPLATE_SPEC = Meta(
    {"metadata": _struct(lambda: OBJECT_META), "spec": _struct(lambda: POD_SPEC)}
)
_STATUS_WITH_CONDITIONS = Meta({"conditions": _CONDITIONS})


def _object(spec: Meta | None = None, status: Meta | None = None) -> Meta:
    fields = {"metadata": _struct(lambda: OBJECT_META)}
    if spec is not None:
        fields["spec"] = _struct(lambda: spec)
    if status is not None:
        fields["status"] = _struct(lambda: status)
    return Meta(fields)


_TEMPLATE = _struct(lambda: POD_TEMPLATE_SPEC)
DEPLOYMENT_SPEC = Meta({"template": _TEMPLATE, "strategy": Field(("retainKeys",))})
WORKLOAD_SPEC = Meta({"template": _TEMPLATE})
SERVICE_SPEC = Meta({"ports": _merge("port")})
NODE_SPEC = Meta({"podCIDRs": _merge()})
NODE_STATUS = Meta({"conditions": _CONDITIONS, "addresses": _merge("type")})

BY_KIND: dict[str, Meta] = {
    "Pod": _object(POD_SPEC, POD_STATUS),
    "Deployment": _object(DEPLOYMENT_SPEC, _STATUS_WITH_CONDITIONS),
    "ReplicaSet": _object(WORKLOAD_SPEC, _STATUS_WITH_CONDITIONS),
    "StatefulSet": _object(WORKLOAD_SPEC, _STATUS_WITH_CONDITIONS),
    "DaemonSet": _object(WORKLOAD_SPEC, _STATUS_WITH_CONDITIONS),
    "Job": _object(WORKLOAD_SPEC, _STATUS_WITH_CONDITIONS),
    "Service": _object(SERVICE_SPEC, _STATUS_WITH_CONDITIONS),
    "Node": _object(NODE_SPEC, NODE_STATUS),
    "PodDisruptionBudget": _object(Meta(), _STATUS_WITH_CONDITIONS),
    "PersistentVolumeClaim": _object(Meta(), _STATUS_WITH_CONDITIONS),
    "Namespace": _object(Meta(), _STATUS_WITH_CONDITIONS),
}


def for_kind(kind: str) -> Meta:
    """The patch metadata of an object of ``kind`` (only ``metadata`` for the kinds whose
    other fields carry no tags: ConfigMap, Secret, Event, EndpointSlice, StorageClass)."""
    return BY_KIND.get(kind) or _object()
