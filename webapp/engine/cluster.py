"""A small cluster of many Pods owned by workloads (Deployments, ReplicaSets).

Each Pod is a :class:`PodRun`: the single-Pod :class:`Simulation` (its API object, kubelet,
transitions and watch versions exactly as for a scenario's Pod) on the cluster's shared
clock, Event recorder, nodes and image registry. The :class:`ClusterSimulation` owns them,
runs the Deployment and ReplicaSet controllers (controllers/deployment.py,
controllers/replicaset.py, whose decisions come from controllers/rules/), keeps one
EndpointSlice per Service over every Pod, and sends the simulated client's requests
through the Service (:mod:`traffic`). Its API is the Simulation's: the single-Pod views
(``pod()``, ``transitions``, ``pod_versions``, logs) show the *focus* Pod, and
``objects(kind)``, ``pod(name)``, ``traffic()`` and ``focus(name)`` see the rest.
"""

from __future__ import annotations

import copy
import random
import uuid
from datetime import datetime
from functools import partial
from typing import Any

from webapp.engine import scheduler
from webapp.engine.actions import ActionError
from webapp.engine.api.events import ObjectReference
from webapp.engine.apiserver.defaults import apply_pod_defaults
from webapp.engine.checkpoint import CheckpointStore, ClusterCheckpoint
from webapp.engine.checkpoint import restore as restore_checkpoint
from webapp.engine.checkpoint import take_cluster as take_cluster_checkpoint
from webapp.engine.controllers import daemonset as daemonset_controller
from webapp.engine.controllers import deployment as deployment_controller
from webapp.engine.controllers import disruption as disruption_controller
from webapp.engine.controllers import job as job_controller
from webapp.engine.controllers import persistentvolume
from webapp.engine.controllers import replicaset as replicaset_controller
from webapp.engine.controllers import statefulset as statefulset_controller
from webapp.engine.controllers.endpoints import endpoint_slice_for_pods
from webapp.engine.controllers.rules import daemonset as daemonset_rules
from webapp.engine.controllers.rules import job as job_rules
from webapp.engine.controllers.rules import storage as storage_rules
from webapp.engine.core.clock import URGENT
from webapp.engine.core.timefmt import rfc3339, to_ms, wall_time
from webapp.engine.kubelet.coasting import coast
from webapp.engine.kubelet.kubelet import Kubelet
from webapp.engine.kubelet.probes import ProbeWorker
from webapp.engine.simulation import MAX_ACTIONS, WORKLOAD_RUNNER, Simulation, init_run
from webapp.engine.traffic import Traffic
from webapp.manifest import DEFAULT_HORIZON_SECONDS

WORKLOAD_KINDS = ("Deployment", "ReplicaSet")
# Rounds of Deployment then ReplicaSet syncs in one controller pass: each round reacts to
# what the previous one changed; a pass ends when a round changes nothing.
MAX_SYNC_ROUNDS = 8
# Pods one run may create in all (docs/limits.md): past it the controllers' creates fail
# with a FailedCreate Warning, so a crash-looping Job or a churning set stays bounded.
MAX_PODS_CREATED = 2000
MAX_LIVE_PODS = 100  # ... and at most this many at once, over all workloads


class _WatchTee(list):
    """A Pod's watch versions that also go, in order, to the cluster's watch of every Pod
    (what `kubectl get pods -w` receives across Pods)."""

    __slots__ = ("merged",)

    def __init__(self, merged: list) -> None:
        super().__init__()
        self.merged = merged

    def append(self, item: Any) -> None:
        super().append(item)
        self.merged.append(item)

    def __reduce__(self) -> Any:
        return (_WatchTee._restore, (self.merged, list(self)))

    @staticmethod
    def _restore(merged: list, items: list) -> _WatchTee:
        tee = _WatchTee(merged)
        list.extend(tee, items)
        return tee


class CountedRandom(random.Random):
    """A Pod's ``random.Random(seed)`` that pickles as its seed and how many 32-bit words it
    has drawn (a checkpoint of 100 Pods would otherwise hold 100 Mersenne Twister states,
    2.5 KB each and incompressible); unpickling seeds it again and draws that many words,
    so it goes on exactly where it was. Every draw goes through ``random()`` (two words)
    or ``getrandbits(k)`` (one word per started 32 bits; the other methods call these two,
    as ``random.Random`` does), which count."""

    def __init__(self, seed: str | int) -> None:
        self.words = 0
        self._seed = seed
        super().__init__(seed)

    def random(self) -> float:
        self.words += 2
        return super().random()

    def getrandbits(self, k: int) -> int:
        self.words += (k + 31) // 32
        return super().getrandbits(k)

    def __reduce__(self) -> Any:
        return (CountedRandom._resume, (self._seed, self.words))

    @staticmethod
    def _resume(seed: str | int, words: int) -> CountedRandom:
        rng = CountedRandom(seed)
        left = words
        while left > 0:  # one call draws exactly ceil(k / 32) words
            chunk = min(left, 1 << 15)
            random.Random.getrandbits(rng, 32 * chunk)
            left -= chunk
        rng.words = words
        return rng


