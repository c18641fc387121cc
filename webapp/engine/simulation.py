"""The ``Simulation``: one Pod in a tiny cluster, driven by a virtual clock.

The API server side lives here (the Pod object, resourceVersions and watch events,
deletion, the scheduler's binding, Services and their EndpointSlices, ConfigMaps, Secrets,
Nodes); the kubelet of the Pod's node lives in :mod:`kubelet`. After every clock event
the Pod object is rebuilt if something changed, a watch event is recorded and the changes
become transitions (see docs/internals.md).
"""

from __future__ import annotations

import random
import uuid
from datetime import datetime
from typing import Any

from webapp.engine import scheduler
from webapp.engine.actions import ActionError, perform_action, validate_action
from webapp.engine.api.events import NORMAL, WARNING, EventRecorder, ObjectReference
from webapp.engine.api.podutil import is_sidecar
from webapp.engine.api.quantity import memory_bytes
from webapp.engine.apiserver.defaults import (
    admit_service_account,
    apply_pod_defaults,
    pod_qos_class,
)
from webapp.engine.controllers import podgc
from webapp.engine.controllers.node_lifecycle import NodeState, with_node_defaults
from webapp.engine.core.clock import URGENT, Clock
from webapp.engine.core.pod_diff import endpoint_transitions, pod_transitions, readiness_cause
from webapp.engine.core.timefmt import rfc3339, to_ms, wall_time
from webapp.engine.core.transitions import TransitionLog, container_place
from webapp.engine.kubelet.conditions import mark_pod_not_ready, pod_conditions
from webapp.engine.kubelet.images import ImageRegistry
from webapp.engine.kubelet.kubelet import Kubelet
from webapp.engine.kubelet.phase import FAILED, SUCCEEDED, pod_phase
from webapp.engine.kubelet.runtime import ContainerInstance
from webapp.engine.kubelet.status import api_container_status, probe_started_ready
from webapp.engine.kubelet.termination import effective_grace_seconds

SCHEDULING_GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"
SCHEDULER_RETRY_MS = 300_000  # podMaxInUnschedulablePodsDuration: retried every 5 min
FIRST_RESOURCE_VERSION = 1000


