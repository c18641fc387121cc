"""The session's objects as the API serves them: read from the engine through one code path
(its public face: `objects(kind)`, `pod()`, `events()`, `nodes()`), versioned, watched.

The engine writes its objects at virtual times on its fixed epoch (engine/core/timefmt.py),
so creationTimestamp and every other time kubectl shows (AGE) match the page. The engine
does not give every object a resourceVersion, so the API keeps, per session, the last
version of each object it served (`ApiView`): a change of an object's content takes the
next resourceVersion of one counter (as etcd's revision does), and a bounded history of
those changes serves watches from a resourceVersion (older than the history: 410 Expired,
as the watch cache answers).
"""

from __future__ import annotations

import copy
import hashlib
import json
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from webapp.engine.core.timefmt import EPOCH
from webapp.engine.store import errors as api_errors
from webapp.kubeapi.common import WATCH_HISTORY
from webapp.sessions.budget import charged, slice_stop

# The namespaces every cluster has (the API server and kube-controller-manager make them).
SYSTEM_NAMESPACES = ("default", "kube-node-lease", "kube-public", "kube-system")
FIRST_RESOURCE_VERSION = 1000
NODE_INFO_FIELDS = ("architecture", "bootID", "containerRuntimeVersion", "kernelVersion",
                    "kubeProxyVersion", "kubeletVersion", "machineID", "operatingSystem",
                    "osImage", "systemUUID")  # fmt: skip
EPOCH_TEXT = EPOCH.strftime("%Y-%m-%dT%H:%M:%SZ")
# The uid the API server gives an object the engine made without one (a Pod scenario's
# Service): fixed by kind, namespace and name, so every sync gives it the same one.
_UID_SPACE = uuid.UUID("9b1f3c62-5a43-4d7e-9c1e-6f0d2a8b7e15")


def _namespace(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": name,
            "creationTimestamp": EPOCH_TEXT,
            "labels": {"kubernetes.io/metadata.name": name},
        },
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }


def engine_objects(sim: Any, kind: str) -> list[dict]:
    """Every object of `kind` the engine holds, read through its public face only (the same
    for every engine: what it does not offer it has none of)."""
    if kind == "Namespace":
        names = set(SYSTEM_NAMESPACES)
        for other in ("Pod", "Deployment", "Service"):
            for obj in engine_objects(sim, other):
                names.add((obj.get("metadata") or {}).get("namespace") or "default")
        return [_namespace(n) for n in sorted(names)]
    objects = getattr(sim, "objects", None)
    if callable(objects):
        return list(objects(kind))
    if kind == "Pod":
        pod = sim.pod()
        return [] if pod is None else [pod]
    if kind == "Event":
        return list(sim.events())
    if kind == "Node":
        return list(sim.nodes())
    if kind == "EndpointSlice":
        return list(sim.endpoint_slices())
    if kind == "Service":
        return list((getattr(sim, "services", None) or {}).values())
    return []


def _key(obj: dict) -> tuple[str, str]:
    metadata = obj.get("metadata") or {}
    return (metadata.get("namespace") or "", metadata.get("name") or "")


def _fingerprint(obj: dict) -> str:
    metadata = obj.get("metadata") or {}
    if "resourceVersion" in metadata:
        obj = {**obj, "metadata": {k: v for k, v in metadata.items() if k != "resourceVersion"}}
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


@dataclass
class Change:
    rv: int
    type: str  # ADDED | MODIFIED | DELETED
    kind: str
    obj: dict


@dataclass
class KindState:
    objects: dict[tuple[str, str], tuple[str, dict]] = field(default_factory=dict)


