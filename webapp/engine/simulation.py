"""The ``Simulation``: one Pod in a tiny cluster, driven by a virtual clock.

The API server side lives here (the Pod object, resourceVersions and watch events,
deletion, the scheduler's binding, Services and their EndpointSlices, ConfigMaps, Secrets,
Nodes); the kubelet of the Pod's node lives in :mod:`kubelet`. After every clock event
the Pod object is rebuilt if something changed, a watch event is recorded and the changes
become transitions (see docs/internals.md).
"""

from __future__ import annotations

import copy
import math
import random
import uuid
from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Any

from webapp.engine import scheduler
from webapp.engine.actions import ActionError, perform_action, validate_action
from webapp.engine.api.events import NORMAL, WARNING, EventRecorder, ObjectReference
from webapp.engine.api.podutil import is_sidecar, update_pod_condition
from webapp.engine.api.quantity import memory_bytes
from webapp.engine.apiserver.defaults import (
    admit_service_account,
    apply_pod_defaults,
    pod_qos_class,
)
from webapp.engine.apiserver.deletion import (
    before_delete,
    before_delete_again,
    check_graceful_delete,
)
from webapp.engine.checkpoint import Checkpoint, CheckpointStore
from webapp.engine.checkpoint import restore as restore_checkpoint
from webapp.engine.checkpoint import take as take_checkpoint
from webapp.engine.controllers import podgc
from webapp.engine.controllers.node_lifecycle import NodeState, with_node_defaults
from webapp.engine.core.clock import URGENT, Clock
from webapp.engine.core.pod_diff import endpoint_transitions, pod_transitions, readiness_cause
from webapp.engine.core.timefmt import rfc3339, to_ms, wall_time
from webapp.engine.core.transitions import STAGE_OF_STEP, TransitionLog, container_place
from webapp.engine.core.versions import VersionLog
from webapp.engine.kubelet.coasting import coast
from webapp.engine.kubelet.conditions import mark_pod_not_ready, pod_conditions
from webapp.engine.kubelet.images import ImageRegistry
from webapp.engine.kubelet.kubelet import Kubelet
from webapp.engine.kubelet.phase import FAILED, SUCCEEDED, pod_phase
from webapp.engine.kubelet.probes import ProbeWorker
from webapp.engine.kubelet.runtime import ContainerInstance
from webapp.engine.kubelet.status import api_container_status, probe_started_ready
from webapp.engine.kubelet.termination import effective_grace_seconds
from webapp.manifest import DEFAULT_HORIZON_SECONDS, ScenarioError, parse_scenario
from webapp.manifest.errors import located_error

SCHEDULING_GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"
SCHEDULER_RETRY_MS = 300_000  # podMaxInUnschedulablePodsDuration: retried every 5 min
FIRST_RESOURCE_VERSION = 1000
# The user's action log is at most this long (as a share link's): replaying it stays cheap.
MAX_ACTIONS = 1000
# What runs a scenario of workloads: engine/cluster.py registers its ClusterSimulation here
# when imported (webapp.engine imports it), so this module never imports it.
WORKLOAD_RUNNER: list[Any] = [None]


