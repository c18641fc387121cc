"""The `state` part of snapshot and tick payloads, read and rendered once per change.

Every pacing tick moves `now`, but the Pod, its events, the EndpointSlices and the Nodes only
change at a transition, and most transitions (a probe run) change none of them. `StateCache`
reads the objects only after a transition, keeps the JSON text of each (so an unchanged part
is neither copied nor encoded again), and renders the kubectl views when the Pod or its
events changed. When only the ages in them moved on (a new virtual second), a playing session
re-renders them at most once per `view_refresh_seconds` of wall time (at 10x that is every
10 virtual seconds); asked to be exact (a command, a pause, a snapshot) it renders at once.
`-o yaml`, the costliest view, is shared between sessions by the Pod's JSON text.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from typing import Any

from webapp import kubectl
from webapp.kubectl import workloads as kubectl_workloads
from webapp.sessions.lanes import ClusterLanes, job_milestones
from webapp.sessions.wire import Fragments, encode

# The parts of `state` whose JSON text is kept between ticks (webapp.sessions.wire).
CACHED_KEYS = ("pod", "events", "endpointSlices", "nodes", "views", "cluster")
TRAFFIC_SECONDS = 120  # the page's requests/s chart: the last two minutes
LOG_TAIL = 200  # `kubectl logs --tail=200`: the page shows the end of each log


class PodYamlCache:
    """`kubectl get pod -o yaml` by the Pod's JSON text, shared by every session.

    Rendering YAML is the costliest view (milliseconds), and runs are deterministic: every
    tab playing the same scenario (a class following a lesson) reaches the same Pod states.
    """

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self._texts: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def render(self, pod: dict[str, Any], pod_json: str) -> str:
        with self._lock:
            text = self._texts.get(pod_json)
            if text is not None:
                self._texts.move_to_end(pod_json)
                return text
        text = kubectl.pod_yaml(pod)
        with self._lock:
            self._texts[pod_json] = text
            while len(self._texts) > self.size:
                self._texts.popitem(last=False)
        return text


POD_YAML = PodYamlCache()


def stage_of(transitions: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Where the Pod is now: the stage, step and container of the last transition."""
    if not transitions:
        return None
    last = transitions[-1]
    return {
        "stage": last.get("stage"),
        "step": last.get("step"),
        "container": last.get("container"),
    }