class ApiView:
    """What the API has served of one session: each kind's objects at their last version,
    one resourceVersion counter, the recent changes. Used under the session's lock."""

    def __init__(self) -> None:
        self.rv = FIRST_RESOURCE_VERSION
        self.kinds: dict[str, KindState] = {}
        self.history: deque[Change] = deque(maxlen=WATCH_HISTORY)
        self.compacted = FIRST_RESOURCE_VERSION  # changes at or before this one are gone
        # (wall, virtual): how the API paces a session no page paces (see `bring_to_now`)
        self.anchor: tuple[float, float] | None = None

    def _record(self, change: Change) -> None:
        if len(self.history) == self.history.maxlen:
            self.compacted = self.history[0].rv
        self.history.append(change)

    def sync(self, sim: Any, kind: str) -> KindState:
        """Bring `kind` up to the engine: each new or changed object takes a new version."""
        state = self.kinds.setdefault(kind, KindState())
        seen: set[tuple[str, str]] = set()
        current = state.objects
        for obj in engine_objects(sim, kind):
            key = _key(obj)
            if key in seen:
                continue
            seen.add(key)
            print_ = _fingerprint(obj)
            old = current.get(key)
            if old is not None and old[0] == print_:
                continue
            obj = copy.deepcopy(obj)
            # An object the engine made without a creation time was there from the start;
            # every object the API server serves has a uid, and a namespaced one its namespace.
            meta = obj.setdefault("metadata", {})
            meta.setdefault("creationTimestamp", EPOCH_TEXT)
            if kind not in CLUSTER_SCOPED:
                meta.setdefault("namespace", "default")
            if not meta.get("uid"):
                meta["uid"] = str(
                    uuid.uuid5(
                        _UID_SPACE, f"{kind}/{meta.get('namespace', '')}/{meta.get('name', '')}"
                    )
                )
            if kind == "Service":
                _allocate_cluster_ip(obj)
            elif kind == "Node":
                # NodeSystemInfo's fields are all required (core/v1 types.go); those the
                # engine's kubelet does not report are empty, as an unknown value is.
                info = obj.setdefault("status", {}).setdefault("nodeInfo", {})
                for field_name in NODE_INFO_FIELDS:
                    info.setdefault(field_name, "")
            if old is not None and _uid(old[1]) and _uid(obj) and _uid(old[1]) != _uid(obj):
                self.rv += 1
                gone = _with_rv(copy.deepcopy(old[1]), self.rv)
                self._record(Change(self.rv, "DELETED", kind, gone))
                old = None
            self.rv += 1
            _with_rv(obj, self.rv)
            current[key] = (print_, obj)
            self._record(Change(self.rv, "ADDED" if old is None else "MODIFIED", kind, obj))
        for key in [k for k in current if k not in seen]:
            _, obj = current.pop(key)
            self.rv += 1
            gone = _with_rv(copy.deepcopy(obj), self.rv)
            self._record(Change(self.rv, "DELETED", kind, gone))
        return state

    def items(self, sim: Any, kind: str) -> list[dict]:
        state = self.sync(sim, kind)
        return [obj for _, obj in state.objects.values()]

    def changes_since(self, kind: str, rv: int) -> list[Change]:
        """The changes of `kind` after `rv`; Expired (410) when `rv` is older than the
        history (the watch cache's `too old resource version: <rv> (<oldest>)`)."""
        if rv < self.compacted:
            raise api_errors.new_resource_expired(
                f"too old resource version: {rv} ({self.compacted + 1})"
            )
        if rv > self.rv:
            raise api_errors.new_too_large_resource_version(rv, self.rv)
        return [c for c in self.history if c.rv > rv and c.kind == kind]


def _cluster_scoped() -> frozenset[str]:
    from webapp.kubeapi.resources import RESOURCES

    return frozenset(r.kind for r in RESOURCES if not r.namespaced)


CLUSTER_SCOPED = _cluster_scoped()


def _allocate_cluster_ip(service: dict) -> None:
    """The API server's ClusterIP allocation (pkg/registry/core/service/ipallocator), which
    the engine does not do: an address of the default service range 10.96.0.0/12, fixed by
    the Service's name, for a ClusterIP Service that has none."""
    spec = service.setdefault("spec", {})
    spec.setdefault("type", "ClusterIP")
    if spec.get("clusterIP") or spec["type"] == "ExternalName":
        return
    name = (service.get("metadata") or {}).get("name", "")
    digest = int(hashlib.sha256(name.encode()).hexdigest(), 16) % ((1 << 20) - 2) + 1
    address = f"10.{96 + (digest >> 16)}.{(digest >> 8) & 255}.{digest & 255}"
    spec["clusterIP"] = address
    spec["clusterIPs"] = [address]
    spec.setdefault("ipFamilies", ["IPv4"])
    spec.setdefault("ipFamilyPolicy", "SingleStack")
    spec.setdefault("sessionAffinity", "None")
    spec.setdefault("internalTrafficPolicy", "Cluster")
    for port in spec.get("ports") or []:
        port.setdefault("protocol", "TCP")
        port.setdefault("targetPort", port.get("port"))


def _uid(obj: dict) -> str:
    return str((obj.get("metadata") or {}).get("uid") or "")


def _with_rv(obj: dict, rv: int) -> dict:
    obj.setdefault("metadata", {})["resourceVersion"] = str(rv)
    return obj


def view_of(session: Any) -> ApiView:
    view = getattr(session, "kube_view", None)
    if view is None:
        view = ApiView()
        session.kube_view = view
    return view


def bring_to_now(session: Any, wall: float | None = None) -> None:
    """Under the session's lock: the engine at the session's clock time now.

    A session with a tab is paced by the scheduler (and caught up when its lock is taken):
    the API only notes where it is. One without a tab (made for kubectl, or whose page
    closed) plays, while its clock plays, at its speed from the API's own anchor, within
    one slice of CPU per request and charged to the session's budgets, as pacing is."""
    view = view_of(session)
    wall = time.monotonic() if wall is None else wall
    sim = session.sim
    clock = session.clock
    session.idle_since = None  # kubectl's requests keep it from idling out
    if session.tabs or not clock.playing or session.seek_target is not None or session.held():
        view.anchor = (wall, sim.now)
        return
    if view.anchor is None:
        view.anchor = (wall, sim.now)
        return
    anchor_wall, anchor_virtual = view.anchor
    target = min(clock.end, max(sim.now, anchor_virtual + (wall - anchor_wall) * clock.speed))
    with charged(session.budgets()):
        done = session.run_until(round(target, 6), slice_stop(sim))
    if not done:  # it could not keep up: it plays slower from here, never in jumps
        view.anchor = (wall, session.sim.now)