class Simulation:
    """A deterministic run of one scenario. See docs/internals.md for the API."""

    max_actions = MAX_ACTIONS
    # Steady probe ticks are done many at once (kubelet/coasting.py), with the same result as
    # one by one; False runs every tick on its own (the tests compare both).
    coasting = True

    def __init__(
        self, scenario: Any, seed: int = 0, horizon: float = DEFAULT_HORIZON_SECONDS
    ) -> None:
        init_run(self, scenario, seed, horizon)
        self._init_pod(scenario.pod)
        self._submit()

    def __new__(cls, scenario: Any = None, *args: Any, **kwargs: Any) -> Any:
        """A scenario of workloads (Deployments, ReplicaSets) runs as a ClusterSimulation
        (engine/cluster.py), which has the same API; a Pod scenario runs here."""
        if cls is Simulation and getattr(scenario, "workloads", ()):
            if WORKLOAD_RUNNER[0] is None:
                raise ValueError("workload scenarios need webapp.engine.cluster imported")
            return WORKLOAD_RUNNER[0](scenario, *args, **kwargs)
        return super().__new__(cls)

    def _init_pod(self, pod: dict, created_ms: int = 0) -> None:
        """The state of one Pod and its kubelet: a scenario's Pod, or (engine/cluster.py) a
        Pod a controller created at ``created_ms``."""
        self.created_ms = created_ms
        self._log = TransitionLog()
        self.transitions: Any = self._log.items  # a RecordLog (core/transitions.py)
        # (t, event type, Pod) per change, older ones packed (core/versions.py)
        self.pod_versions: Any = VersionLog()
        self.uid = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
        self.pod_object_dict = self._create_pod_object(pod)
        self.node_name: str | None = None
        self.kubelet: Kubelet | None = None
        self.scheduled_condition: dict | None = None
        self.deletion_ms: int | None = None
        self.deletion_grace_seconds: int | None = None
        self.deletion_timestamp_ms: int | None = None
        self.pod_removed = False
        self.start_time_ms: int | None = None
        self._kubelet_status: dict | None = None
        self._resource_version = FIRST_RESOURCE_VERSION
        self._dirty = True
        self._pod: dict | None = None
        self._slices: dict[str, dict] = {}
        self._terminal_phase: str | None = None
        self._qos: tuple[dict, str] | None = None
        self._coast_misses = 0  # coasting tries that found nothing steady, in a row (at most 6)
        self._coast_wait = 0  # probe instants to let pass before trying again
        self.checkpoints: CheckpointStore | None = None  # where to keep checkpoints, if anywhere
        self.checkpoint_mark: tuple[int, int] | None = None  # (ms, clock steps) of the last one
        self.rejected: dict | None = None  # the kubelet's admission rejected the Pod
        self.podgc_failed: dict | None = None  # PodGC's DisruptionTarget before deleting it
        # conditions the API server or a controller set (DisruptionTarget before an eviction)
        self.api_conditions: list[dict] = []
        self._gc_seen_ms: int | None = None

    # -- construction -------------------------------------------------------------------

    @classmethod
    def from_yaml(
        cls, text: str, seed: int = 0, horizon: float = DEFAULT_HORIZON_SECONDS
    ) -> Simulation:
        return cls(parse_scenario(text, horizon=horizon), seed=seed, horizon=horizon)

    @classmethod
    def from_scenario(
        cls, scenario: Any, seed: int = 0, horizon: float = DEFAULT_HORIZON_SECONDS
    ) -> Simulation:
        return cls(scenario, seed=seed, horizon=horizon)

    @classmethod
    def replay(
        cls,
        scenario: Any,
        actions: list[dict],
        until: float,
        seed: int = 0,
        horizon: float = DEFAULT_HORIZON_SECONDS,
        checkpoints: CheckpointStore | None = None,
    ) -> Simulation:
        """Rebuild by re-running from t=0, applying each logged action at its time (never
        past the horizon: later actions are not applied). With ``checkpoints``, resume from
        the latest one that fits instead (the result is the same, only faster), and keep
        offering the store checkpoints while running."""
        horizon_ms = to_ms(horizon)
        until_ms = min(to_ms(until), horizon_ms)
        start = None
        if checkpoints is not None:
            start = checkpoints.best(scenario, actions, until_ms, seed, horizon_ms)
        if start is not None:
            sim = restore_checkpoint(start)
            actions = actions[len(start.actions) :]
            sim.checkpoints = checkpoints
            checkpoints.adopt(sim)
        else:
            sim = cls(scenario, seed=seed, horizon=horizon)
            sim.checkpoints = checkpoints
        until_ms = min(until_ms, sim.horizon_ms)
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
        self._log.record(self.created_ms, "submitted", self.pod_object, "phase", None, "Pending",
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
        for action in self._own_script():
            self.clock.schedule(to_ms(action.get("at", 0)), self._script_action(action), URGENT)

    def _own_script(self) -> list[dict]:
        """The scripted actions this run schedules (a cluster's Pods leave them to it)."""
        return self.scenario.simulation.get("script") or []

    def _script_action(self, action: dict):
        return partial(self._run_script_action, action)

    def _run_script_action(self, action: dict) -> None:
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
        """Run every event due up to now + ``seconds`` (at most up to the horizon)."""
        self._run_until(self.clock.now_ms + to_ms(seconds))

    def advance_to(self, t: float, stop: Callable[[], bool] | None = None) -> bool:
        """Run towards virtual second ``t`` (at most the horizon), returning early when
        ``stop()`` says so; True when the run is at ``t``, False when it stopped short (call
        again to go on). ``stop`` is asked only between two instants, once every event due
        at the current one has run, and only after at least one event ran (so every call
        makes progress), so a run advanced in many slices is exactly the run
        advanced at once (tests/unit/test_advance_slices.py compares them event for event)."""
        return self._run_until(max(self.clock.now_ms, to_ms(t)), stop)

    def next_event_time(self) -> float | None:
        """Virtual second of the next queued event, None when nothing is queued before the
        horizon."""
        next_ms = self.clock.peek()
        return None if next_ms is None or next_ms > self.horizon_ms else next_ms / 1000

    def step(self) -> bool:
        """Advance to the next event time and run everything due then; False when nothing
        is queued before the horizon."""
        next_ms = self.clock.peek()
        if next_ms is None or next_ms > self.horizon_ms:
            return False
        self._run_until(next_ms)
        return True

    @property
    def horizon(self) -> float:
        """The last virtual second this run can reach: nothing runs after it."""
        return self.horizon_ms / 1000

    def _run_until(self, until_ms: int, stop: Callable[[], bool] | None = None) -> bool:
        until_ms = min(until_ms, self.horizon_ms)
        clock = self.clock
        tried = None
        moved = False  # a stopped call still runs at least one instant: slices always progress
        while True:
            next_ms = clock.peek()
            if next_ms is None or next_ms > until_ms:
                break
            if stop is not None and moved and next_ms > clock.now_ms and stop():
                # Between two instants: the next call starts exactly where this one would
                # have gone on (coasting is tried afresh at a new instant either way).
                return False
            if self.coasting and next_ms != tried and self.kubelet is not None:
                timer = clock.peek_timer()
                if timer is not None and isinstance(timer.tag, ProbeWorker):
                    tried = next_ms  # one try per instant: steady ticks are done at once
                    if self._coast_wait > 0:
                        self._coast_wait -= 1
                    elif coast(self.kubelet, clock, until_ms):
                        self._coast_misses = 0
                        if self.checkpoints is not None:
                            self.checkpoints.offer(self)
                        continue
                    else:  # not steady now: try again after a few instants, fewer if it misses
                        self._coast_misses = min(self._coast_misses + 1, 6)
                        self._coast_wait = 2**self._coast_misses
            clock.step()
            moved = True
            if self._dirty:
                self._flush()
            if self.checkpoints is not None:
                self.checkpoints.offer(self)
        clock.now_ms = max(clock.now_ms, until_ms)
        if self.checkpoints is not None:
            self.checkpoints.offer(self)
        return True

    # -- actions ------------------------------------------------------------------------

    def checkpoint(self) -> Checkpoint | None:
        """This run's whole state now, to resume from (None while a kubelet step is under
        way: engine/checkpoint.py)."""
        return take_checkpoint(self)

    @classmethod
    def restore(cls, checkpoint: Checkpoint) -> Simulation:
        """A new run in the checkpoint's state; it runs on exactly as the original would."""
        return restore_checkpoint(checkpoint)

    def act(self, action: dict) -> dict | None:
        """Apply a user action now; ActionError (not logged) when it is invalid. A refused
        action changes nothing: every check runs before the first change. Returns what the
        action answers (``exec``: its output), else None."""
        if len(self.actions) >= self.max_actions:
            raise ActionError("too_many_actions", {"limit": self.max_actions},
                              f"This run already has {self.max_actions} actions; "
                              "start it again to act further.")  # fmt: skip
        if self.clock.due_by(min(self.clock.now_ms, self.horizon_ms)):
            # A new run has not yet run what is due at its second 0; a replay always has
            # (it runs to each action's `at`, then acts). Catch up first, so that live and
            # every replay agree; check the action on a caught-up copy before, so that a
            # refused one still changes nothing.
            twin = restore_checkpoint(take_checkpoint(self))
            twin._run_until(self.clock.now_ms)
            validate_action(twin, action)
            self._run_until(self.clock.now_ms)
        checked = validate_action(self, action)
        answer = perform_action(self, checked)
        self.actions.append({"at": self.now, **action})
        if self._dirty:
            self._flush()
        self._run_until(self.clock.now_ms)  # what reacts at once is visible at once
        return answer

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

    @property
    def revision(self) -> int:
        """A counter that moves whenever ``transitions`` changes: a new item or a longer run."""
        return self._log.revision

    @property
    def events_revision(self) -> int:
        """A counter that moves whenever ``events()`` changes (a repeat only bumps a count,
        with no transition: a cache keyed on ``revision`` alone would miss it)."""
        return self.recorder.revision

    def runs_extended_since(self, revision: int) -> list[dict]:
        """The transitions whose ``repeat`` grew after ``revision`` (by seq)."""
        return self.transitions.pick(sorted(self._log.extended_since(revision)))

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
            "transitions": list(self.transitions),
            "endpointSlices": self.endpoint_slices(),
        }

    # -- hooks for the kubelet and the controllers --------------------------------------

    def mark_dirty(self) -> None:
        self._dirty = True

    def transition(self, step: str, obj: str, field: str, before: Any, after: Any, cause: str,
                   *, container: str | None = None, stage: int | None = None,
                   seconds: float | None = None) -> None:  # fmt: skip
        if stage is None:
            step, stage = self._place(step, obj, container)
        self._log.record(self.clock.now_ms, step, obj, field, before, after, cause,
                         container=container, stage=stage, seconds=seconds)  # fmt: skip

    def _place(self, step: str, obj: str, container: str | None) -> tuple[str, int | None]:
        """(step, stage) of a transition whose stage the caller left to the Simulation."""
        deleting = self.deletion_ms is not None
        if container is not None and obj.startswith("Container/"):
            stopping = self.kubelet is not None and self.kubelet.stopping
            return container_place(step, self.container_kind(container),
                                   deleting=deleting, stopping=stopping)  # fmt: skip
        return step, (5 if deleting else None)

    def run_continues(self, step: str, obj: str, field: str, result: str, cause: str,
                      container: str, first_ms: int, period_ms: int) -> bool:  # fmt: skip
        """Would the transition ``transition(step, obj, field, result, result, cause)`` at
        ``first_ms`` only lengthen the open run of (obj, field), one period after its last?"""
        run = self._log.run_of(obj, field)
        if run is None or run[2] != period_ms or run[1] + period_ms != first_ms:
            return False
        step, stage = self._place(step, obj, container)
        item = run[0]
        stage = stage if stage is not None else STAGE_OF_STEP[step]
        return (item["before"], item["after"], item["cause"], item["step"], item["stage"],
                item["container"]) == (result, result, cause, step, stage, container)  # fmt: skip

    def extend_run(self, obj: str, field: str, count: int, last_ms: int) -> None:
        self._log.extend_run(obj, field, count, last_ms)

    def pod_event_seen(self, event_type: str, reason: str, message: str, *, component: str,
                       host: str = "", field_path: str = "") -> bool:  # fmt: skip
        ref = ObjectReference("Pod", self.pod_name, self.namespace, self.uid, field_path=field_path)
        return self.recorder.seen(ref, event_type, reason, message,
                                  component=component, host=host) is not None  # fmt: skip

    def pod_event_again(self, event_type: str, reason: str, message: str, count: int, ms: int,
                        *, component: str, host: str = "", field_path: str = "") -> None:  # fmt: skip
        ref = ObjectReference("Pod", self.pod_name, self.namespace, self.uid, field_path=field_path)
        event = self.recorder.seen(ref, event_type, reason, message, component=component, host=host)
        assert event is not None
        self.recorder.again(event, count, ms)

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
        if instance.signal == "SIGKILL" and instance.sigterm_ms is not None:
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
        result = self._pick_node()
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

    def _pick_node(self) -> scheduler.ScheduleResult:
        """The scheduler's choice among the nodes (a cluster's Pods also spread, cluster.py)."""
        nodes = [state.obj for state in self.nodes_by_name.values()]
        return scheduler.schedule(self.pod_object_dict, nodes)

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
        """``CheckGracefulDelete`` and ``BeforeDelete``: deletionTimestamp, or removal at once
        (the Go arithmetic and its int64 wrap-around are in :mod:`apiserver.deletion`)."""
        if self.deletion_ms is not None:
            self._delete_again(grace_seconds, cause)
            return
        phase = (self._pod or {}).get("status", {}).get("phase")
        grace = check_graceful_delete(
            grace_seconds,
            self.pod_spec.get("terminationGracePeriodSeconds", 30),
            scheduled=self.node_name is not None,
            terminal=phase in (SUCCEEDED, FAILED),
        )
        self.deletion_grace_seconds = grace
        self.deletion_ms = self.clock.now_ms
        self.deletion_timestamp_ms = before_delete(self.clock.now_ms, grace)
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
        self.deletion_timestamp_ms = before_delete_again(
            self.deletion_timestamp_ms or 0, current, grace
        )
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
        if old is not None:
            share_unchanged(pod, old)  # versions share what did not change (memory)
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
        metadata["creationTimestamp"] = rfc3339(self.created_ms)
        if self.deletion_ms is not None:
            metadata["deletionTimestamp"] = rfc3339(self.deletion_timestamp_ms or 0)
            metadata["deletionGracePeriodSeconds"] = self.deletion_grace_seconds
        metadata = dict(sorted(metadata.items()))
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": metadata,
            "spec": source["spec"],
            "status": self._build_status(),
        }

    def add_pod_condition(self, condition: dict) -> None:
        """A controller or the API server patches a condition into the Pod's status
        (``UpdatePodCondition``; the DisruptionTarget of an eviction). The kubelet copies
        such a condition in every status it writes afterwards."""
        if self.pod_removed:
            return
        current = (self.pod() or {}).get("status", {}).get("conditions") or []
        now = rfc3339(self.clock.now_ms)
        updated, changed = update_pod_condition(current, condition, now)
        if not changed:
            return
        kept = [c for c in self.api_conditions if c["type"] != condition["type"]]
        self.api_conditions = [*kept, *(c for c in updated if c["type"] == condition["type"])]
        self.mark_dirty()
        self._flush()

    def _build_status(self) -> dict:
        status = self._build_component_status()
        if not self.api_conditions or self.rejected is not None:
            return status
        conditions = list(status.get("conditions") or [])
        now = rfc3339(self.clock.now_ms)
        for condition in self.api_conditions:
            conditions, _ = update_pod_condition(
                conditions, condition, condition.get("lastTransitionTime") or now
            )
        return {**status, "conditions": conditions}

    def _build_component_status(self) -> dict:
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
            status["qosClass"] = self._qos_class()
            return status
        if not self.node_up(kubelet.node_name) and self._kubelet_status is not None:
            return self._kubelet_status  # the kubelet cannot post; the controller may patch
        self._kubelet_status = self._generate_kubelet_status(kubelet)
        return self._kubelet_status

    def _qos_class(self) -> str:
        """``GetPodQOS`` of the Pod's spec, computed again only when the spec is replaced."""
        spec = self.pod_object_dict["spec"]
        cached = self._qos
        if cached is None or cached[0] is not spec:
            cached = self._qos = (spec, pod_qos_class(self.pod_object_dict))
        return cached[1]

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
        status["qosClass"] = self._qos_class()
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


