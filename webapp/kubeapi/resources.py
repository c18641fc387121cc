"""The resources the playground's API serves, as a 1.37 API server registers them.

Names, short names, categories and verbs are each registry's (`ShortNames()`,
`Categories()` in kubernetes/pkg/registry/<group>/<resource>/storage/storage.go); the
published discovery documents are api/discovery/aggregated_v2.json in kubernetes/kubernetes.
Only kinds the engine has are served (and namespaces, which the API server itself owns).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from webapp.kubeapi.common import DISCOVERY_MEDIA  # noqa: F401  (re-exported for callers)

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
READ_VERBS = ("get", "list", "watch")
STATUS_VERBS = ("get", "patch", "update")


@dataclass(frozen=True)
class Sub:
    name: str
    group: str
    version: str
    kind: str
    verbs: tuple[str, ...]


@dataclass(frozen=True)
class Resource:
    kind: str
    plural: str
    singular: str
    group: str
    version: str
    namespaced: bool = True
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ALL_VERBS
    subresources: tuple[Sub, ...] = field(default=())

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def api_version(self) -> str:
        return self.group_version

    @property
    def qualified(self) -> str:
        return f"{self.plural}.{self.group}" if self.group else self.plural

    def sub(self, name: str) -> Sub | None:
        return next((s for s in self.subresources if s.name == name), None)


def _status(group: str, version: str, kind: str) -> Sub:
    return Sub("status", group, version, kind, STATUS_VERBS)


def _scale() -> Sub:
    return Sub("scale", "autoscaling", "v1", "Scale", STATUS_VERBS)


RESOURCES: tuple[Resource, ...] = (
    Resource("Event", "events", "event", "", "v1", short_names=("ev",)),
    Resource("Namespace", "namespaces", "namespace", "", "v1", namespaced=False,
             short_names=("ns",), verbs=("create", "delete", "get", "list", "patch", "update", "watch"),
             subresources=(_status("", "v1", "Namespace"),)),
    Resource("Node", "nodes", "node", "", "v1", namespaced=False, short_names=("no",),
             subresources=(_status("", "v1", "Node"),)),
    Resource("PersistentVolumeClaim", "persistentvolumeclaims", "persistentvolumeclaim", "", "v1",
             short_names=("pvc",), subresources=(_status("", "v1", "PersistentVolumeClaim"),)),
    Resource("PersistentVolume", "persistentvolumes", "persistentvolume", "", "v1",
             namespaced=False, short_names=("pv",),
             subresources=(_status("", "v1", "PersistentVolume"),)),
    Resource("Pod", "pods", "pod", "", "v1", short_names=("po",), categories=("all",),
             subresources=(
                 Sub("eviction", "policy", "v1", "Eviction", ("create",)),
                 Sub("log", "", "v1", "Pod", ("get",)),
                 _status("", "v1", "Pod"),
             )),
    Resource("Service", "services", "service", "", "v1", short_names=("svc",),
             categories=("all",),
             verbs=("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"),
             subresources=(_status("", "v1", "Service"),)),
    Resource("Deployment", "deployments", "deployment", "apps", "v1", short_names=("deploy",),
             categories=("all",), subresources=(_scale(), _status("apps", "v1", "Deployment"))),
    Resource("ReplicaSet", "replicasets", "replicaset", "apps", "v1", short_names=("rs",),
             categories=("all",), subresources=(_scale(), _status("apps", "v1", "ReplicaSet"))),
    Resource("StatefulSet", "statefulsets", "statefulset", "apps", "v1", short_names=("sts",),
             categories=("all",), subresources=(_scale(), _status("apps", "v1", "StatefulSet"))),
    Resource("DaemonSet", "daemonsets", "daemonset", "apps", "v1", short_names=("ds",),
             categories=("all",), subresources=(_status("apps", "v1", "DaemonSet"),)),
    Resource("Job", "jobs", "job", "batch", "v1", categories=("all",),
             subresources=(_status("batch", "v1", "Job"),)),
    Resource("EndpointSlice", "endpointslices", "endpointslice", "discovery.k8s.io", "v1"),
    Resource("PodDisruptionBudget", "poddisruptionbudgets", "poddisruptionbudget", "policy", "v1",
             short_names=("pdb",), subresources=(_status("policy", "v1", "PodDisruptionBudget"),)),
    Resource("StorageClass", "storageclasses", "storageclass", "storage.k8s.io", "v1",
             namespaced=False, short_names=("sc",)),
    Resource("SelfSubjectAccessReview", "selfsubjectaccessreviews", "selfsubjectaccessreview",
             "authorization.k8s.io", "v1", namespaced=False, verbs=("create",)),
)  # fmt: skip

# Group order as the API server lists it (legacy core first, then by priority).
GROUP_ORDER = ("", "apps", "batch", "discovery.k8s.io", "policy", "storage.k8s.io",
               "authorization.k8s.io")  # fmt: skip

BY_PATH: dict[tuple[str, str, str], Resource] = {
    (r.group, r.version, r.plural): r for r in RESOURCES
}
BY_KIND: dict[str, Resource] = {r.kind: r for r in RESOURCES}


def group_versions() -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []
    for group in GROUP_ORDER:
        for r in RESOURCES:
            if r.group == group and (group, r.version) not in seen:
                seen.append((group, r.version))
    return seen


def resource(group: str, version: str, plural: str) -> Resource | None:
    return BY_PATH.get((group, version, plural))


# -- discovery documents --------------------------------------------------------------------


def _aggregated_resource(r: Resource) -> dict:
    item: dict = {
        "resource": r.plural,
        "responseKind": {"group": r.group, "version": r.version, "kind": r.kind},
        "scope": "Namespaced" if r.namespaced else "Cluster",
        "singularResource": r.singular,
        "verbs": list(r.verbs),
    }
    if r.short_names:
        item["shortNames"] = list(r.short_names)
    if r.categories:
        item["categories"] = list(r.categories)
    if r.subresources:
        item["subresources"] = [
            {"subresource": s.name,
             "responseKind": {"group": s.group, "version": s.version, "kind": s.kind},
             "verbs": list(s.verbs)}
            for s in r.subresources
        ]  # fmt: skip
    return item


def aggregated(core: bool) -> dict:
    """`APIGroupDiscoveryList` (apidiscovery.k8s.io/v2): core alone for /api, every other
    group for /apis (apiserver/pkg/endpoints/discovery/aggregated)."""
    items = []
    for group, version in group_versions():
        if (group == "") != core:
            continue
        resources = [_aggregated_resource(r) for r in RESOURCES
                     if r.group == group and r.version == version]  # fmt: skip
        items.append({
            "metadata": {"name": group, "creationTimestamp": None},
            "versions": [{"version": version, "resources": resources, "freshness": "Current"}],
        })  # fmt: skip
    return {"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2",
            "metadata": {}, "items": items}  # fmt: skip


def api_versions(server_address: str) -> dict:
    return {"kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0",
                                            "serverAddress": server_address}]}  # fmt: skip


def api_group(group: str) -> dict:
    version = next(v for g, v in group_versions() if g == group)
    gv = {"groupVersion": f"{group}/{version}", "version": version}
    return {"name": group, "versions": [gv], "preferredVersion": gv}


def api_group_list() -> dict:
    groups = [api_group(g) for g, _ in group_versions() if g]
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def api_resource_list(group: str, version: str) -> dict:
    """`APIResourceList` for one group-version (the legacy discovery `kubectl drain` reads
    for `pods/eviction`)."""
    out = []
    for r in RESOURCES:
        if r.group != group or r.version != version:
            continue
        item = {"name": r.plural, "singularName": r.singular, "namespaced": r.namespaced,
                "kind": r.kind, "verbs": list(r.verbs)}  # fmt: skip
        if r.short_names:
            item["shortNames"] = list(r.short_names)
        if r.categories:
            item["categories"] = list(r.categories)
        out.append(item)
        for s in r.subresources:
            sub = {"name": f"{r.plural}/{s.name}", "singularName": "", "namespaced": r.namespaced,
                   "kind": s.kind, "verbs": list(s.verbs)}  # fmt: skip
            if (s.group, s.version) != (r.group, r.version):
                sub["group"], sub["version"] = s.group, s.version
            out.append(sub)
    gv = f"{group}/{version}" if group else version
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": out}


# `kubectl version` (apimachinery/pkg/version/types.go Info): the release the schema targets
# (gitVersion, which kubectl parses for the skew warning, and the 7-character commit the
# kubectl 1.37.1 binary reports); the build fields describe the playground (its epoch).
VERSION_INFO = {
    "major": "1",
    "minor": "37",
    "emulationMajor": "1",
    "emulationMinor": "37",
    "minCompatibilityMajor": "1",
    "minCompatibilityMinor": "36",
    "gitVersion": "v1.37.1",
    "gitCommit": "f78e722",
    "gitTreeState": "clean",
    "buildDate": "2026-01-01T00:00:00Z",
    "goVersion": "python",
    "compiler": "gc",
    "platform": "linux/amd64",
}