class PodRun(Simulation):
    """One Pod of the cluster, created by a controller at the cluster's current time."""

    def __init__(self, cluster: ClusterSimulation, pod: dict, seed: str) -> None:
        self.cluster = cluster
        self.horizon_ms = cluster.horizon_ms
        self.scenario = cluster.scenario
        self.seed = seed
        self.rng = CountedRandom(seed)
        self.clock = cluster.clock
        self.recorder = cluster.recorder
        self.actions = []
        self.behaviours = copy.deepcopy(cluster.behaviours)
        self.images = cluster.images
        self.config_maps = cluster.config_maps
        self.secrets = cluster.secrets
        self.services = cluster.services
        self.nodes_by_name = cluster.nodes_by_name
        self.removal_pending: str | None = None  # deleted, kept for its finalizers
        self.provisioning = False  # the scheduler's PreBind waits for its volumes
        self._init_pod(pod, created_ms=cluster.clock.now_ms)
        self.pod_versions = _WatchTee(cluster.watch_versions)
        self._submit()

    def _own_script(self) -> list[dict]:
        return []  # the cluster runs the script

    def remove_pod(self, cause: str) -> None:
        """The API server removes a deleted Pod once it has no finalizers left (the Job
        controller's tracking finalizer): until then it stays, with its deletionTimestamp,
        so its controller sees how it ended (``remove_finalizer`` finishes the removal)."""
        if not self.pod_removed and self.pod_object_dict["metadata"].get("finalizers"):
            self.removal_pending = cause
            return
        super().remove_pod(cause)

    def mark_dirty(self) -> None:
        self._dirty = True
        self.cluster.dirty[self.pod_name] = self

    def _update_endpoints(self, pod: dict | None, container: str | None = None) -> None:
        self.cluster.pod_changed(self)

    def _pick_node(self) -> scheduler.ScheduleResult:
        """The scheduler's filters, then spreading: the feasible node with the fewest Pods of
        the same owner, then the fewest Pods (default topology spreading and
        LeastAllocated, well enough that replicas spread), then by name."""
        nodes = [state.obj for state in self.nodes_by_name.values()]
        volumes: dict[str, Any] = {}
        if self.cluster.claims and persistentvolume.pod_claims(self):
            volumes = {
                "pre_filter": persistentvolume.pre_filter(self.cluster, self),
                "volume_binding": persistentvolume.volume_filter(self.cluster, self),
            }
        result = scheduler.schedule(self.pod_object_dict, nodes, **volumes)
        if result.node_name is None:
            return result
        owner = _owner_uid(self.pod_object_dict)
        counts: dict[str, list[int]] = {name: [0, 0] for name in self.nodes_by_name}
        for run in self.cluster.live_runs():
            if run is self or run.node_name not in counts:
                continue
            counts[run.node_name][1] += 1
            if owner and _owner_uid(run.pod_object_dict) == owner:
                counts[run.node_name][0] += 1
        feasible = [
            (counts[name][0], counts[name][1], name)
            for name in self.nodes_by_name
            if scheduler.schedule(
                self.pod_object_dict, [self.nodes_by_name[name].obj], **volumes
            ).node_name
        ]
        return scheduler.ScheduleResult(min(feasible)[2], "") if feasible else result

    def _schedule_attempt(self) -> None:
        if self.provisioning:
            return  # PreBind is waiting for the Pod's volumes
        super()._schedule_attempt()

    def bind(self, node_name: str) -> None:
        """PreBind (VolumeBinding): an unbound WaitForFirstConsumer claim is provisioned on
        the chosen node first; the Pod is bound once its claims are."""
        if self.cluster.claims and persistentvolume.unbound_delayed_claims(self.cluster, self):
            persistentvolume.provision_then_bind(self.cluster, self, node_name, super().bind)
            return
        super().bind(node_name)


# What apply_pod_defaults fills in that only a Pod's admission adds (ServiceAccount,
# Priority, DefaultTolerationSeconds): a Pod template keeps these as written.
_ADMISSION_ONLY = ("serviceAccountName", "serviceAccount", "preemptionPolicy", "priority",
                   "tolerations")  # fmt: skip


def template_spec_defaults(spec: dict) -> dict:
    """``SetDefaults_PodSpec`` on a workload's Pod template: the Pod defaults without what
    the Pod admission plugins add (those come when each Pod is created)."""
    defaulted = apply_pod_defaults({"metadata": {}, "spec": spec})["spec"]
    for key in _ADMISSION_ONLY:
        if key in spec:
            defaulted[key] = copy.deepcopy(spec[key])
        else:
            defaulted.pop(key, None)
    return defaulted