class StateCache:
    def __init__(self, sim: Any, view_refresh_seconds: float = 1.0) -> None:
        self.sim = sim
        self.view_refresh_seconds = view_refresh_seconds
        self.fragments = Fragments()
        self._transitions_seen: Any = None
        self._versions_seen = -1
        self._versions_rendered = -1
        self._views_stale = True
        self._views_second: int | None = None
        self._views_wall = -math.inf
        self.pod: dict[str, Any] | None = None
        self.events: list[dict[str, Any]] = []
        self.endpoint_slices: list[dict[str, Any]] = []
        self.nodes: list[dict[str, Any]] = []
        self.views: dict[str, Any] = {}  # replaced, never changed in place
        self._logs_key: Any = None
        self.cluster: dict[str, Any] | None = None  # a workload scenario's objects and traffic
        self._cluster_key: Any = None
        self._cluster_watch = ClusterWatch()
        self._cluster_lanes = ClusterLanes()
        self._pod_watch = ClusterWatch("pod_versions", cap=None)

    def refresh(self, wall_now: float | None = None) -> None:
        """Bring the objects and views up to date; `wall_now=None` means "exactly, now"."""
        if hasattr(self.sim, "objects"):
            if self.sim.focus_name != (self.cluster or {}).get("focus"):
                # another Pod drives the single-Pod views: read and render them anew
                self._transitions_seen = self._versions_seen = self._versions_rendered = -1
                self._views_stale = True
                self._logs_key = None
            self._read_cluster()
        revision = getattr(self.sim, "revision", None)  # moves with a longer probe run too
        # ... and the Events' own counter: a repeated Event bumps a count with no transition.
        seen = (
            len(self.sim.transitions) if revision is None else revision,
            getattr(self.sim, "events_revision", 0),
        )
        if seen != self._transitions_seen:
            self._transitions_seen = seen
            self._read_objects()
        second = math.floor(self.sim.now)
        if not self._views_stale:
            if second == self._views_second:
                return
            # Only the ages moved on: while playing, once per view_refresh_seconds will do.
            if wall_now is not None and wall_now - self._views_wall < self.view_refresh_seconds:
                return
        if wall_now is not None:
            self._views_wall = wall_now
        self._views_second = second
        self._views_stale = False
        self._render_views()

    def _keep(self, key: str, value: Any) -> bool:
        """Take `value` for `key` if its JSON differs from what is kept; True if it did."""
        text = encode(value)
        if self.fragments.known(key) == text:
            return False
        self.fragments.put(key, value, text)
        return True

    def _read_objects(self) -> None:
        # Compared as JSON text: the engine may change its objects in place, and the text
        # is what the tabs will receive anyway.
        sim = self.sim
        if self._keep("endpointSlices", slices := sim.endpoint_slices()):
            self.endpoint_slices = slices
        if self._keep("nodes", nodes := sim.nodes()):
            self.nodes = nodes
        if self._keep("events", events := sim.events()):
            self.events = events
            self._views_stale = True
        if len(sim.pod_versions) != self._versions_seen:
            self._versions_seen = len(sim.pod_versions)
            self.pod = sim.pod()
            self.fragments.put("pod", self.pod, encode(self.pod))
            self._views_stale = True

    def _read_cluster(self) -> None:
        """A workload scenario's part of `state` (docs/internals.md, "cluster"), built again
        when the run moved (any Pod, not only the focus one, may have changed)."""
        sim = self.sim
        key = (sim.clock.processed, sim.now_ms, sim.focus_name, len(sim.actions))
        if key == self._cluster_key:
            return
        self._cluster_key = key
        value = cluster_state(sim)
        value["views"]["watch"] = self._cluster_watch.text(sim)
        # the timeline's lane per Pod and the rollouts (webapp/sessions/lanes.py)
        value["lanes"] = self._cluster_lanes.lanes(sim)
        value.update(self._cluster_lanes.rollouts(sim), milestones=job_milestones(value["jobs"]))
        if self._keep("cluster", value):
            self.cluster = value

    def _render_views(self) -> None:
        sim, pod = self.sim, self.pod
        now = sim.wall_time()
        views = dict(self.views)
        if self._versions_rendered != self._versions_seen:
            self._versions_rendered = self._versions_seen
            # no event yet: the column titles alone, as kubectl.watch_lines gives them
            views["watch"] = self._pod_watch.text(sim) or "\n".join(kubectl.watch_lines([]))
            pod_json = self.fragments.known("pod")
            views["yaml"] = POD_YAML.render(pod, pod_json) if pod and pod_json else ""
        views["columns"] = kubectl.pod_columns(pod, now) if pod else None
        views["describe"] = (
            kubectl.describe_pod(pod, kubectl.events_of_pod(pod, self.events), now) if pod else ""
        )
        views["events"] = kubectl.get_events(self.events, now)
        views["logs"] = self._logs(views.get("logs"))
        if views != self.views:
            self.views = views

    def _logs(self, previous: Any) -> dict[str, Any]:
        """`kubectl logs POD -c NAME [--previous]` for every container, re-rendered only
        when a log or a container status changed."""
        sim, pod = self.sim, self.pod
        logs = sim.logs_by_container_id()
        key = (self._versions_seen, tuple((cid, len(lines)) for cid, lines in logs.items()))
        if key == self._logs_key and previous is not None:
            return previous
        self._logs_key = key
        written = pod or sim.scenario.pod or {}
        spec = written.get("spec") or {}
        pod_name = (written.get("metadata") or {}).get("name", "")
        names = [c["name"] for k in ("initContainers", "containers") for c in spec.get(k) or []]
        default = kubectl.default_container(pod)[0] if pod else (names[0] if names else "")
        rendered: dict[str, Any] = {"default": default, "containers": {}}
        for name in names:
            rendered["containers"][name] = {
                "current": kubectl.kubectl_logs(pod, pod_name, logs, name, tail=LOG_TAIL),
                "previous": kubectl.kubectl_logs(
                    pod, pod_name, logs, name, previous=True, tail=LOG_TAIL
                ),
            }
        return rendered

    def state(self) -> dict[str, Any]:
        """The wire `state` minus `seq` and `transitions` (the session adds those)."""
        return {
            "now": self.sim.now,
            "pod": self.pod,
            "events": self.events,
            "endpointSlices": self.endpoint_slices,
            "nodes": self.nodes,
            "views": self.views,
            "stage": stage_of(self.sim.transitions),
            **({"cluster": self.cluster} if self.cluster is not None else {}),
        }