class Simulation:
    """A deterministic run of one scenario. See docs/internals.md for the API."""

    def __init__(self, scenario: Any, seed: int = 0) -> None:
        self.scenario = scenario
        self.seed = seed
        self.rng = random.Random(seed)
        self.clock = Clock()
        self._log = TransitionLog()
        self.transitions: list[dict] = self._log.items
        self.recorder = EventRecorder()
        self.pod_versions: list[tuple[float, str, dict]] = []
        self.actions: list[dict] = []
        document = scenario.simulation
        self.behaviours: dict[str, dict] = document.get("containers") or {}
        self.images = ImageRegistry(document.get("images") or {}, self.rng)
        self.config_maps = {o["metadata"]["name"]: o for o in scenario.config_maps}
        self.secrets = {o["metadata"]["name"]: o for o in scenario.secrets}
        self.services = {o["metadata"]["name"]: o for o in scenario.services}
        nodes = list(scenario.nodes) or scheduler.default_nodes()
        self.nodes_by_name = {
            n["metadata"]["name"]: NodeState(with_node_defaults(n)) for n in nodes
        }
        self.uid = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
        self.pod_object_dict = self._create_pod_object(scenario.pod)
        self.node_name: str | None = None
        self.kubelet: Kubelet | None = None
        self.scheduled_condition: dict | None = None
        self.deletion_ms: int | None = None
        self.deletion_grace_seconds: int | None = None
        self.pod_removed = False
        self.start_time_ms: int | None = None
        self._kubelet_status: dict | None = None
        self._resource_version = FIRST_RESOURCE_VERSION
        self._dirty = True
        self._pod: dict | None = None
        self._slices: dict[str, dict] = {}
        self._terminal_phase: str | None = None
        self.rejected: dict | None = None  # the kubelet's admission rejected the Pod
        self.podgc_failed: dict | None = None  # PodGC's DisruptionTarget before deleting it
        self._gc_seen_ms: int | None = None
        self._submit()

    # -- construction -------------------------------------------------------------------

    @classmethod
    def from_yaml(cls, text: str, seed: int = 0) -> Simulation:
        from webapp.manifest import parse_scenario

        return cls(parse_scenario(text), seed=seed)

    @classmethod
    def from_scenario(cls, scenario: Any, seed: int = 0) -> Simulation:
        return cls(scenario, seed=seed)

    @classmethod
    def replay(cls, scenario: Any, actions: list[dict], until: float, seed: int = 0) -> Simulation:
        """Rebuild by re-running from t=0, applying each logged action at its time."""
        sim = cls(scenario, seed=seed)
        until_ms = to_ms(until)
        for action in actions:
            at_ms = to_ms(action.get("at", 0))
            if at_ms > until_ms:
                break
            sim._run_until(at_ms)
            sim.act({k: v for k, v in action.items() if k != "at"})
        sim._run_until(until_ms)
        return sim

    def _create_pod_object(self, pod: dict) -> dict:
        """The API server's create path: defaulting, then the mutating admission plugins
        (DefaultTolerationSeconds and Priority are plain defaults, see defaults.py;
        ServiceAccount needs a random volume-name suffix). The suffix comes from its own
        generator seeded from the simulation's seed, so it is reproducible and adding it
        did not shift the container IDs, IPs and digests drawn from ``self.rng``."""
        admission_rng = random.Random(f"{self.seed}/admission/serviceaccount")
        return admit_service_account(apply_pod_defaults(pod), admission_rng)

    def _submit(self) -> None:
        self._log.record(0, "submitted", self.pod_object, "phase", None, "Pending",
                         "The API server stored the Pod")  # fmt: skip
        if self.pod_spec.get("schedulingGates"):
            # applySchedulingGatedCondition (pkg/registry/core/pod/strategy.go)
            self.scheduled_condition = {"status": "False", "reason": "SchedulingGated",
                                        "message": SCHEDULING_GATED_MESSAGE}  # fmt: skip
        self._flush()
        if self.scheduled_condition is not None:
            gates = ", ".join(g.get("name", "") for g in self.pod_spec["schedulingGates"])
            self.transition("scheduling", self.pod_object, "conditions.PodScheduled", None,
                            "False", f"{SCHEDULING_GATED_MESSAGE}: {gates}")  # fmt: skip
        self.clock.schedule(0, self._schedule_attempt, URGENT)
        node_name = self.pod_spec.get("nodeName")
        if node_name and node_name not in self.nodes_by_name:
            self.clock.schedule(podgc.GC_CHECK_PERIOD_MS, self._pod_gc, URGENT)
        for action in self.scenario.simulation.get("script") or []:
            self.clock.schedule(to_ms(action.get("at", 0)), self._script_action(action), URGENT)

    def _script_action(self, action: dict):
        def run() -> None:
            payload = {k: v for k, v in action.items() if k != "at"}
            try:
                checked = validate_action(self, payload)
            except ActionError as error:
                # Checked at load time already; what no longer applies now (the Pod is
                # gone, the container is not running) is shown, never skipped in silence.
                obj = (
                    self.pod_object
                    if not payload.get("container")
                    else f"Container/{payload['container']}"
                )
                self.transition("submitted" if self.node_name is None else "running", obj,
                                "script", None, "skipped",
                                f"Scripted {payload.get('action')} at {action.get('at', 0):g}s "
                                f"did not apply: {error.message}", container=payload.get("container"))  # fmt: skip
                return
            perform_action(self, checked)

        return run

    # -- names --------------------------------------------------------------------------

    @property
    def pod_name(self) -> str:
        return self.pod_object_dict["metadata"]["name"]

    @property
    def namespace(self) -> str:
        return self.pod_object_dict["metadata"].get("namespace", "default")

    @property
    def pod_spec(self) -> dict:
        return self.pod_object_dict["spec"]

    @property
    def pod_object(self) -> str:
        return f"Pod/{self.pod_name}"

    @property
    def pod_format(self) -> str:
        """``format.Pod``: ``web_default(<uid>)``."""
        return f"{self.pod_name}_{self.namespace}({self.uid})"

    # -- clock --------------------------------------------------------------------------

    @property
    def now_ms(self) -> int:
        return self.clock.now_ms

    @property
    def now(self) -> float:
        return self.clock.now_ms / 1000

    def wall_time(self, t: float | None = None) -> datetime:
        return wall_time(self.clock.now_ms if t is None else to_ms(t))

    def advance(self, seconds: float) -> None:
        """Run every event due up to now + ``seconds``."""
        self._run_until(self.clock.now_ms + to_ms(seconds))

    def next_event_time(self) -> float | None:
        next_ms = self.clock.peek()
        return None if next_ms is None else next_ms / 1000

    def step(self) -> bool:
        """Advance to the next event time and run everything due then."""
        next_ms = self.clock.peek()
        if next_ms is None:
            return False
        self._run_until(next_ms)
        return True

    def _run_until(self, until_ms: int) -> None:
        clock = self.clock
        while True:
            next_ms = clock.peek()
            if next_ms is None or next_ms > until_ms:
                break
            clock.step()
            if self._dirty:
                self._flush()
        clock.now_ms = max(clock.now_ms, until_ms)

    # -- actions ------------------------------------------------------------------------

    def act(self, action: dict) -> None:
        """Apply a user action now; ActionError (not logged) when it is invalid."""
        checked = validate_action(self, action)
        perform_action(self, checked)
        self.actions.append({"at": self.now, **action})
        if self._dirty:
            self._flush()
        self._run_until(self.clock.now_ms)  # what reacts at once is visible at once

    # -- outputs ------------------------------------------------------------------------

    def pod(self) -> dict | None:
        """The Pod as ``kubectl get pod -o json`` shows it; None once it is gone."""
        if self._dirty:
            self._flush()
        return None if self.pod_removed else self._pod

    def events(self) -> list[dict]:
        return [dict(event) for event in self.recorder.items]

    def endpoint_slices(self) -> list[dict]:
        return [self._slices[name] for name in sorted(self._slices)]

    def nodes(self) -> list[dict]:
        return [state.obj for state in self.nodes_by_name.values()]

    def container_logs(self, name: str, *, previous: bool = False) -> list[list] | None:
        """The log lines ``[ms, "stdout"|"stderr", text]`` of the container's current (or,
        with ``previous``, its last terminated) instance; None when there is none."""
        if self.kubelet is None or name not in self.kubelet.by_name:
            return None
        instances = self.kubelet.by_name[name].instances
        index = 1 if previous else 0
        if len(instances) <= index or instances[index].process is None:
            return None
        return instances[index].process.log_lines()

    def logs_by_container_id(self) -> dict[str, list]:
        """Every container instance the runtime still keeps (the current and the previous
        one of each container): container ID -> its log lines ``[ms, stream, text]``."""
        found: dict[str, list] = {}
        if self.kubelet is None:
            return found
        for record in self.kubelet.records:
            for instance in record.instances:
                if instance.process is not None:
                    found[instance.container_id] = instance.process.log_lines()
        return found

    def derived_containers(self) -> list[dict]:
        """What the process model derived for each container, in spec order: name, kind
        ("init" | "sidecar" | "app"), image, argv, and the programs.Derived itself."""
        from webapp.engine.programs import derive

        spec = self.pod_spec
        found = []
        for key in ("initContainers", "containers"):
            for container in spec.get(key) or []:
                kind = (
                    "app"
                    if key == "containers"
                    else ("sidecar" if is_sidecar(container) else "init")
                )
                derived = None
                if self.kubelet is not None:
                    derived = self.kubelet.processes.derived.get(container["name"])
                if derived is None:
                    env = {
                        e["name"]: str(e["value"])
                        for e in container.get("env") or []
                        if "value" in e
                    }
                    derived = derive(container, env)
                behaviour = self.behaviours.get(container["name"]) or {}
                found.append({"name": container["name"], "kind": kind, "image": container.get("image", ""),
                              "derived": derived, "overrides": list(behaviour.get("explicit") or [])})  # fmt: skip
        return found

    def trace(self) -> dict:
        return {
            "pod": self.pod(),
            "events": self.events(),
            "transitions": self.transitions,
            "endpointSlices": self.endpoint_slices(),
        }

    # -- hooks for the kubelet and the controllers --------------------------------------

    def mark_dirty(self) -> None:
        self._dirty = True

    def transition(self, step: str, obj: str, field: str, before: Any, after: Any, cause: str,
                   *, container: str | None = None, stage: int | None = None,
                   seconds: float | None = None) -> None:  # fmt: skip
        deleting = self.deletion_ms is not None
        if stage is None and container is not None and obj.startswith("Container/"):
            stopping = self.kubelet is not None and self.kubelet.stopping
            step, stage = container_place(step, self.container_kind(container),
                                          deleting=deleting, stopping=stopping)  # fmt: skip
        elif stage is None and deleting:
            stage = 5
        self._log.record(self.clock.now_ms, step, obj, field, before, after, cause,
                         container=container, stage=stage, seconds=seconds)  # fmt: skip

    def container_kind(self, name: str) -> str:
        """The kind of a container of the Pod's spec: init, sidecar or app."""
        for container in self.pod_spec.get("initContainers") or []:
            if container.get("name") == name:
                return "sidecar" if is_sidecar(container) else "init"
        return "app"

    def pod_event(self, event_type: str, reason: str, message: str, *, component: str,
                  host: str = "", field_path: str = "", with_uid: bool = True) -> None:  # fmt: skip
        uid = self.uid if with_uid else ""
        ref = ObjectReference("Pod", self.pod_name, self.namespace, uid, field_path=field_path)
        self.recorder.record(self.clock.now_ms, ref, event_type, reason, message,
                             component=component, host=host)  # fmt: skip

    def node_up(self, name: str) -> bool:
        state = self.nodes_by_name.get(name)
        return state is not None and state.kubelet_up

    def node_images(self, name: str) -> dict[str, str]:
        return self.nodes_by_name[name].images

    def allocate_pod_ip(self) -> str:
        node = self.nodes_by_name[self.node_name or ""].obj
        cidr = ((node.get("spec") or {}).get("podCIDR")) or "10.244.1.0/24"
        prefix = cidr.split("/")[0].rsplit(".", 1)[0]
        return f"{prefix}.{self.rng.randint(2, 254)}"

    def memory_limit_bytes(self, container: dict) -> int | None:
        limit = ((container.get("resources") or {}).get("limits") or {}).get("memory")
        return None if limit is None else memory_bytes(limit)

    def runtime_start(self, instance: ContainerInstance) -> None:
        self.mark_dirty()

    def runtime_exit(self, instance: ContainerInstance) -> None:
        """The runtime saw a process end: record signals and the exit itself."""
        obj = f"Container/{instance.name}"
        if instance.signal == "SIGKILL":
            self.transition("sigkill", obj, "signal", "SIGTERM", "SIGKILL",
                            "Grace period over: SIGKILL", container=instance.name)  # fmt: skip
        self.transition(
            "exit", obj, "runtime", "running", "exited",
            f"Process exited with code {instance.exit_code} ({instance.reason})",
            container=instance.name,
        )  # fmt: skip
        self.mark_dirty()

    def kubelet_grace_seconds(self) -> int:
        spec_grace = int(self.pod_spec.get("terminationGracePeriodSeconds", 30))
        return effective_grace_seconds(self.deletion_grace_seconds, spec_grace)

    # -- scheduler ----------------------------------------------------------------------

    def _schedule_attempt(self) -> None:
        """``scheduleOne``: bind to a node, or FailedScheduling and wait for a change."""
        if self.node_name or self.pod_removed or self.deletion_ms is not None:
            return
        if self.pod_spec.get("schedulingGates"):
            return  # the SchedulingGates PreEnqueue plugin keeps it out of the queue: no event
        if self.pod_spec.get("nodeName"):
            self._assigned()  # spec.nodeName: never queued, the kubelet of that node takes it
            return
        nodes = [state.obj for state in self.nodes_by_name.values()]
        result = scheduler.schedule(self.pod_object_dict, nodes)
        if result.node_name is None:
            self.scheduled_condition = {"status": "False", "reason": "Unschedulable",
                                        "message": result.message}  # fmt: skip
            self.pod_event(
                WARNING, "FailedScheduling", result.message, component="default-scheduler"
            )
            self.transition("scheduling", self.pod_object, "conditions.PodScheduled", None,
                            "False", result.message)  # fmt: skip
            self.clock.after(SCHEDULER_RETRY_MS, self._schedule_attempt, URGENT)
            self.mark_dirty()
            return
        self.bind(result.node_name)

    def retry_scheduling(self) -> None:
        if self.node_name is None and (
            self.scheduled_condition is not None or self.pod_spec.get("nodeName")
        ):
            self.clock.after(0, self._schedule_attempt, URGENT)

    def _assigned(self) -> None:
        """A Pod created with ``spec.nodeName``: no scheduler, no Scheduled event. When the
        node exists its kubelet admits the Pod (or rejects it, ``lifecycle/predicate.go``
        Admit); when it does not, the Pod stays Pending until PodGC removes it."""
        node_name = self.pod_spec["nodeName"]
        state = self.nodes_by_name.get(node_name)
        if state is None:
            return
        self.node_name = node_name
        self.mark_dirty()
        rejection = scheduler.admission_failure(self.pod_object_dict, state.obj)
        if rejection is not None:
            reason, message = rejection
            self.rejected = {"reason": reason, "message": f"Pod was rejected: {message}"}
            self.pod_event(WARNING, reason, message, component="kubelet", host=node_name)
            self.transition("kubelet", self.pod_object, "admission", None, "rejected",
                            f"The kubelet on {node_name} rejected the Pod: {message}")  # fmt: skip
            self.start_time_ms = None
            self._flush()
            return
        self.scheduled_condition = {"status": "True"}
        self.transition("kubelet", self.pod_object, "spec.nodeName", None, node_name,
                        f"spec.nodeName is {node_name}: no scheduler, its kubelet takes the Pod")  # fmt: skip
        self.kubelet = Kubelet(self, node_name)
        self.clock.after(0, self.kubelet_admits, URGENT)

    def _pod_gc(self) -> None:
        """PodGC ``gcOrphaned`` (every 20 s): a Pod bound to a node that does not exist is
        quarantined 40 s, then marked Failed (DisruptionTarget) and force-deleted."""
        if self.pod_removed:
            return
        node_name = self.pod_spec.get("nodeName")
        orphan = bool(node_name) and node_name not in self.nodes_by_name and self.kubelet is None
        if not orphan:
            return  # the node exists (it was applied): nothing left for PodGC to do
        if self._gc_seen_ms is None:
            self._gc_seen_ms = self.clock.now_ms
        elif self.clock.now_ms - self._gc_seen_ms >= podgc.QUARANTINE_MS:
            self.podgc_failed = podgc.disruption_condition(rfc3339(self.clock.now_ms))
            self.mark_dirty()
            self._flush()
            self.delete_pod(0, force=True, cause=podgc.DELETE_CAUSE)
            return
        self.clock.after(podgc.GC_CHECK_PERIOD_MS, self._pod_gc, URGENT)

    def bind(self, node_name: str) -> None:
        """The binding subresource: nodeName and PodScheduled=True; the kubelet takes over."""
        self.node_name = node_name
        self.pod_object_dict["spec"] = dict(self.pod_spec, nodeName=node_name)
        self.scheduled_condition = {"status": "True"}
        self.pod_event(NORMAL, "Scheduled",
                       f"Successfully assigned {self.namespace}/{self.pod_name} to {node_name}",
                       component="default-scheduler")  # fmt: skip
        self.transition("scheduled", self.pod_object, "spec.nodeName", None, node_name,
                        f"Scheduled to {node_name}")  # fmt: skip
        self.mark_dirty()
        self.kubelet = Kubelet(self, node_name)
        self.clock.after(0, self.kubelet_admits, URGENT)

    def kubelet_admits(self) -> None:
        if self.kubelet is None or not self.node_up(self.kubelet.node_name):
            return
        self.start_time_ms = self.clock.now_ms
        self.transition("kubelet", self.pod_object, "status.startTime", None,
                        rfc3339(self.start_time_ms), f"Kubelet on {self.node_name} admitted the Pod")  # fmt: skip
        self.kubelet.request_sync()

    # -- deletion -----------------------------------------------------------------------

    def delete_pod(
        self, grace_seconds: int | None, *, force: bool = False, cause: str = ""
    ) -> None:
        """``CheckGracefulDelete`` and the registry: deletionTimestamp, or removal at once."""
        if self.deletion_ms is not None:
            self._delete_again(grace_seconds, cause)
            return
        spec_grace = int(self.pod_spec.get("terminationGracePeriodSeconds", 30))
        grace = spec_grace if grace_seconds is None else max(0, int(grace_seconds))
        phase = (self._pod or {}).get("status", {}).get("phase")
        if self.node_name is None or phase in (SUCCEEDED, FAILED):
            grace = 0
        self.deletion_grace_seconds = grace
        self.deletion_ms = self.clock.now_ms
        self.mark_dirty()
        if grace == 0:
            self._flush()
            self.remove_pod(cause or "Deleted with grace period 0")
            if self.kubelet is not None and not self.kubelet.terminal:
                self.kubelet.pod_deleted()
            return
        self._flush()
        if self.kubelet is not None:
            self.kubelet.pod_deleted()

    def _delete_again(self, grace_seconds: int | None, cause: str) -> None:
        """``rest.BeforeDelete`` on an object already being deleted: only a shorter grace
        counts. deletionTimestamp moves to first deletion + new grace (it may already be
        past); a new grace of 0 (force) removes the object at once."""
        current = self.deletion_grace_seconds or 0
        if grace_seconds is None or max(0, int(grace_seconds)) >= current:
            return  # graceful deletion is pending: nothing changes
        grace = max(0, int(grace_seconds))
        self.deletion_grace_seconds = grace
        self.mark_dirty()
        self._flush()
        self.transition("grace", self.pod_object, "metadata.deletionGracePeriodSeconds",
                        current, grace, f"{cause or 'Deleted again'}: grace period shortened "
                        f"from {current}s to {grace}s", stage=5)  # fmt: skip
        if grace == 0:
            self.remove_pod(cause or "Deleted with grace period 0")
        if self.kubelet is not None:
            self.kubelet.pod_deleted()

    def kubelet_finished_pod(self) -> None:
        """The kubelet stopped every container: final status, then the object is deleted."""
        self._flush()
        if not self.pod_removed:
            self.remove_pod("All containers stopped; the kubelet removed the Pod")

    def remove_pod(self, cause: str) -> None:
        if self.pod_removed:
            return
        self._flush()
        self.pod_removed = True
        self._resource_version += 1
        last = self._pod
        self.pod_versions.append((self.now, "DELETED", last))
        self.transition("removed", self.pod_object, "exists", True, False, cause, stage=5)
        phase = (last or {}).get("status", {}).get("phase")
        self.transition("outcome", self.pod_object, "outcome", phase, "removed",
                        "The Pod object is gone from the API", stage=5)  # fmt: skip
        self._update_endpoints(None)

    # -- status -------------------------------------------------------------------------

    def _flush(self) -> None:
        """Rebuild the Pod if needed; on change bump resourceVersion and log transitions."""
        self._dirty = False
        if self.pod_removed:
            return
        pod = self._build_pod()
        old = self._pod
        if old is not None and pod == old:
            return
        self._resource_version += 1
        pod["metadata"]["resourceVersion"] = str(self._resource_version)
        self._pod = pod
        self.pod_versions.append((self.now, "ADDED" if old is None else "MODIFIED", pod))
        items = pod_transitions(self, old, pod) if old is not None else []
        for item in items:
            self.transition(**item)
        self._update_endpoints(pod, readiness_cause(items))

    def _build_pod(self) -> dict:
        source = self.pod_object_dict
        metadata = {k: v for k, v in source["metadata"].items() if k not in ("resourceVersion",)}
        metadata["uid"] = self.uid
        metadata["resourceVersion"] = str(self._resource_version)
        metadata["creationTimestamp"] = rfc3339(0)
        if self.deletion_ms is not None:
            metadata["deletionTimestamp"] = rfc3339(
                self.deletion_ms + self.deletion_grace_seconds * 1000
            )
            metadata["deletionGracePeriodSeconds"] = self.deletion_grace_seconds
        metadata = dict(sorted(metadata.items()))
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": metadata,
            "spec": source["spec"],
            "status": self._build_status(),
        }

    def _build_status(self) -> dict:
        kubelet = self.kubelet
        if self.rejected is not None:
            # rejectPod: only the phase, reason and message (and the QoS class)
            return {"phase": "Failed", "reason": self.rejected["reason"],
                    "message": self.rejected["message"], "qosClass": pod_qos_class(self.pod_object_dict)}  # fmt: skip
        if self.podgc_failed is not None and kubelet is None:
            return {"phase": "Failed", "conditions": [self.podgc_failed, self._scheduler_condition()]
                    if self.scheduled_condition is not None else [self.podgc_failed],
                    "qosClass": pod_qos_class(self.pod_object_dict)}  # fmt: skip
        if (
            kubelet is None
            or self.start_time_ms is None
            or all(r.snapshot is None for r in kubelet.records)
        ):
            status: dict = {"phase": "Pending"}
            if self.scheduled_condition is not None:
                status["conditions"] = [self._scheduler_condition()]
            status["qosClass"] = pod_qos_class(self.pod_object_dict)
            return status
        if not self.node_up(kubelet.node_name) and self._kubelet_status is not None:
            return self._kubelet_status  # the kubelet cannot post; the controller may patch
        self._kubelet_status = self._generate_kubelet_status(kubelet)
        return self._kubelet_status

    def _scheduler_condition(self) -> dict:
        """PodScheduled as the scheduler (False, Unschedulable) or the binding (True) set it."""
        wanted = self.scheduled_condition or {}
        for condition in self._previous_conditions():
            same = condition["type"] == "PodScheduled" and condition["status"] == wanted["status"]
            if same and condition.get("message") == wanted.get("message"):
                return condition
        condition = {"type": "PodScheduled", "status": wanted["status"], "lastProbeTime": None,
                     "lastTransitionTime": rfc3339(self.clock.now_ms)}  # fmt: skip
        for key in ("reason", "message"):
            if wanted.get(key):
                condition[key] = wanted[key]
        return condition

    def _previous_conditions(self) -> list[dict]:
        return list(((self._pod or {}).get("status") or {}).get("conditions") or [])

    def _generate_kubelet_status(self, kubelet: Kubelet) -> dict:
        """``generateAPIPodStatus`` plus the prober's started / ready."""
        init_statuses, statuses = [], []
        for record in kubelet.records:
            if record.snapshot is None:
                continue
            started, ready = probe_started_ready(
                record.snapshot,
                regular_init=record.kind == "init",
                startup_result=record.result("startup"),
                readiness_result=record.result("readiness"),
            )
            status = api_container_status(record.snapshot, started=started, ready=ready)
            (statuses if record.kind == "app" else init_statuses).append(status)
        probe_pod = {"metadata": self.pod_object_dict["metadata"], "spec": self.pod_spec,
                     "status": {"initContainerStatuses": init_statuses,
                                "containerStatuses": statuses,
                                "conditions": self._previous_conditions()}}  # fmt: skip
        phase = pod_phase(
            probe_pod, pod_is_terminal=kubelet.terminal, pod_has_initialized=kubelet.initialized
        )
        if self._terminal_phase is not None:
            phase = self._terminal_phase  # terminal phases are sticky (§1.6)
        elif phase in (SUCCEEDED, FAILED):
            self._terminal_phase = phase
        conditions = pod_conditions(
            probe_pod, phase=phase, sandbox_ready=kubelet.sandbox_ready,
            scheduled={"status": "True"}, previous=self._previous_conditions(),
            now=rfc3339(self.clock.now_ms),
        )  # fmt: skip
        node = self.nodes_by_name[kubelet.node_name].obj
        host_ip = _internal_ip(node)
        status = {"phase": phase, "conditions": conditions, "hostIP": host_ip,
                  "hostIPs": [{"ip": host_ip}]}  # fmt: skip
        if kubelet.pod_ip:
            status["podIP"] = kubelet.pod_ip
            status["podIPs"] = [{"ip": kubelet.pod_ip}]
        status["startTime"] = rfc3339(self.start_time_ms or 0)
        if init_statuses:
            status["initContainerStatuses"] = init_statuses
        status["containerStatuses"] = statuses
        status["qosClass"] = pod_qos_class(self.pod_object_dict)
        return status

    def mark_pod_not_ready(self) -> None:
        """MarkPodsNotReady on our Pod: only the Ready condition flips to False."""
        if self._kubelet_status is None or self.pod_removed:
            return
        status = dict(self._kubelet_status)
        status["conditions"] = mark_pod_not_ready(
            status.get("conditions") or [], rfc3339(self.now_ms)
        )
        # Container statuses are left alone: MarkPodsNotReady (controller_utils.go) touches
        # only the Ready condition and the kubelet that owns containerStatuses is gone, so
        # kubectl's READY (counted from containerStatuses[].ready) keeps showing 1/1.
        # KUBERNETES-SEMANTICS §12.3 says "READY 0/N"; the source it cites says otherwise.
        self._kubelet_status = status
        self.mark_dirty()

    # -- endpoints ----------------------------------------------------------------------

    def _update_endpoints(self, pod: dict | None, container: str | None = None) -> None:
        if not self.services:
            return
        from webapp.engine.controllers.endpoints import endpoint_slice

        for name, service in self.services.items():
            new = endpoint_slice(service, pod)
            old = self._slices.get(name)
            if new == old:
                continue
            self._slices[name] = new
            for item in endpoint_transitions(old, new, container):
                self.transition(**item)

    def update_services(self) -> None:
        self._update_endpoints(None if self.pod_removed else self._pod)


def _internal_ip(node: dict) -> str:
    for address in (node.get("status") or {}).get("addresses") or []:
        if address.get("type") == "InternalIP":
            return address.get("address", "")
    return "10.0.0.11"