def workload_spec_defaults(kind: str, spec: dict) -> dict:
    """The apps/v1 defaults of a Deployment's, ReplicaSet's or StatefulSet's spec, in place
    (``SetDefaults_Deployment`` & co.: replicas 1, RollingUpdate 25 %/25 %,
    revisionHistoryLimit 10, progressDeadlineSeconds 600; the template's Pod spec
    defaults). The API server runs them on every create and update."""
    template = spec.setdefault("template", {})
    template["spec"] = template_spec_defaults(template.get("spec") or {})
    if kind == "DaemonSet":  # SetDefaults_DaemonSet: no replicas
        return daemonset_rules.spec_defaults(spec)
    spec.setdefault("replicas", 1)
    if kind == "StatefulSet":
        spec.setdefault("podManagementPolicy", "OrderedReady")
        spec.setdefault("updateStrategy", {"type": "RollingUpdate"})
        spec.setdefault("revisionHistoryLimit", 10)
    elif kind == "Deployment":
        strategy = spec.setdefault("strategy", {})
        strategy.setdefault("type", "RollingUpdate")
        if strategy["type"] == "RollingUpdate":
            rolling = strategy.setdefault("rollingUpdate", {})
            rolling.setdefault("maxSurge", "25%")
            rolling.setdefault("maxUnavailable", "25%")
        spec.setdefault("revisionHistoryLimit", 10)
        spec.setdefault("progressDeadlineSeconds", 600)
    return spec


def _action_target(action: dict, run: PodRun) -> str:
    """The object a scripted action names, as a transition's ``object``."""
    if isinstance(action.get("node"), str):
        return f"Node/{action['node']}"
    name, kind = action.get("name"), action.get("kind")
    if not isinstance(name, str):
        return run.pod_object  # the focus Pod's own actions (crash, oom, set-probe)
    if not isinstance(kind, str):
        kind = "Pod" if action.get("action") in ("delete", "focus") else "Deployment"
    return f"{kind}/{name}"


def _owner_uid(obj: dict) -> str:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return ref.get("uid", "")
    return ""


