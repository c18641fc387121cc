"""The kubelet's pod worker for our Pod: sync loop, container starts, restarts, kills.

Mirrors ``pkg/kubelet/kuberuntime/kuberuntime_manager.go`` (computePodActions, SyncPod,
doBackOff) and ``kuberuntime_container.go`` (startContainer, killContainer), driven by the
pod worker of ``pod_workers.go``: one sync at a time, each a process on the virtual clock.

Modelling choices (documented in docs/internals.md terms):
- PLEG has no lag: the kubelet learns of a container start or exit at the same virtual
  millisecond and queues a sync, which runs as soon as the running one finishes.
- The Pod's container statuses are generated at the start of each sync
  (generateAPIPodStatus), so a container whose postStart hook is running still shows
  Waiting, and an exited container shows ``Error`` until the next sync writes
  ``CrashLoopBackOff``. started / ready follow probe results at once (status manager).
- After a sync with errors the worker retries after ``backOffPeriod`` (10 s, no jitter);
  a container in CrashLoopBackOff is also woken exactly when its backoff expires, so
  restarts land 0, 10, 20, 40 … 300 s after finishedAt.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import TYPE_CHECKING

from webapp.engine.api import podutil
from webapp.engine.api.events import NORMAL, WARNING
from webapp.engine.core.clock import URGENT, Timer
from webapp.engine.core.process import Process, all_of
from webapp.engine.core.timefmt import go_duration
from webapp.engine.kubelet import backoff as flowcontrol
from webapp.engine.kubelet.config_refs import container_config_error, pod_volume_errors
from webapp.engine.kubelet.hooks import POST_START, HookRun, hook_error_message, hook_run
from webapp.engine.kubelet.images import (
    ERR_IMAGE_NEVER_PULL,
    ERR_IMAGE_PULL,
    IMAGE_PULL_BACKOFF,
    PullResult,
    already_present_message,
    default_pull_policy,
    never_pull_message,
    not_found_error,
    pulled_message,
)
from webapp.engine.kubelet.probes import (
    FAILURE,
    PROBE_TYPES,
    SPEC_FIELD,
    SUCCESS,
    ProbeContext,
    ProbeSpec,
    ProbeWorker,
    Repeats,
)
from webapp.engine.kubelet.processes import PodProcesses
from webapp.engine.kubelet.record import ContainerRecord, health_from_behaviour
from webapp.engine.kubelet.runtime import ContainerInstance, Runtime
from webapp.engine.kubelet.security_context import verify_run_as_non_root
from webapp.engine.kubelet.status import (
    CONTAINER_CREATING,
    POD_INITIALIZING,
    convert_to_api_container_status,
)
from webapp.engine.kubelet.termination import (
    kill_container,
    kill_failure_message,
    minimum_grace_ms,
)

if TYPE_CHECKING:
    from webapp.engine.core.cluster import Cluster

SANDBOX_CREATE_MS = 1_000  # RunPodSandbox plus network setup
SYNC_ERROR_RETRY_MS = 10_000  # pod_workers.go backOffPeriod
VOLUME_RETRY_INITIAL_MS = 500  # nestedpendingoperations exponential backoff
VOLUME_RETRY_MAX_MS = 122_000  # 2m2s


class Kubelet:
    """The kubelet on the Pod's node, reduced to what concerns our one Pod."""

    def __init__(self, sim: Cluster, node_name: str) -> None:
        self.sim = sim
        self.clock = sim.clock
        self.node_name = node_name
        spec = sim.pod_spec
        behaviours = sim.behaviours
        self.records: list[ContainerRecord] = []
        for container in spec.get("initContainers") or []:
            kind = "sidecar" if podutil.is_sidecar(container) else "init"
            self._add_record(container, kind, behaviours)
        for container in spec.get("containers") or []:
            self._add_record(container, "app", behaviours)
        self.by_name = {record.name: record for record in self.records}
        self.processes = PodProcesses(sim, self)
        self.runtime = Runtime(
            self.clock, sim.rng, behaviours, self._on_container_exit, self.processes, self.by_name
        )
        self.restart_backoff = flowcontrol.new_crash_loop_backoff()
        self.image_backoff = flowcontrol.new_image_backoff()
        self.pull_errors: dict[str, str] = {}
        self.volumes_ready = False
        self.volume_retry_ms = VOLUME_RETRY_INITIAL_MS
        self.sandbox_ready = False
        self.pod_ip = ""
        self.initialized = False  # a regular container has started (HasAnyRegularContainerStarted)
        self.terminal = False  # the pod worker finished the pod (podIsTerminal)
        self.terminating = False
        self.stopping = False  # killing every container: the Pod is done or being deleted
        self.terminating_grace_s: int | None = None  # podSyncStatus.gracePeriod
        self.kills: list[Process] = []  # killContainer goroutines of the running sync
        self.work: Process | None = None
        self.pending_sync = False
        self.missed_sync = False
        self._sync_timer: Timer | None = None
        self._sync_at = 0
        # Bound methods, not closures: a checkpoint's deep copy rebinds them to the copy.
        self.probe_context = ProbeContext(
            kubelet_up=self._kubelet_up,
            pod_terminal=self._pod_terminal,
            deleting=self._deleting,
            restart_policy=self._restart_policy,
            pod_ip=self._pod_ip,
            run_handler=self._run_probe_handler,
        )
        self._start_probe_workers()

    def _kubelet_up(self) -> bool:
        return self.sim.node_up(self.node_name)

    def _pod_terminal(self) -> bool:
        return self.terminal

    def _deleting(self) -> bool:
        return self.sim.deletion_ms is not None

    def _restart_policy(self) -> str:
        return self.sim.pod_spec.get("restartPolicy", "Always")

    def _pod_ip(self) -> str:
        return self.pod_ip

    def _add_record(self, container: dict, kind: str, behaviours: dict) -> None:
        behaviour = behaviours.get(container["name"]) or {}
        record = ContainerRecord(container, kind, behaviour)
        record.health = health_from_behaviour(behaviour)
        self.records.append(record)

    # -- probes -------------------------------------------------------------------------

    def _start_probe_workers(self) -> None:
        """``prober_manager.go`` AddPod: a worker per probe, before containers exist."""
        for record in self.records:
            if record.kind == "init":
                continue
            for probe_type in PROBE_TYPES:
                probe = record.spec.get(SPEC_FIELD[probe_type])
                if probe:
                    record.probes[probe_type] = ProbeWorker(
                        self.clock,
                        record,
                        probe_type,
                        ProbeSpec.from_api(probe),
                        self._on_probe_run,
                        self._on_probe_result,
                        self.probe_context,
                    )

    def stop_probe_workers(self) -> None:
        for record in self.records:
            for worker in record.probes.values():
                worker.stop()

    def _run_probe_handler(
        self, record: ContainerRecord, probe_type: str, spec: ProbeSpec, dry: bool = False
    ) -> tuple[str, str, bool] | None:
        """``runProbe``: the handler against the container's process model. ``dry``: what
        every run before the next clock event would answer, changing nothing, or None when
        that is not known (:meth:`Processes.steady_probe`, the coasting rule)."""
        if dry:
            return self.processes.steady_probe(record, probe_type, spec.handler, spec.timeout_ms)
        return self.processes.run_probe(record, probe_type, spec.handler, spec.timeout_ms)

    def _on_probe_run(
        self, worker: ProbeWorker, result: str, output: str, errored: bool = False
    ) -> None:
        """``prober.go`` probe: a transition per run, Unhealthy on each failure."""
        step, obj, field, cause = self._probe_run_words(worker, result, output)
        record = worker.record
        self.sim.transition(
            step, obj, field, worker.last_result or None, result, cause, container=record.name
        )
        if result == FAILURE:
            self.event(record, WARNING, "Unhealthy", _unhealthy_message(worker, output, errored))

    @staticmethod
    def _probe_run_words(
        worker: ProbeWorker, result: str, output: str
    ) -> tuple[str, str, str, str]:
        """(step, object, field, cause) of the transition a probe run records."""
        probe_type = worker.probe_type
        step = "startupProbe" if probe_type == "startup" else probe_type
        cause = (
            f"{probe_type.capitalize()} probe {'succeeded' if result == SUCCESS else 'failed'}"
            + (f": {output.strip()}" if output.strip() else "")
        )
        return step, f"Container/{worker.record.name}", f"probe.{probe_type}", cause

    # -- coasting: many steady probe ticks at once (docs/internals.md) --------------------

    def probe_workers(self) -> list[ProbeWorker]:
        return [w for record in self.records for w in record.probes.values() if not w.stopped]

    def can_skip(self, worker: ProbeWorker, repeats: Repeats, first_ms: int) -> bool:
        """Would ``repeats`` ticks from ``first_ms`` only lengthen the worker's transition run
        (and its Unhealthy event's count)? Then :meth:`skip` may do them at once."""
        if repeats.result is None:
            return True
        step, obj, field, cause = self._probe_run_words(worker, repeats.result, repeats.output)
        record = worker.record
        if not self.sim.run_continues(step, obj, field, repeats.result, cause, record.name,
                                      first_ms, worker.spec.period_ms):  # fmt: skip
            return False
        if repeats.result == FAILURE:
            message = _unhealthy_message(worker, repeats.output, repeats.errored)
            return self.sim.pod_event_seen(WARNING, "Unhealthy", message, component="kubelet",
                                           host=self.node_name, field_path=record.field_path)  # fmt: skip
        return True

    def skip(self, worker: ProbeWorker, repeats: Repeats, last_ms: int) -> None:
        """Do ``repeats`` ticks checked by :meth:`can_skip`, the last at ``last_ms``."""
        worker.skip(repeats)
        if repeats.result is None:
            return
        if worker.record.health.get(worker.probe_type) is None:
            self.processes.probes_skipped(worker.record, worker.spec.handler, repeats.count)
        _, obj, field, _ = self._probe_run_words(worker, repeats.result, repeats.output)
        self.sim.extend_run(obj, field, repeats.count, last_ms)
        if repeats.result == FAILURE:
            message = _unhealthy_message(worker, repeats.output, repeats.errored)
            self.sim.pod_event_again(WARNING, "Unhealthy", message, repeats.count, last_ms,
                                     component="kubelet", host=self.node_name,
                                     field_path=worker.record.field_path)  # fmt: skip

    def _on_probe_result(self, worker: ProbeWorker) -> None:
        """A stored result changed: status manager update, and a sync for the kubelet."""
        record = worker.record
        running = record.snapshot is not None and record.snapshot.running
        if worker.result == FAILURE and worker.probe_type != "readiness" and running:
            grace = self.probe_kill_grace_seconds(worker.spec.termination_grace_period_seconds)
            suffix = (
                "" if self.sim.pod_spec.get("restartPolicy") == "Never" else ", will be restarted"
            )
            record.kill_message = (
                f"Container {record.name} failed {worker.probe_type} probe{suffix}"
            )
            record.kill_grace_s = grace
        self.sim.mark_dirty()
        self.request_sync()

    def probe_kill_grace_seconds(self, probe_grace: int | None) -> int:
        """``setTerminationGracePeriod``: deletion grace, else the probe's, else the spec's."""
        if self.sim.deletion_grace_seconds is not None:
            return self.sim.deletion_grace_seconds
        if probe_grace is not None:
            return int(probe_grace)
        return int(self.sim.pod_spec.get("terminationGracePeriodSeconds", 30))

    def trigger_readiness_probes(self) -> None:
        """UpdatePodStatus: a running container without readiness Success probes at once."""
        for record in self.records:
            worker = record.probes.get("readiness")
            if worker is not None and record.started and worker.result != SUCCESS:
                worker.trigger()

    # -- events and sync requests -------------------------------------------------------

    def event(
        self, record: ContainerRecord | None, event_type: str, reason: str, message: str
    ) -> None:
        self.sim.pod_event(
            event_type,
            reason,
            message,
            component="kubelet",
            host=self.node_name,
            field_path=record.field_path if record else "",
        )

    def request_sync(self, delay_ms: int = 0) -> None:
        """Queue a pod sync at now + ``delay_ms`` (the earliest request wins)."""
        at_ms = self.clock.now_ms + delay_ms
        timer = self._sync_timer
        if timer is not None and not timer.cancelled:
            if self._sync_at <= at_ms:
                return
            timer.cancel()
        self._sync_at = at_ms
        self._sync_timer = self.clock.schedule(at_ms, self._on_sync_timer)

    def _on_sync_timer(self) -> None:
        self._sync_timer = None
        if not self.sim.node_up(self.node_name):
            self.missed_sync = True
            return
        if self.work is not None:
            self.pending_sync = True
            return
        self._start_work()

    def _start_work(self) -> None:
        if self.terminal:
            return  # the pod worker is done with this Pod
        if self.sim.deletion_ms is not None or self.sim.pod_removed:
            generator = self._sync_terminating_pod()
        else:
            generator = self._sync_pod()
        self.work = Process(self.clock, generator)
        self.work.done.wait(self._work_done)

    def _work_done(self) -> None:
        self.work = None
        if self.pending_sync:
            self.pending_sync = False
            self.request_sync()

    def node_returned(self) -> None:
        """The kubelet runs again after ``node-up``: resync everything."""
        self.missed_sync = False
        if self.terminating:
            self._shorten_grace()  # a shorter deletion grace may have come while it was down
        self.request_sync()

    def pod_deleted(self) -> None:
        """``UpdatePod(SyncPodKill)``: cancel a running sync and terminate.

        Once terminating, an update only matters when it shortens the grace period
        (``calculateEffectiveGracePeriod``: the grace can only decrease)."""
        if self.terminating:
            self._shorten_grace()
            return
        self._cancel_work()
        self.request_sync()

    def _cancel_work(self) -> None:
        """``status.cancelFn()``: drop the running sync and its container kills."""
        if self.work is not None:
            self.work.cancel()
            self.work = None
        for kill in self.kills:
            kill.cancel()
        self.kills = []
        self.pending_sync = False

    def _shorten_grace(self) -> None:
        """A shorter grace cancels SyncTerminatingPod, which runs again with the new grace:
        Killing again, preStop again within it, and a second StopContainer whose timeout
        can only bring SIGKILL earlier (pod_workers.go wasGracePeriodShortened)."""
        if self.terminal or self.terminating_grace_s is None:
            return
        if self.sim.kubelet_grace_seconds() >= self.terminating_grace_s:
            return
        if not self.sim.node_up(self.node_name):
            return  # node_returned() looks again
        self._cancel_work()
        self.request_sync()

    def _on_container_exit(self, instance: ContainerInstance) -> None:
        """PLEG ContainerDied: the runtime reported an exit."""
        self.sim.runtime_exit(instance)
        self.request_sync()

    # -- status -------------------------------------------------------------------------

    def default_waiting_reason(self) -> str:
        """PodInitializing whenever the Pod has init containers, else ContainerCreating."""
        return POD_INITIALIZING if self.sim.pod_spec.get("initContainers") else CONTAINER_CREATING

    def should_restart(self, record: ContainerRecord) -> bool:
        """``ShouldContainerBeRestarted``."""
        if self.sim.deletion_ms is not None:
            return False
        newest = record.newest
        if newest is None or newest.state == "created":
            return True
        if newest.running:
            return False
        return podutil.container_should_restart(
            record.spec, self.sim.pod_spec, newest.exit_code or 0
        )

    def generate_status(self) -> None:
        """``generateAPIPodStatus``: refresh every container's API status snapshot."""
        default_reason = self.default_waiting_reason()
        for record in self.records:
            snapshot = convert_to_api_container_status(
                record.name,
                record.spec.get("image", ""),
                record.instances,
                default_reason,
                record.snapshot,
                record.reason,
                self.should_restart(record),
            )
            if snapshot != record.snapshot:
                record.snapshot = snapshot
                self.sim.mark_dirty()
        self.trigger_readiness_probes()

    # -- SyncPod ------------------------------------------------------------------------

    def _sync_pod(self) -> Iterator:
        """``SyncPod`` for a live Pod: volumes, sandbox, kills, init containers, containers."""
        self.generate_status()
        if self.terminal:
            return
        if not self.volumes_ready and not self._mount_volumes():
            return
        if not self.sandbox_ready:
            yield from self._create_sandbox()
        if not (yield from self._kill_unhealthy_containers()):
            return
        wakes: list[int] = []
        init_state = yield from self._sync_init_containers(wakes)
        if init_state == "failed":
            yield from self._kill_pod()
            return
        if init_state == "done":
            for record in self.records:
                if record.kind == "app" and self.should_restart(record):
                    yield from self._start_container(record, wakes)
            if not self._anything_to_run():
                yield from self._kill_pod()
                return
        if wakes:
            self.request_sync(min(min(wakes) - self.clock.now_ms, SYNC_ERROR_RETRY_MS))

    def _anything_to_run(self) -> bool:
        """computePodActions keepCount: a regular container runs or will be started."""
        return any(
            record.kind == "app"
            and (record.newest is None or record.newest.running or self.should_restart(record))
            for record in self.records
        )

    def _mount_volumes(self) -> bool:
        """``WaitForAttachAndMount``: missing ConfigMap / Secret volumes block the Pod."""
        errors = pod_volume_errors(self.sim.pod_spec, self.sim.config_maps, self.sim.secrets)
        if errors:
            for error in errors:
                self.event(None, WARNING, "FailedMount", error)
            self.sim.transition(
                "volumes", self.sim.pod_object, "volumes", None, "failed", errors[0]
            )
            self.request_sync(self.volume_retry_ms)
            self.volume_retry_ms = min(self.volume_retry_ms * 2, VOLUME_RETRY_MAX_MS)
            return False
        self.volumes_ready = True
        self.sim.transition(
            "volumes", self.sim.pod_object, "volumes", None, "mounted", "Volumes mounted"
        )
        return True

    def _create_sandbox(self) -> Iterator:
        """``createPodSandbox``: the pause container and the Pod's network."""
        self.sim.transition(
            "kubelet", self.sim.pod_object, "sandbox", None, "creating", "Creating the Pod sandbox"
        )
        yield SANDBOX_CREATE_MS
        self.sandbox_ready = True
        self.pod_ip = self.sim.allocate_pod_ip()
        self.sim.transition(
            "kubelet", self.sim.pod_object, "sandbox", "creating", "ready",
            f"Sandbox ready, Pod IP {self.pod_ip}",
        )  # fmt: skip
        self.sim.mark_dirty()
        self.request_sync()  # PLEG sees the new sandbox

    def _kill_unhealthy_containers(self) -> Iterator:
        """computePodActions ContainersToKill: liveness / startup failures."""
        for record in self.records:
            instance = record.newest
            if record.kill_message is None:
                continue
            message, grace = record.kill_message, record.kill_grace_s or 0
            record.kill_message = record.kill_grace_s = None
            if instance is not None and instance.running:
                step = "startupProbe" if "startup" in message else "liveness"
                stopped = yield from kill_container(
                    self, record, instance, message, grace, step=step
                )
                if not stopped:
                    # SyncPod returns on a failed kill (no event: the runtime's error is
                    # only logged); the pod worker retries, and the next sync kills again.
                    record.kill_message, record.kill_grace_s = message, grace
                    self.request_sync(SYNC_ERROR_RETRY_MS)
                    return False
        return True

    def _sync_init_containers(self, wakes: list[int]) -> Iterator:
        """computeInitContainerActions: one regular init container at a time; sidecars.

        Returns "done" when every init container is done (or the Pod initialized before),
        "waiting" while one is running or could not start, "failed" when a regular init
        container failed and will not be restarted.
        """
        for record in self.records:
            if record.kind == "app":
                continue
            newest = record.newest
            if record.kind == "sidecar":
                if newest is None or not newest.running:
                    yield from self._start_container(record, wakes)
                    if not self.initialized:
                        return "waiting"  # one init container per sync; wait for started
                elif not record.started and not self.initialized:
                    return "waiting"
                continue
            if self.initialized:
                continue
            if newest is not None and newest.running:
                return "waiting"
            if newest is not None and newest.state == "exited" and newest.exit_code == 0:
                continue
            if newest is not None and not self.should_restart(record):
                return "failed"
            yield from self._start_container(record, wakes)
            return "waiting"
        return "done"

    def _start_container(self, record: ContainerRecord, wakes: list[int]) -> Iterator:
        """doBackOff, then ``startContainer``: pull, create, start, postStart. True if started."""
        sim = self.sim
        newest = record.newest
        key = f"{sim.pod_name}_{sim.namespace}_{sim.uid}_{record.name}_{record.spec.get('image')}"
        last_exit = self._last_exit_seen_by_sync(record)
        if last_exit is not None:
            finished = last_exit.finished_ms or 0
            if self.restart_backoff.is_in_backoff_since(key, finished, self.clock.now_ms):
                window = self.restart_backoff.get(key)
                self.event(
                    record, WARNING, "BackOff",
                    f"Back-off restarting failed container {record.name} in pod {sim.pod_format}",
                )  # fmt: skip
                self._set_reason(
                    record,
                    "CrashLoopBackOff",
                    f"back-off {go_duration(window)} restarting failed container="
                    f"{record.name} pod={sim.pod_format}",
                    seconds=window / 1000,
                )
                wakes.append(finished + window)
                return False
            self.restart_backoff.next(key, self.clock.now_ms, finished)
        pulled = yield from self._ensure_image_exists(record)
        if not pulled.ok:
            self.event(record, WARNING, "Failed", f"Error: {pulled.reason}")
            self._set_reason(record, pulled.reason, pulled.message, seconds=pulled.backoff_seconds)
            wakes.append(self.clock.now_ms + SYNC_ERROR_RETRY_MS)
            return False
        # generateContainerConfig: the environment first, then verifyRunAsNonRoot.
        config_error = container_config_error(record.spec, sim.config_maps, sim.secrets)
        step, config_field = "volumes", "config"
        if not config_error:
            config_error = verify_run_as_non_root(sim.pod_spec, record.spec, sim.pod_format)
            step, config_field = "kubelet", "securityContext"
        if config_error:
            self.event(record, WARNING, "Failed", f"Error: {config_error}")
            self._set_reason(record, "CreateContainerConfigError", config_error)
            sim.transition(
                step, f"Container/{record.name}", config_field, None, "error", config_error,
                container=record.name,
            )  # fmt: skip
            wakes.append(self.clock.now_ms + SYNC_ERROR_RETRY_MS)
            return False
        instance = self._create_and_start(record, newest, pulled.image_id)
        if instance.reason == "StartError":
            # StartContainer failed (the runtime could not exec the command): the kubelet
            # records the error and the container restarts under the back-off.
            self.event(record, WARNING, "Failed", f"Error: {instance.message}")
            self._set_reason(record, "RunContainerError", instance.message)
            wakes.append(self.clock.now_ms + SYNC_ERROR_RETRY_MS)
            return False
        hook = self.hook_run(record, instance, POST_START, None)
        if hook is not None:
            ok = yield from self._run_post_start(record, instance, hook)
            if not ok:
                wakes.append(self.clock.now_ms + SYNC_ERROR_RETRY_MS)
                return False
        record.reason = None
        return True

    @staticmethod
    def _last_exit_seen_by_sync(record: ContainerRecord) -> ContainerInstance | None:
        """The exited instance ``doBackOff`` finds in the podStatus this sync started from.

        A container this same sync killed (liveness or startup failure) was still running
        in that podStatus, so the exit before it counts, and a first kill has none: the
        restart is immediate and ``Next`` is not called (§4, kuberuntime_manager.go
        doBackOff over ``podStatus.ContainerStatuses``).
        """
        snapshot = record.snapshot
        for instance in record.instances:
            seen_running = (
                snapshot is not None
                and snapshot.running
                and snapshot.container_id == instance.container_id
            )
            if instance.state == "exited" and not seen_running:
                return instance
        return None

    def _set_reason(
        self, record: ContainerRecord, reason: str, message: str, *, seconds: float | None = None
    ) -> None:
        record.reason = (reason, message)
        if seconds is not None:
            record.reason_seconds = seconds

    def _create_and_start(
        self, record: ContainerRecord, previous: ContainerInstance | None, image_id: str
    ) -> ContainerInstance:
        sim = self.sim
        attempt = previous.attempt + 1 if previous is not None else 0
        instance = self.runtime.create(record.name, attempt, record.spec.get("image", ""), image_id)
        record.instances.insert(0, instance)
        del record.instances[2:]
        self.event(record, NORMAL, "Created", "Container created")
        self.runtime.start(instance, sim.memory_limit_bytes(record.spec))
        if record.kind == "app":
            self.initialized = True
        if instance.reason == "StartError":
            return instance
        self.event(record, NORMAL, "Started", "Container started")
        step = {"init": "init", "sidecar": "sidecar"}.get(record.kind, "start")
        sim.transition(
            step, f"Container/{record.name}", "runtime", None, "started",
            f"Container {record.name} started" + (f" (restart {attempt})" if attempt else ""),
            container=record.name,
        )  # fmt: skip
        sim.runtime_start(instance)
        self.request_sync()  # PLEG ContainerStarted
        return instance

    def hook_run(self, record: ContainerRecord, instance: ContainerInstance, hook: str,
                 limit_ms: int | None) -> HookRun | None:  # fmt: skip
        """The lifecycle handler ``hook`` of ``record``, run against its process model."""

        runner = partial(self.processes.run_hook, record, instance, hook, limit_ms=limit_ms)
        return hook_run(record.spec, record.behaviour, hook, runner)

    def _run_post_start(
        self, record: ContainerRecord, instance: ContainerInstance, hook
    ) -> Iterator:
        """startContainer step 4: the hook blocks this sync until it returns."""
        sim = self.sim
        obj = f"Container/{record.name}"
        sim.transition("postStart", obj, "hook.postStart", None, "running",
                       "postStart hook running", container=record.name)  # fmt: skip
        if hook.duration_ms:
            yield hook.duration_ms
        if not hook.fails:
            sim.transition("postStart", obj, "hook.postStart", "running", "succeeded",
                           "postStart hook returned", container=record.name)  # fmt: skip
            return True
        sim.transition("postStart", obj, "hook.postStart", "running", "failed",
                       "postStart hook failed", container=record.name)  # fmt: skip
        self.event(record, WARNING, "FailedPostStartHook", "PostStartHook failed")
        message = hook_error_message(hook, record.name, sim.pod_format, self.pod_ip)
        if instance.running:
            grace = self.probe_kill_grace_seconds(None)
            yield from kill_container(
                self, record, instance, "FailedPostStartHook", grace, step="postStart"
            )
        self._set_reason(record, "PostStartHookError", message)
        return False

    # -- images -------------------------------------------------------------------------

    def _ensure_image_exists(self, record: ContainerRecord) -> Iterator:
        """``EnsureImageExists`` / ``pullImage`` (§4, §10)."""
        sim = self.sim
        image = record.spec.get("image", "")
        policy = record.spec.get("imagePullPolicy") or default_pull_policy(image)
        info = sim.images.info(image)
        cache = sim.node_images(self.node_name)
        present = image in cache
        if policy == "Never" or (policy == "IfNotPresent" and present):
            if present:
                self.event(record, NORMAL, "Pulled", already_present_message(image))
                return PullResult(image_id=cache[image])
            message = never_pull_message(image)
            self.event(record, WARNING, ERR_IMAGE_NEVER_PULL, message)
            return PullResult(reason=ERR_IMAGE_NEVER_PULL, message=message)
        key = f"{sim.uid}_{image}"
        now = self.clock.now_ms
        if self.image_backoff.is_in_backoff_since_update(key, now):
            message = f'Back-off pulling image "{image}"'
            self.event(record, NORMAL, "BackOff", message)
            detail = self.pull_errors.get(image, "")
            return PullResult(
                reason=IMAGE_PULL_BACKOFF,
                message=f"{message}: {ERR_IMAGE_PULL}: {detail}",
                backoff_seconds=self.image_backoff.get(key) / 1000,
            )
        self.event(record, NORMAL, "Pulling", f'Pulling image "{image}"')
        obj = f"Container/{record.name}"
        sim.transition("pull", obj, "image", None, "pulling", f'Pulling image "{image}"',
                       container=record.name)  # fmt: skip
        duration = info.check_ms if present else info.pull_ms
        yield duration
        if not info.exists:
            error = not_found_error(image)
            self.pull_errors[image] = error
            self.event(record, WARNING, "Failed", f'Failed to pull image "{image}": {error}')
            self.image_backoff.next(key, self.clock.now_ms)
            sim.transition("pull", obj, "image", "pulling", "failed", error, container=record.name,
                           seconds=self.image_backoff.get(key) / 1000)  # fmt: skip
            return PullResult(reason=ERR_IMAGE_PULL, message=error)
        cache[image] = info.image_id
        self.image_backoff.gc(self.clock.now_ms)
        self.event(
            record, NORMAL, "Pulled", pulled_message(image, duration, duration, info.size_bytes)
        )
        sim.transition("pull", obj, "image", "pulling", "pulled",
                       f'Pulled image "{image}" in {go_duration(duration)}', container=record.name)  # fmt: skip
        return PullResult(image_id=info.image_id)

    # -- stopping -----------------------------------------------------------------------

    def _kill_pod(self) -> Iterator:
        """KillPod when nothing is left to run: stop sidecars, then the Pod is terminal."""
        grace = self.probe_kill_grace_seconds(None)
        running = [r for r in self.records if r.newest is not None and r.newest.running]
        if not (yield from self._kill_all(running, grace)):
            return
        self._become_terminal()

    def _kill_all(
        self, records: list[ContainerRecord], grace_s: int, message: str | None = None
    ) -> Iterator:
        """``killContainersWithSyncResult``: in parallel; sidecars wait for regular containers
        and for sidecars later in spec order (terminationOrdering), sharing the grace."""
        self.stopping = True
        regular = [r for r in records if r.kind != "sidecar"]
        sidecars = [r for r in records if r.kind == "sidecar"]
        exits = {r.name: r.newest.exited for r in records if r.newest is not None}
        processes = self.kills = []
        for record in regular + sidecars:
            turn = None
            if record.kind == "sidecar":
                later = sidecars[sidecars.index(record) + 1 :]
                turn = all_of([exits[r.name] for r in regular + later])
            text = message or f"Stopping container {record.name}"
            processes.append(
                Process(
                    self.clock,
                    kill_container(
                        self, record, record.newest, text, grace_s, step="sigterm", turn=turn
                    ),
                    URGENT,
                )
            )
        yield all_of([p.done for p in processes])
        self.kills = []
        failed = [r.name for r, p in zip(regular + sidecars, processes, strict=True)
                  if p.done.value is False]  # fmt: skip
        if failed:
            # killPodWithSyncResult's aggregate error; the pod worker retries the sync.
            texts = [kill_failure_message(name) for name in failed]
            detail = texts[0] if len(texts) == 1 else (
                "error killing pod: [" + ", ".join(t.removeprefix("error killing pod: ")
                                                  for t in texts) + "]")  # fmt: skip
            self.event(None, WARNING, "FailedKillPod", detail)
            self.request_sync(SYNC_ERROR_RETRY_MS)
            return False
        return True

    def _sync_terminating_pod(self) -> Iterator:
        """``SyncTerminatingPod``: stop every container within the grace period."""
        sim = self.sim
        self.terminating = True
        self.generate_status()
        grace = sim.kubelet_grace_seconds()
        previous, self.terminating_grace_s = self.terminating_grace_s, grace
        cause = f"Grace period of {grace}s starts"
        if previous is not None:
            cause = (
                f"Grace period shortened from {previous}s to {grace}s: containers are stopped again"
            )
        sim.transition("grace", sim.pod_object, "gracePeriod", previous, grace, cause, stage=5)
        running = [r for r in self.records if r.newest is not None and r.newest.running]
        if running and not (yield from self._kill_all(running, grace)):
            return
        self._become_terminal()
        sim.kubelet_finished_pod()

    def _become_terminal(self) -> None:
        self.terminal = True
        self.stop_probe_workers()
        self.generate_status()
        self.sandbox_ready = False
        self.sim.mark_dirty()

    def minimum_grace_ms(self) -> int:
        return minimum_grace_ms()


def _unhealthy_message(worker: ProbeWorker, output: str, errored: bool = False) -> str:
    """``prober.go``: a probe that failed, or one whose run errored (result unknown)."""
    if errored:
        return f"{worker.probe_type.capitalize()} probe errored and resulted in unknown state: {output}"
    return f"{worker.probe_type.capitalize()} probe failed: {output}"