WATCH_LINES = 300  # `kubectl get pods -w` across Pods: the last lines sent to the page


class ClusterWatch:
    """`kubectl get pods -w` over every Pod of a cluster run (or, with ``source=
    "pod_versions"`` and no ``cap``, over the one Pod of a Pod scenario), fed incrementally:
    one tabwriter with kubectl's remembered widths, new watch events formatted once each
    (old versions are packed, engine/core/versions.py: they are read once per run)."""

    def __init__(self, source: str = "watch_versions", cap: int | None = WATCH_LINES) -> None:
        self.source = source
        self.cap = cap
        self._source: Any = None
        self._seen = 0
        self._writer: Any = None
        self._lines: list[str] = []

    def text(self, sim: Any) -> str:
        versions = getattr(sim, self.source)
        if versions is not self._source or len(versions) < self._seen:
            # another run (a replay): start again
            self._source, self._seen, self._lines = versions, 0, []
            self._writer = kubectl.watch_writer()
        for t, _kind, pod in versions[self._seen :]:
            self._lines.extend(kubectl.watch_event_lines(self._writer, sim.wall_time(t), pod))
        self._seen = len(versions)
        if self.cap is not None and len(self._lines) > self.cap + 1:
            self._lines = [self._lines[0], *self._lines[-self.cap :]]
        return "\n".join(self._lines)


def _describes(sim: Any, deployments: list, replica_sets: list, jobs: list, stateful_sets: list,
               pods: list, now: Any) -> dict[str, str]:  # fmt: skip
    """`kubectl describe deployment|job|statefulset NAME` for every one of them."""
    from webapp.engine.controllers.rules import deployment as deployment_rules

    events = sim.events()
    texts = {}
    for deployment in deployments:
        uid = deployment["metadata"]["uid"]
        owned = [rs for rs in replica_sets
                 if any(r.get("uid") == uid for r in rs["metadata"].get("ownerReferences") or [])]  # fmt: skip
        new = deployment_rules.find_new_replica_set(deployment, owned)
        old = deployment_rules.find_old_replica_sets(deployment, owned)
        mine = kubectl_workloads.events_of_object(deployment, "Deployment", events)
        texts[f"deployment/{deployment['metadata']['name']}"] = (
            kubectl_workloads.describe_deployment(deployment, old, [new] if new else [], mine, now)
        )
    for job in jobs:
        mine = kubectl_workloads.events_of_object(job, "Job", events)
        texts[f"job/{job['metadata']['name']}"] = kubectl_workloads.describe_job(job, mine, now)
    for sts in stateful_sets:
        uid = sts["metadata"]["uid"]
        owned_pods = [p for p in pods
                      if any(r.get("uid") == uid for r in p["metadata"].get("ownerReferences") or [])]  # fmt: skip
        mine = kubectl_workloads.events_of_object(sts, "StatefulSet", events)
        texts[f"statefulset/{sts['metadata']['name']}"] = kubectl_workloads.describe_statefulset(
            sts, owned_pods, mine, now
        )
    for ds in sim.objects("DaemonSet"):
        uid = ds["metadata"]["uid"]
        owned_pods = [p for p in pods
                      if any(r.get("uid") == uid for r in p["metadata"].get("ownerReferences") or [])]  # fmt: skip
        mine = kubectl_workloads.events_of_object(ds, "DaemonSet", events)
        namespace = ds["metadata"].get("namespace", "default")
        flag = "" if namespace == "default" else f" -n {namespace}"
        texts[f"daemonset/{ds['metadata']['name']}{flag}"] = kubectl_workloads.describe_daemonset(
            ds, owned_pods, mine, now
        )
    return texts