class ClusterSimulation:
    """A deterministic run of a workload scenario (same API as :class:`Simulation`)."""

    max_actions = MAX_ACTIONS
    # Steady probe ticks of every Pod are done many at once (kubelet/coasting.py), with the
    # same result as one by one; False runs every tick on its own (the tests compare both).
    coasting = True

    def __init__(
        self, scenario: Any, seed: int = 0, horizon: float = DEFAULT_HORIZON_SECONDS
    ) -> None:
        init_run(self, scenario, seed, horizon, rng=CountedRandom)
        self.names = CountedRandom(f"{seed}/names")  # generated names and UIDs
        document = scenario.simulation
        # every Pod's watch versions (t, "ADDED"|"MODIFIED"|"DELETED", pod), in order
        self.watch_versions: list[tuple[float, str, dict]] = []
        self.runs: dict[str, PodRun] = {}  # every Pod ever created, in creation order
        self.created: list[PodRun] = []  # ... with those whose name a later Pod took again
        self._owned: dict[str, dict[str, PodRun]] = {}  # owner uid -> its Pods not yet removed
        self.dirty: dict[str, PodRun] = {}  # Pods whose object must be rebuilt
        self.deployments: dict[str, dict] = {}
        # Deployment uid -> (key, (new RS uid, old RS uids)): controllers/deployment.py
        self.rs_split_cache: dict[str, tuple] = {}
        self.replica_sets: dict[str, dict] = {}
        self.jobs: dict[str, dict] = {}
        self.stateful_sets: dict[str, dict] = {}
        self.daemon_sets: dict[str, dict] = {}
        self.sts_revisions: dict[str, dict[str, dict]] = {}  # set -> revision -> template
        self.pdbs: dict[str, dict] = {}
        # PersistentVolumeClaims and PersistentVolumes by name (controllers/persistentvolume.py)
        self.claims: dict[str, dict] = {}
        self.volumes: dict[str, dict] = {}
        self.storage_names = CountedRandom(f"{seed}/storage")  # their UIDs
        self.provisioner_identity: str | None = None
        self.drains: dict[str, disruption_controller.Drain] = {}  # node -> its kubectl drain
        self.gone: list[PodRun] = []  # Pods whose name a StatefulSet's new Pod took again
        self.job_backoff: dict[str, job_rules.BackoffRecord] = {}
        self._slices: dict[str, dict] = {}
        self._slice_created: dict[str, str] = {}
        # (t, object) per Deployment each time it changed: what `kubectl rollout status` and
        # `get -w` would have received
        self.deployment_versions: dict[str, list[tuple[float, dict]]] = {}
        self._sync_due: set[int] = set()
        self._full_due: set[int] = set()  # instants whose pass syncs every controller
        self._dirty_uids: set[str] = set()  # controllers whose Pods changed since their sync
        self._syncing = False
        self.focus_name: str | None = None
        self._limit_reported = False
        self.checkpoints: CheckpointStore | None = None  # where to keep checkpoints, if anywhere
        self.checkpoint_mark: tuple[int, int] | None = None  # (ms, clock steps) of the last one
        self._coast_misses = 0  # coasting tries that found nothing steady, in a row (at most 6)
        self._coast_wait = 0  # probe instants to let pass before trying again
        for workload in scenario.workloads:
            self._create_workload(workload)
        traffic = document.get("traffic")
        self.traffic_client = Traffic(self, traffic) if traffic else None
        for action in document.get("script") or []:
            self.clock.schedule(to_ms(action.get("at", 0)), partial(self._scripted, action), URGENT)
        self.sync()

    # -- construction ---------------------------------------------------------------------

    def _uid(self) -> str:
        return str(uuid.UUID(int=self.names.getrandbits(128), version=4))

    def _create_workload(self, obj: dict) -> None:
        """The API server's create: metadata (uid, generation, creationTimestamp) and the
        apps/v1 defaults (replicas 1, RollingUpdate 25 %/25 %, revisionHistoryLimit 10,
        progressDeadlineSeconds 600; the template's Pod spec defaults)."""
        obj = copy.deepcopy(obj)
        metadata = obj.setdefault("metadata", {})
        metadata.setdefault("namespace", "default")
        metadata["uid"] = self._uid()
        metadata["generation"] = 1
        metadata["creationTimestamp"] = rfc3339(self.clock.now_ms)
        spec = obj.setdefault("spec", {})
        if obj["kind"] == "PodDisruptionBudget":
            if spec.get("minAvailable") is None and spec.get("maxUnavailable") is None:
                spec["minAvailable"] = 1  # SetDefaults_PodDisruptionBudgetSpec
            obj["status"] = {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0,
                             "expectedPods": 0}  # fmt: skip
            self.pdbs[metadata["name"]] = obj
            return
        if obj["kind"] == "Job":
            self._create_job(obj)
            return
        workload_spec_defaults(obj["kind"], spec)
        if obj["kind"] == "DaemonSet":
            # the DaemonSet strategy's PrepareForCreate
            annotations = metadata.setdefault("annotations", {})
            annotations[daemonset_rules.TEMPLATE_GENERATION_ANNOTATION] = "1"
            obj["status"] = {"currentNumberScheduled": 0, "numberMisscheduled": 0,
                             "desiredNumberScheduled": 0, "numberReady": 0}  # fmt: skip
            self.daemon_sets[metadata["name"]] = obj
            return
        if obj["kind"] == "StatefulSet":
            obj["status"] = {"replicas": 0, "availableReplicas": 0}
            self.stateful_sets[metadata["name"]] = obj
        elif obj["kind"] == "Deployment":
            obj["status"] = {}
            self.deployments[metadata["name"]] = obj
        else:
            obj["status"] = {"replicas": 0}
            self.replica_sets[metadata["name"]] = obj

    # kubectl_apply.py defaults an updated workload's spec as the API server's update does
    workload_spec_defaults = staticmethod(workload_spec_defaults)

    def _create_job(self, job: dict) -> None:
        """``SetDefaults_Job`` and the Job strategy's generated selector and labels."""
        spec = job["spec"]
        if spec.get("completions") is None and spec.get("parallelism") is None:
            spec["completions"] = 1
        spec.setdefault("parallelism", 1)
        spec.setdefault("backoffLimit", job_rules.backoff_limit(job))
        spec.setdefault("completionMode", "NonIndexed")
        spec.setdefault("suspend", False)
        spec.setdefault("podReplacementPolicy", job_rules.pod_replacement_policy(job))
        template = spec.setdefault("template", {})
        generated = job_rules.generate_selector(job)
        if spec.get("selector") is None:
            spec["selector"] = {"matchLabels": {"batch.kubernetes.io/controller-uid":
                                                job["metadata"]["uid"]}}  # fmt: skip
            spec["manualSelector"] = False
        labels = dict((template.get("metadata") or {}).get("labels") or {})
        labels.update(generated)
        template["metadata"] = {**(template.get("metadata") or {}), "labels": labels}
        template["spec"] = template_spec_defaults(template.get("spec") or {})
        job["metadata"].setdefault("labels", {}).update(
            {k: v for k, v in generated.items() if k.startswith("batch.")}
        )
        job["status"] = {}
        self.jobs[job["metadata"]["name"]] = job

    def scale_of(self, ref: dict) -> tuple[str, int] | None:
        """(controller uid, replicas) of a Pod's controller for a PodDisruptionBudget: a
        ReplicaSet counts its Deployment's replicas when it has one (``getExpectedScale``)."""
        kind, name = ref.get("kind"), ref.get("name", "")
        if kind == "ReplicaSet" and name in self.replica_sets:
            rs = self.replica_sets[name]
            owner = _owner_uid(rs)
            for deployment in self.deployments.values():
                if deployment["metadata"]["uid"] == owner:
                    return owner, int(deployment["spec"].get("replicas", 1))
            return rs["metadata"]["uid"], int(rs["spec"].get("replicas", 1))
        if kind == "StatefulSet" and name in self.stateful_sets:
            sts = self.stateful_sets[name]
            return sts["metadata"]["uid"], int(sts["spec"].get("replicas", 1))
        return None

    def drain(self, node: str, *, ignore_daemonsets: bool = True) -> None:
        """``kubectl drain NODE [--ignore-daemonsets]``."""
        run = disruption_controller.Drain(self, node, ignore_daemonsets=ignore_daemonsets)
        self.drains[node] = run
        run.start()

    def delete_job(self, job: dict) -> None:
        """The ttl-after-finished controller's delete (background propagation: the Pods go)."""
        uid = job["metadata"]["uid"]
        self.jobs.pop(job["metadata"]["name"], None)
        for run in list(self.runs.values()):
            if not run.pod_removed and _owner_uid(run.pod_object_dict) == uid:
                run.delete_pod(None, cause=f"Job {job['metadata']['name']} deleted")
        self._flush_pods()

    def delete_daemon_set(self, ds: dict) -> None:
        """A DaemonSet's delete (background propagation: the garbage collector deletes its
        Pods)."""
        uid = ds["metadata"]["uid"]
        self.daemon_sets.pop(ds["metadata"]["name"], None)
        for run in list(self.runs.values()):
            if not run.pod_removed and _owner_uid(run.pod_object_dict) == uid:
                run.delete_pod(None, cause=f"DaemonSet {ds['metadata']['name']} deleted")
        self._flush_pods()

    def remove_finalizer(self, pod_name: str, finalizer: str) -> None:
        run = self.runs.get(pod_name)
        if run is None or run.pod_removed:
            return
        metadata = run.pod_object_dict["metadata"]
        finalizers = [f for f in metadata.get("finalizers") or [] if f != finalizer]
        if finalizers != (metadata.get("finalizers") or []):
            run.pod_object_dict = {**run.pod_object_dict, "metadata": {**metadata}}
            if finalizers:
                run.pod_object_dict["metadata"]["finalizers"] = finalizers
            else:
                run.pod_object_dict["metadata"].pop("finalizers", None)
            run.mark_dirty()
            if not finalizers and run.removal_pending is not None:
                run.remove_pod(run.removal_pending)

    # -- the objects ----------------------------------------------------------------------

    def live_runs(self) -> list[PodRun]:
        return [run for run in self.runs.values() if not run.pod_removed]

    def owned_pods(self, owner: dict) -> list[dict]:
        """The Pod objects (not yet removed) whose controller is ``owner``, oldest first."""
        found = []
        owned = self._owned.get(owner["metadata"]["uid"])
        if not owned:
            return found
        for name, run in list(owned.items()):
            if run.pod_removed:
                del owned[name]  # gone from the API: never owned again
                continue
            pod = run.pod()
            if pod is not None:
                found.append(pod)
        return found

    def owned_replica_sets(self, deployment: dict) -> list[dict]:
        uid = deployment["metadata"]["uid"]
        return [rs for rs in self.replica_sets.values() if _owner_uid(rs) == uid]

    def siblings(self, rs: dict) -> list[dict]:
        owner = _owner_uid(rs)
        if not owner:
            return [rs]
        return [other for other in self.replica_sets.values() if _owner_uid(other) == owner]

    def replica_set(self, name: str) -> dict | None:
        return self.replica_sets.get(name)

    def add_replica_set(self, rs: dict) -> None:
        rs["metadata"]["uid"] = self._uid()
        rs["metadata"]["generation"] = 1
        self.replica_sets[rs["metadata"]["name"]] = rs

    def delete_replica_set(self, rs: dict) -> None:
        self.replica_sets.pop(rs["metadata"]["name"], None)

    def can_create(self, owner: dict) -> bool:
        """False (with one FailedCreate Warning on ``owner``) once MAX_PODS_CREATED Pods were
        created in this run."""
        live = sum(len(owned) for owned in self._owned.values())
        if len(self.runs) + len(self.gone) < MAX_PODS_CREATED and live < MAX_LIVE_PODS:
            return True
        if not self._limit_reported:
            self._limit_reported = True
            message = (
                f"the playground's limit of {MAX_PODS_CREATED} Pods per run is reached"
                if live < MAX_LIVE_PODS
                else f"the playground runs at most {MAX_LIVE_PODS} Pods at once"
            )
            self.workload_event(owner, "Warning", "FailedCreate", f"Error creating: {message}",
                                component="playground")  # fmt: skip
        return False

    def create_pod(self, pod: dict) -> PodRun:
        name = pod["metadata"]["name"]
        earlier = self.runs.pop(name, None)
        if earlier is not None:  # a StatefulSet's ordinal name, its former Pod gone
            self.gone.append(earlier)
        seed = f"{self.seed}/pod/{name}" + (f"/{len(self.gone)}" if earlier is not None else "")
        run = PodRun(self, pod, seed=seed)
        self.runs[name] = run
        self.created.append(run)
        self._owned.setdefault(_owner_uid(pod), {})[name] = run
        if self.focus_name is None:
            self.focus_name = name
        return run

    def delete_pod_named(
        self, name: str, grace_seconds: int | None = None, *, force: bool = False, cause: str = ""
    ) -> None:
        run = self.runs[name]
        run.delete_pod(grace_seconds, force=force, cause=cause)
        self._flush_pods()

    def workload_event(self, obj: dict, event_type: str, reason: str, message: str, *,
                       component: str) -> None:  # fmt: skip
        metadata = obj["metadata"]
        ref = ObjectReference(obj["kind"], metadata["name"], metadata.get("namespace", "default"),
                              metadata.get("uid", ""), api_version=obj.get("apiVersion", "v1"))  # fmt: skip
        self.recorder.record(self.clock.now_ms, ref, event_type, reason, message,
                             component=component)  # fmt: skip

    # -- controllers ----------------------------------------------------------------------

    def pod_changed(self, run: PodRun) -> None:
        """A Pod object changed (or is gone): its controller looks again (only it: the
        other controllers' Pods did not change), then the endpoints."""
        self._dirty_uids.add(_owner_uid(run.pod_object_dict))
        self.sync_at(self.now, everything=False)

    def sync_at(self, seconds: float, *, everything: bool = True) -> None:
        """Queue a controller pass at virtual second ``seconds`` (once per instant). A
        requeue (``everything``) syncs every controller: their state depends on time too
        (minReadySeconds, deadlines, back-off); a Pod change only its owner's."""
        at_ms = max(to_ms(seconds), self.clock.now_ms)
        if at_ms > self.horizon_ms:
            return
        if everything:
            self._full_due.add(at_ms)
        if at_ms in self._sync_due:
            return
        self._sync_due.add(at_ms)
        self.clock.schedule(at_ms, partial(self._sync_event, at_ms), URGENT)

    def _sync_event(self, at_ms: int) -> None:
        self._sync_due.discard(at_ms)
        everything = at_ms in self._full_due
        self._full_due.discard(at_ms)
        self.sync(everything=everything)

    def _take_dirty(self) -> set[str]:
        self._flush_pods()
        dirty, self._dirty_uids = self._dirty_uids, set()
        return dirty

    def sync(self, *, everything: bool = True) -> None:
        """One pass of the controllers (ReplicaSets, Jobs, StatefulSets, then Deployments,
        in rounds until the Deployments change nothing), then the PodDisruptionBudgets and
        the EndpointSlices. Without ``everything``, only the controllers whose Pods changed
        (and the Deployments above them) sync: the others would decide nothing new."""
        if self._syncing:
            return
        self._syncing = True
        try:
            dirty = self._take_dirty()

            def wanted(obj: dict) -> bool:
                return everything or obj["metadata"]["uid"] in dirty

            for _ in range(MAX_SYNC_ROUNDS):
                for rs in list(self.replica_sets.values()):
                    if wanted(rs):
                        replicaset_controller.sync_replica_set(self, rs)
                        dirty.add(_owner_uid(rs))
                dirty |= self._take_dirty()
                for job in list(self.jobs.values()):
                    if wanted(job):
                        job_controller.sync_job(self, job)
                for sts in list(self.stateful_sets.values()):
                    if wanted(sts):
                        statefulset_controller.sync_stateful_set(self, sts)
                for ds in list(self.daemon_sets.values()):
                    if wanted(ds):
                        daemonset_controller.sync_daemon_set(self, ds)
                dirty |= self._take_dirty()
                changed = False
                for deployment in list(self.deployments.values()):
                    if wanted(deployment) and deployment_controller.sync_deployment(
                        self, deployment
                    ):
                        changed = True
                        dirty.update(
                            rs["metadata"]["uid"] for rs in self.owned_replica_sets(deployment)
                        )
                if not changed:
                    break
            for pdb in self.pdbs.values():
                disruption_controller.sync_pdb(self, pdb)
            self._update_endpoints()
            self._record_versions()
        finally:
            self._syncing = False

    @property
    def endpoint_pods(self) -> set[str]:
        """The Pods ever listed in a Service's EndpointSlice (the diagram's "Removed from
        endpoints" step happened to them when they were deleted)."""
        found = self.__dict__.get("_endpoint_pods")
        if found is None:  # also a run restored from a checkpoint taken before it existed
            found = self.__dict__["_endpoint_pods"] = set()
        return found

    def _record_versions(self) -> None:
        for name, deployment in self.deployments.items():
            versions = self.deployment_versions.setdefault(name, [])
            if not versions or versions[-1][1] != deployment:
                versions.append((self.now, copy.deepcopy(deployment)))

    def _update_endpoints(self) -> None:
        if not self.services:
            return
        pods = [run.pod() for run in self.live_runs()]
        for name, service in self.services.items():
            new = endpoint_slice_for_pods(service, [p for p in pods if p is not None])
            created = self._slice_created.setdefault(name, rfc3339(self.clock.now_ms))
            new["metadata"]["creationTimestamp"] = created
            if self._slices.get(name) != new:
                self._slices[name] = new
                self.endpoint_pods.update(
                    (e.get("targetRef") or {}).get("name", "") for e in new.get("endpoints") or []
                )
                if self.traffic_client is not None:
                    self.traffic_client.slice_changed(name, new)

    def _flush_pods(self) -> None:
        while self.dirty:
            name = next(iter(self.dirty))
            run = self.dirty.pop(name)
            if run._dirty:
                run._flush()

    # -- clock ----------------------------------------------------------------------------

    @property
    def now_ms(self) -> int:
        return self.clock.now_ms

    @property
    def now(self) -> float:
        return self.clock.now_ms / 1000

    @property
    def horizon(self) -> float:
        return self.horizon_ms / 1000

    def wall_time(self, t: float | None = None) -> datetime:
        return wall_time(self.clock.now_ms if t is None else to_ms(t))

    def advance(self, seconds: float) -> None:
        self._run_until(self.clock.now_ms + to_ms(seconds))

    def next_event_time(self) -> float | None:
        next_ms = self.clock.peek()
        return None if next_ms is None or next_ms > self.horizon_ms else next_ms / 1000

    def step(self) -> bool:
        next_ms = self.clock.peek()
        if next_ms is None or next_ms > self.horizon_ms:
            return False
        self._run_until(next_ms)
        return True

    def advance_to(self, t: float, stop: Any = None) -> bool:
        """Run towards virtual second ``t`` (at most the horizon), returning early when
        ``stop()`` says so, between two instants only; True when the run is at ``t`` (the
        same contract as the single-Pod run's, for sliced seeks)."""
        return self._run_until(max(self.clock.now_ms, to_ms(t)), stop)

    def _run_until(self, until_ms: int, stop: Any = None) -> bool:
        until_ms = min(until_ms, self.horizon_ms)
        clock = self.clock
        checkpoints = self.checkpoints
        tried = None
        moved = False  # a stopped call still runs at least one instant: slices always progress
        while True:
            next_ms = clock.peek()
            if next_ms is None or next_ms > until_ms:
                break
            if stop is not None and moved and next_ms > clock.now_ms and stop():
                return False
            if self.coasting and next_ms != tried:
                timer = clock.peek_timer()
                if timer is not None and isinstance(timer.tag, ProbeWorker):
                    tried = next_ms  # one try per instant: steady ticks are done at once
                    if self._coast_wait > 0:
                        self._coast_wait -= 1
                    elif coast(self._kubelets(), clock, until_ms):
                        self._coast_misses = 0
                        if checkpoints is not None:
                            checkpoints.offer(self)
                        continue
                    else:  # not steady now: try again after a few instants, fewer if it misses
                        self._coast_misses = min(self._coast_misses + 1, 6)
                        self._coast_wait = 2**self._coast_misses
            clock.step()
            moved = True
            if self.dirty:
                self._flush_pods()
            if checkpoints is not None:
                checkpoints.offer(self)
        clock.now_ms = max(clock.now_ms, until_ms)
        if checkpoints is not None:
            checkpoints.offer(self)
        return True

    def _kubelets(self) -> list[Kubelet]:
        """The kubelet of every Pod that has one: each probe worker on the clock is one of
        theirs, so coasting sees every tick it must order (kubelet/coasting.py)."""
        return [run.kubelet for run in self.created if run.kubelet is not None]

    def checkpoint(self) -> ClusterCheckpoint | None:
        """This run's whole state now, to resume from (None while a kubelet step of any Pod
        is under way: engine/checkpoint.py)."""
        return take_cluster_checkpoint(self)

    @classmethod
    def restore(cls, checkpoint: ClusterCheckpoint) -> ClusterSimulation:
        """A new run in the checkpoint's state; it runs on exactly as the original would."""
        return restore_checkpoint(checkpoint)

    # Rebuild by re-running from t=0 with each logged action at its time, or from the
    # latest checkpoint of ``checkpoints`` that fits (the same result, only faster).
    replay = classmethod(Simulation.replay.__func__)

    # -- actions --------------------------------------------------------------------------

    def _scripted(self, action: dict) -> None:
        from webapp.engine.cluster_actions import perform, validate

        payload = {k: v for k, v in action.items() if k != "at"}
        self.scripting = True  # engine/kubectl_apply.py: the scenario's own objects
        try:
            checked = validate(self, payload)
        except ActionError as error:
            self._script_skipped(action, error)
            return
        finally:
            self.scripting = False
        perform(self, checked)

    def _script_skipped(self, action: dict, error: ActionError) -> None:
        """Checked at load time already; what no longer applies now (the Pod is gone, the
        Deployment was deleted) is shown as a ``script`` transition, as a Pod scenario
        does: on the Pod it names when that Pod ran here, else on the focus Pod."""
        name = action.get("name")
        named = name if isinstance(name, str) and name in self.runs else None
        run = self.runs.get(named or "") or self._focus_run()
        if run is None:
            return  # no Pod was ever created: no Pod's history to show it in
        target = _action_target(action, run)
        run.transition("submitted" if run.node_name is None else "running", target,
                       "script", None, "skipped",
                       f"Scripted {action.get('action')} at {action.get('at', 0):g}s "
                       f"did not apply: {error.message}")  # fmt: skip

    def act(self, action: dict) -> dict | None:
        """Apply a user action now; ActionError (not logged) when it is invalid. Returns
        what the action answers (``exec``: its output), else None."""
        from webapp.engine.cluster_actions import perform, validate

        if len(self.actions) >= self.max_actions:
            raise ActionError("too_many_actions", {"limit": self.max_actions},
                              f"This run already has {self.max_actions} actions; "
                              "start it again to act further.")  # fmt: skip
        if self.clock.due_by(min(self.clock.now_ms, self.horizon_ms)):
            # A new run has not yet run its second 0; a replay has (it runs to each
            # action's `at`, then acts): catch up first, checking on a caught-up copy so
            # that a refused action still changes nothing (as in Simulation.act).
            twin = copy.deepcopy(self)
            twin._run_until(self.clock.now_ms)
            validate(twin, action)
            self._run_until(self.clock.now_ms)
        checked = validate(self, action)
        answer = perform(self, checked)
        self.actions.append({"at": self.now, **action})
        self._run_until(self.clock.now_ms)
        return answer

    # -- outputs --------------------------------------------------------------------------

    def focus(self, name: str | None) -> None:
        """Which Pod the single-Pod views show (None: the first one created)."""
        if name is not None and name not in self.runs:
            raise ActionError("unknown_pod", {"pod": name}, f'No Pod "{name}" in this run.')
        self.focus_name = name if name is not None else next(iter(self.runs), None)

    def _focus_run(self) -> PodRun | None:
        return self.runs.get(self.focus_name or "")

    def pod(self, name: str | None = None) -> dict | None:
        run = self.runs.get(name) if name is not None else self._focus_run()
        return None if run is None else run.pod()

    def objects(self, kind: str) -> list[dict]:
        """Every object of ``kind`` as ``kubectl get KIND -o json`` items show them."""
        if kind == "Pod":
            return [p for p in (run.pod() for run in self.live_runs()) if p is not None]
        if kind == "Deployment":
            return [copy.deepcopy(d) for d in self.deployments.values()]
        if kind == "ReplicaSet":
            return [copy.deepcopy(r) for r in self.replica_sets.values()]
        if kind == "Job":
            return [copy.deepcopy(j) for j in self.jobs.values()]
        if kind == "StatefulSet":
            return [copy.deepcopy(s) for s in self.stateful_sets.values()]
        if kind == "DaemonSet":
            return [copy.deepcopy(d) for d in self.daemon_sets.values()]
        if kind == "PodDisruptionBudget":
            return [copy.deepcopy(p) for p in self.pdbs.values()]
        if kind == "PersistentVolumeClaim":
            return [copy.deepcopy(c) for c in self.claims.values()]
        if kind == "PersistentVolume":
            return [copy.deepcopy(v) for v in self.volumes.values()]
        if kind == "StorageClass":
            return [storage_rules.storage_class(storage_rules.DEFAULT_CLASS)]
        if kind == "EndpointSlice":
            return self.endpoint_slices()
        if kind == "Node":
            return self.nodes()
        if kind == "Service":
            return list(self.services.values())
        if kind == "Event":
            return self.events()
        return []

    def traffic(self) -> dict | None:
        return None if self.traffic_client is None else self.traffic_client.totals()

    def events(self) -> list[dict]:
        return [dict(event) for event in self.recorder.items]

    def endpoint_slices(self) -> list[dict]:
        return [self._slices[name] for name in sorted(self._slices)]

    def nodes(self) -> list[dict]:
        return [state.obj for state in self.nodes_by_name.values()]

    @property
    def transitions(self) -> list[dict]:
        run = self._focus_run()
        return [] if run is None else run.transitions

    @property
    def pod_versions(self) -> list:
        run = self._focus_run()
        return [] if run is None else run.pod_versions

    @property
    def revision(self) -> int:
        run = self._focus_run()
        return 0 if run is None else run.revision

    def runs_extended_since(self, revision: int) -> list[dict]:
        run = self._focus_run()
        return [] if run is None else run.runs_extended_since(revision)

    def container_logs(self, name: str, *, previous: bool = False) -> list[list] | None:
        run = self._focus_run()
        return None if run is None else run.container_logs(name, previous=previous)

    def logs_by_container_id(self, pod: str | None = None) -> dict[str, list]:
        """The log lines of every container instance the runtime keeps, of Pod `pod`
        (default: the focus Pod)."""
        run = self.runs.get(pod) if pod is not None else self._focus_run()
        return {} if run is None else run.logs_by_container_id()

    def derived_containers(self) -> list[dict]:
        run = self._focus_run()
        return [] if run is None else run.derived_containers()

    def trace(self) -> dict:
        """JSON-able: every object, the Events, each Pod's transitions, the traffic."""
        return {
            "deployments": self.objects("Deployment"),
            "replicaSets": self.objects("ReplicaSet"),
            "jobs": self.objects("Job"),
            "statefulSets": self.objects("StatefulSet"),
            "daemonSets": self.objects("DaemonSet"),
            "podDisruptionBudgets": self.objects("PodDisruptionBudget"),
            "drains": {node: run.lines for node, run in self.drains.items()},
            "pods": {
                name: {"pod": run.pod(), "transitions": list(run.transitions)}
                for name, run in self.runs.items()
            },
            "events": self.events(),
            "endpointSlices": self.endpoint_slices(),
            "traffic": self.traffic(),
        }


WORKLOAD_RUNNER[0] = ClusterSimulation
