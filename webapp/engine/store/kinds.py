"""The kinds the store holds, as the API server registers them: resource name, API group
and version, whether namespaced, whether ``metadata.generation`` moves with the spec, and
whether the object has a ``status`` subresource (a write of the object itself leaves the
status alone, a write of ``status`` leaves everything else alone)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    kind: str
    resource: str  # the plural, lower case: "pods"
    group: str  # "" for the core group
    version: str
    namespaced: bool = True
    generation: bool = False  # metadata.generation is bumped on each spec change
    status: bool = True  # has a status subresource
    graceful: bool = False  # deletion waits out a grace period (Pods)

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def qualified(self) -> str:
        """``GroupResource.String()``: ``pods``, ``deployments.apps``."""
        return f"{self.resource}.{self.group}" if self.group else self.resource


KINDS: dict[str, Kind] = {
    k.kind: k
    for k in (
        Kind("Pod", "pods", "", "v1", graceful=True),
        Kind("Deployment", "deployments", "apps", "v1", generation=True),
        Kind("ReplicaSet", "replicasets", "apps", "v1", generation=True),
        Kind("StatefulSet", "statefulsets", "apps", "v1", generation=True),
        Kind("DaemonSet", "daemonsets", "apps", "v1", generation=True),
        Kind("ControllerRevision", "controllerrevisions", "apps", "v1", status=False),
        Kind("Job", "jobs", "batch", "v1", generation=True),
        Kind("Service", "services", "", "v1"),
        Kind("EndpointSlice", "endpointslices", "discovery.k8s.io", "v1", status=False),
        Kind("Event", "events", "", "v1", status=False),
        Kind("Node", "nodes", "", "v1", namespaced=False),
        Kind("ConfigMap", "configmaps", "", "v1", status=False),
        Kind("Secret", "secrets", "", "v1", status=False),
        Kind("PodDisruptionBudget", "poddisruptionbudgets", "policy", "v1", generation=True),
        Kind("PersistentVolumeClaim", "persistentvolumeclaims", "", "v1"),
        Kind("PersistentVolume", "persistentvolumes", "", "v1", namespaced=False),
        Kind("StorageClass", "storageclasses", "storage.k8s.io", "v1", namespaced=False,
             status=False),
        Kind("Namespace", "namespaces", "", "v1", namespaced=False),
    )
}  # fmt: skip


def kind_of(kind: str) -> Kind:
    """The registration of ``kind``; ``KeyError`` for a kind the store does not hold."""
    return KINDS[kind]