def _daemon_set_tables(sim: Any, now: Any) -> dict[str, str]:
    """`kubectl get ds -n NAMESPACE -o wide` per namespace that has DaemonSets."""
    by_namespace: dict[str, list] = {}
    for ds in sim.objects("DaemonSet"):
        by_namespace.setdefault(ds["metadata"].get("namespace", "default"), []).append(ds)
    return {namespace: kubectl_workloads.get_table("DaemonSet", sets, now, wide=True)
            for namespace, sets in sorted(by_namespace.items())}  # fmt: skip


def _owner(obj: dict[str, Any]) -> dict[str, str] | None:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return {"kind": ref.get("kind", ""), "name": ref.get("name", "")}
    return None


def cluster_state(sim: Any) -> dict[str, Any]:
    """Every Pod (name, node, owner and its `kubectl get pods` cells) for the cluster strip,
    the workloads, the traffic counts (the last TRAFFIC_SECONDS per second) and the kubectl
    views of the cluster, rendered here so the page never re-derives them."""
    now = sim.wall_time()
    pods = sim.objects("Pod")
    deployments = sim.objects("Deployment")
    replica_sets = sim.objects("ReplicaSet")
    jobs = sim.objects("Job")
    stateful_sets = sim.objects("StatefulSet")
    slices = sim.objects("EndpointSlice")
    traffic = sim.traffic()
    if traffic is not None:
        traffic = dict(traffic, perSecond=traffic["perSecond"][-TRAFFIC_SECONDS:],
                       beforeReady=sim.traffic_client.before_ready)  # fmt: skip
    rollout = {}
    for kind, objects in (("Deployment", deployments), ("StatefulSet", stateful_sets)):
        for obj in objects:
            text, _done = kubectl_workloads.rollout_status_transcript(kind, [obj])
            rollout[f"{kind.lower()}/{obj['metadata']['name']}"] = text
    return {
        "focus": sim.focus_name,
        # the focus Pod was behind a Service: its deletion took it out of the endpoints
        "focusWasEndpoint": sim.focus_name in sim.endpoint_pods,
        "pods": [
            {
                "name": pod["metadata"]["name"],
                "node": (pod.get("spec") or {}).get("nodeName"),
                "owner": _owner(pod),
                "columns": kubectl.pod_columns(pod, now),
            }
            for pod in pods
        ],
        "deployments": deployments,
        "replicaSets": replica_sets,
        "jobs": jobs,
        "statefulSets": stateful_sets,
        "traffic": traffic,
        "views": {
            "get": kubectl_workloads.get_many(
                [
                    ("Pod", pods),
                    ("ReplicaSet", replica_sets),
                    ("Deployment", deployments),
                    ("Job", jobs),
                ],
                now,
                wide=True,
            ),
            "endpointslices": kubectl_workloads.get_endpointslices(slices, now),
            "rolloutStatus": rollout,
            "pdbs": kubectl_workloads.get_pdbs(sim.objects("PodDisruptionBudget"), now),
            # `kubectl get pvc,pv`: "" while there are none
            "storage": kubectl_workloads.get_many(
                [
                    ("PersistentVolumeClaim", sim.objects("PersistentVolumeClaim")),
                    ("PersistentVolume", sim.objects("PersistentVolume")),
                ],
                now,
            ),
            "describe": _describes(sim, deployments, replica_sets, jobs, stateful_sets, pods, now),
            "drains": {node: "\n".join(run.lines) + "\n" for node, run in sim.drains.items()},
            "drainCommands": {
                node: f"kubectl drain {node}"
                + (" --ignore-daemonsets" if getattr(run, "ignore_daemonsets", True) else "")
                for node, run in sim.drains.items()
            },
            "daemonsets": _daemon_set_tables(sim, now),
        },
    }