_MISSING = object()


def share_unchanged(new: Any, old: Any) -> None:
    """Put ``old``'s sub-objects into ``new`` wherever they are equal, so consecutive watch
    versions of the Pod share everything that did not change (twenty container statuses of
    which one moved). Objects in ``pod_versions`` are never changed in place, so sharing is
    safe; ``new`` must not be published yet."""
    if isinstance(new, dict) and isinstance(old, dict):
        for key, value in new.items():
            before = old.get(key, _MISSING)
            if before is _MISSING or before is value:
                continue
            if value == before:
                new[key] = before
            else:
                share_unchanged(value, before)
    elif isinstance(new, list) and isinstance(old, list):
        for index, value in enumerate(new[: len(old)]):
            before = old[index]
            if value == before:
                new[index] = before
            else:
                share_unchanged(value, before)


def init_run(sim: Any, scenario: Any, seed: int, horizon: float, rng: type = random.Random) -> None:
    """What a run of one Pod and a run of a cluster (engine/cluster.py) both start from:
    horizon, seeded randomness, clock, event recorder, the Simulation document's container
    behaviours and image catalogue, the scenario's ConfigMaps, Secrets, Services and Nodes.
    The randomness is drawn in this order in both, so a seed means the same in each."""
    sim.horizon_ms = _checked_horizon(scenario, horizon)
    sim.scenario = scenario
    sim.seed = seed
    sim.rng = rng(seed)  # a cluster run's is a CountedRandom: the same draws, pickled small
    sim.clock = Clock()
    sim.recorder = EventRecorder()
    sim.actions = []
    document = scenario.simulation
    # A copy: set-probe before the kubelet exists changes it, never the shared scenario.
    sim.behaviours = copy.deepcopy(document.get("containers") or {})
    sim.images = ImageRegistry(document.get("images") or {}, sim.rng)
    sim.config_maps = {o["metadata"]["name"]: o for o in scenario.config_maps}
    sim.secrets = {o["metadata"]["name"]: o for o in scenario.secrets}
    sim.services = {o["metadata"]["name"]: o for o in scenario.services}
    nodes = list(scenario.nodes) or scheduler.default_nodes()
    sim.nodes_by_name = {n["metadata"]["name"]: NodeState(with_node_defaults(n)) for n in nodes}


def _checked_horizon(scenario: Any, horizon: float) -> int:
    """The horizon in milliseconds; a scenario whose script or lesson reaches past it is a
    located ScenarioError (found by checking its text against that horizon)."""
    if not (isinstance(horizon, int | float) and math.isfinite(horizon) and horizon >= 0):
        raise ValueError(f"the horizon must be a finite number of seconds >= 0, not {horizon!r}")
    document = scenario.simulation
    times = [step.get("at") for step in (document.get("script") or [])]
    times += [step.get("at") for step in (document.get("lesson") or [])]
    if any(t is not None and t > horizon for t in times):
        parse_scenario(scenario.text, horizon=horizon)  # raises with every located error
        raise ScenarioError(
            [located_error(0, (), 1, 1, "beyond_horizon", {"value": max(t for t in times
             if t is not None), "horizon": horizon})]
        )  # fmt: skip
    return to_ms(horizon)


def _internal_ip(node: dict) -> str:
    for address in (node.get("status") or {}).get("addresses") or []:
        if address.get("type") == "InternalIP":
            return address.get("address", "")
    return "10.0.0.11"
